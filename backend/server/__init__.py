"""The Label Studio ML backend: a Flask app answering from the ledger and feeding the RQ queue."""

from backend.server.app import create_app

__all__ = ["create_app"]
