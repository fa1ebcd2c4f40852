"""A project's labelling guidelines (Label Studio's ``expert_instruction``), read for the generic prompts.

Label Studio sends the label config with /setup and /predict but not the instructions; they come in
PROJECT_* webhooks and from the API. The backend asks the API when it has credentials
(``LABEL_STUDIO_URL``/``LABEL_STUDIO_API_KEY``, the same the workers use to import predictions); a
failure only means the guidelines already known are kept, so it is logged and never raised.

Label Studio gives /setup about 3 s (``ML_TIMEOUT_SETUP``) and calls it before every predict batch, so
the read is bounded: one try (the SDK's default retries with backoff took 2.9-5.3 s against a Label
Studio that was down or hung), :data:`FETCH_TIMEOUT` seconds, and an answer (or a failure) is reused
for :data:`CACHE_SECONDS` seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any
from backend.labelstudio.client import connect

log = logging.getLogger(__name__)

#: Seconds to wait for Label Studio, well inside the 3 s it gives /setup.
FETCH_TIMEOUT = 1.0
#: Seconds an answer (or a failure) is reused; PROJECT_UPDATED webhooks bring changes sooner.
CACHE_SECONDS = 60.0
_cache: dict[str, tuple[float, str | None]] = {}
_lock = threading.Lock()


def fetch_guidelines(project: str, *, client: Any = None, settings: Any = None, cache: bool = True) -> str | None:
    """The project's ``expert_instruction`` ("" when empty), or None when it cannot be read.

    Read through ``client``, else a client of the ``settings``' Label Studio (URL and token).
    """
    key = str(project)
    if cache:
        with _lock:
            hit = _cache.get(key)
        if hit is not None and time.monotonic() - hit[0] < CACHE_SECONDS:
            return hit[1]
    found = _read(key, client, settings)
    if cache:
        with _lock:
            _cache[key] = (time.monotonic(), found)
    return found


def forget_guidelines(project: str) -> None:
    """Drop the cached answer (a PROJECT_UPDATED webhook brought newer guidelines)."""
    with _lock:
        _cache.pop(str(project), None)


def _read(project: str, client: Any, settings: Any) -> str | None:
    if client is None:
        if settings is None:
            return None
        try:
            client = connect(settings.label_studio_url, settings.label_studio_token, timeout=FETCH_TIMEOUT)
        except ValueError:
            return None
    try:
        info = client.projects.get(id=int(project),
                                   request_options={"max_retries": 0, "timeout": FETCH_TIMEOUT})
    except Exception as exc:  # LS down or no access: keep what is known
        log.warning("could not read the guidelines of project %s: %s", project, type(exc).__name__)
        return None
    return str(getattr(info, "expert_instruction", None) or "")
