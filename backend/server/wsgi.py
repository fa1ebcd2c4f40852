"""WSGI entry point for gunicorn: ``gunicorn backend.server.wsgi:app`` (configured by environment).

Refuses to load without ``BASIC_AUTH_USER``/``BASIC_AUTH_PASS`` unless ``LABEL_AUDIT_INSECURE_NO_AUTH=1``.
"""

from backend.server.app import create_app

app = create_app()
