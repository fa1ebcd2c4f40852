"""HTTP basic auth for the ML backend (``BASIC_AUTH_USER`` / ``BASIC_AUTH_PASS``), checked once per request.

:func:`install` registers one ``before_request`` hook, so every route is covered, and the check runs
before Flask reads the body (an unauthenticated client cannot make the backend parse anything).

Label Studio sends the ML backend's credentials with /health, /setup, /predict and START_TRAINING, but
not on the webhook it creates itself for annotation events. A /webhook request that carries no
credentials at all is therefore answered ``200 {"status": "ignored"}`` without reading its body (this
backend acts on no annotation event), while wrong credentials get 401 like everywhere else. The
webhook that does work (TASKS_CREATED, PROJECT_UPDATED) is one you create in Label Studio with an
``Authorization: Basic ...`` header (Settings → Webhooks → headers).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field

from flask import Flask, Request, Response, jsonify, request


@dataclass(frozen=True)
class BasicAuth:
    """Credentials to require; ``None`` fields mean auth is off (only with ``--insecure-no-auth``)."""

    user: str | None = None
    password: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if (self.user is None) != (self.password is None):
            raise ValueError("set both BASIC_AUTH_USER and BASIC_AUTH_PASS, or neither")

    @classmethod
    def from_settings(cls, settings) -> "BasicAuth":
        return cls(settings.auth_user, settings.auth_password)

    @property
    def enabled(self) -> bool:
        return self.user is not None

    def allows(self, req: Request) -> bool:
        """True when auth is off or the request carries the right credentials (constant-time compare)."""
        if not self.enabled:
            return True
        given = req.authorization
        if given is None or given.type != "basic":
            return False
        user_ok = hmac.compare_digest((given.username or "").encode(), (self.user or "").encode())
        pass_ok = hmac.compare_digest((given.password or "").encode(), (self.password or "").encode())
        return user_ok and pass_ok

    def __repr__(self) -> str:  # never print the password
        return f"BasicAuth(enabled={self.enabled})"


def denied() -> Response:
    resp = jsonify({"error": "authentication required"})
    resp.status_code = 401
    resp.headers["WWW-Authenticate"] = 'Basic realm="label-audit"'
    return resp


def install(app: Flask, auth: BasicAuth) -> None:
    """Check ``auth`` before every request, ahead of any body parsing."""

    @app.before_request
    def _check() -> Response | None:
        if auth.allows(request):
            return None
        if request.path == "/webhook" and request.authorization is None:
            return jsonify({"status": "ignored", "note": "unauthenticated webhook: nothing done"})
        return denied()
