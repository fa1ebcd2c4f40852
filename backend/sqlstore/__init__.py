"""The one SQL store (call cache, audit ledger, review and probe stores): how to open it and its tables."""
