"""Where the statistics' inputs come from and where gold goes: Label Studio through the SDK, the ledger, the review and probe stores, record files."""
