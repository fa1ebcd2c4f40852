"""Label Studio failures as one safe line for the command line.

``str(ApiError)`` from the SDK carries the response headers (session cookies included), so no command may
print it: every CLI that talks to Label Studio reports errors through :func:`describe_error`.
"""

from __future__ import annotations
import httpx
from label_studio_sdk.core.api_error import ApiError


def client_errors() -> tuple[type[Exception], ...]:
    """Errors reported as one line instead of a traceback: bad input and Label Studio refusals/outages."""
    return (ValueError, ApiError, httpx.HTTPError)


def describe_error(exc: Exception) -> str:
    """The reason of an error; for Label Studio, its status and detail (never request or response headers)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        detail = body.get("validation_errors") or body.get("detail") or body
        return f"Label Studio answered {getattr(exc, 'status_code', '?')}: {detail}"
    if getattr(exc, "status_code", None) is not None:
        detail = " ".join(str(body or "").split())
        return f"Label Studio answered {exc.status_code}: {detail[:200]}".rstrip(": ")
    if not isinstance(exc, ValueError):
        return f"cannot reach Label Studio: {exc}"
    return str(exc)
