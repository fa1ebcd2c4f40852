"""One module per report section; each is a pure function ``AuditData -> Section``."""
