"""Optional HTTP basic auth for the ML backend (``BASIC_AUTH_USER`` / ``BASIC_AUTH_PASS``).

Label Studio sends the credentials configured on the ML backend with /health, /setup, /predict and
START_TRAINING, but not on the webhook it creates itself for annotation events. So /webhook accepts
unauthenticated annotation events (which this backend ignores) while every action that makes it
work (TASKS_CREATED, PROJECT_UPDATED) must authenticate: give the webhook you create in Label Studio
an ``Authorization: Basic ...`` header.
"""

from __future__ import annotations

import hmac
import os
from dataclasses import dataclass

from flask import Request


@dataclass(frozen=True)
class BasicAuth:
    """Credentials to require; ``None`` fields mean auth is off."""

    user: str | None = None
    password: str | None = None

    def __post_init__(self) -> None:
        if (self.user is None) != (self.password is None):
            raise ValueError("set both BASIC_AUTH_USER and BASIC_AUTH_PASS, or neither")

    @classmethod
    def from_env(cls) -> "BasicAuth":
        return cls(os.environ.get("BASIC_AUTH_USER") or None, os.environ.get("BASIC_AUTH_PASS") or None)

    @property
    def enabled(self) -> bool:
        return self.user is not None

    def allows(self, request: Request) -> bool:
        """True when auth is off or the request carries the right credentials (constant-time compare)."""
        if not self.enabled:
            return True
        given = request.authorization
        if given is None or given.type != "basic":
            return False
        user_ok = hmac.compare_digest((given.username or "").encode(), (self.user or "").encode())
        pass_ok = hmac.compare_digest((given.password or "").encode(), (self.password or "").encode())
        return user_ok and pass_ok

    def __repr__(self) -> str:  # never print the password
        return f"BasicAuth(enabled={self.enabled})"
