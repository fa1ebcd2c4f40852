"""Label Studio integration: SDK helpers, label-config parsing, a local server for tests and benches."""
