"""HTTP failures of API providers as ``ProviderError``s the engine can count and retry, minus secrets.

OpenAI-protocol servers and Gemini fail the same ways (429, 5xx, 401/403, other 4xx); one mapping
keeps the reason codes identical across providers. ``Retry-After`` parsing lives here because the
engine's backoff honours it whichever SDK raised.
"""

from __future__ import annotations

import email.utils
import re
import time
from typing import Any, Iterable, Mapping

from backend.providers.base import ProviderError

# Key shapes we scrub even when we do not hold the key (a server may echo a masked or other key).
_KEY_PATTERNS = (
    re.compile(r"sk-[A-Za-z0-9_\-*]{2,}"),
    re.compile(r"AIza[0-9A-Za-z_\-]{4,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-~+/=]{4,}"),
    # secrets in URL query strings: ?key=..., &api_key=..., ?token=..., ?access_token=..., ?password=...
    re.compile(r"(?i)([?&;](?:[a-z_\-]*key|[a-z_\-]*token|secret|password|sig|signature)=)[^&\s#\"']+"),
)
#: Longest error text kept (after redaction).
MAX_DETAIL = 300


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret and anything shaped like an API key replaced by ``***``.

    ``secrets`` are exact values (the settings' configured keys and tokens, the provider's key); run
    this on the whole text, before any cut, so no secret straddles the cut unseen.
    """
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "***")
    for pattern in _KEY_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + "***", text)
    return text


def shorten(text: str, limit: int = MAX_DETAIL) -> str:
    """Cut already-redacted ``text`` to ``limit`` characters."""
    return text if len(text) <= limit else text[:limit] + "..."


def parse_retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date).

    Returns None when neither header is present or parseable; never negative.
    """
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    ms = lowered.get("retry-after-ms")
    if ms is not None:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def error_for_status(status: int, message: str, *, retry_after: float | None = None) -> ProviderError:
    """The ``ProviderError`` for an HTTP status: 429/408/5xx retryable, 401/403 ``auth``, else ``bad_request``."""
    if status == 429:
        return ProviderError("rate_limited", message, retryable=True, retry_after=retry_after)
    if status == 408:
        return ProviderError("timeout", message, retryable=True, retry_after=retry_after)
    if status >= 500:
        return ProviderError("server_error", message, retryable=True, retry_after=retry_after)
    if status in (401, 403):
        return ProviderError("auth", message, retryable=False)
    return ProviderError("bad_request", message, retryable=False)


def timeout_error(provider: str, where: str) -> ProviderError:
    """A request to ``where`` (a public URL) that ran out of time: retryable, like a dropped connection."""
    return ProviderError("timeout", redact(f"{provider} request to {where} timed out"), retryable=True)


def connection_error(where: str, exc: BaseException, secrets: Iterable[str] = ()) -> ProviderError:
    """No connection to ``where``: retryable; the transport's text is kept, minus secrets."""
    return ProviderError("connection", redact(f"cannot connect to {where}: {exc}", secrets), retryable=True)


def status_message(provider: str, status: int, detail: Any, secrets: Iterable[str] = ()) -> str:
    """A short, secret-free message for a failed HTTP call: redacted first, then cut."""
    text = redact(" ".join(str(detail).split()), secrets)
    return redact(f"{provider} HTTP {status}: {shorten(text)}", secrets)
