"""label-audit backend: the LLM-ensemble engine, providers, Label Studio ML backend, workers, review loop."""

__version__ = "0.1.0"
