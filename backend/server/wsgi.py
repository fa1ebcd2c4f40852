"""WSGI entry point for gunicorn: ``gunicorn backend.server.wsgi:app`` (configured by environment)."""

from backend.server.app import create_app

app = create_app()
