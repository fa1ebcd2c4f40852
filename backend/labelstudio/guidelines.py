"""A project's labelling guidelines (Label Studio's ``expert_instruction``), read for the generic prompts.

Label Studio sends the label config with /setup and /predict but not the instructions; they come in
PROJECT_* webhooks and from the API. The backend asks the API when it has credentials
(``LABEL_STUDIO_URL``/``LABEL_STUDIO_API_KEY``, the same the workers use to import predictions); a
failure only means the guidelines already known are kept, so it is logged and never raised.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

#: Seconds to wait for Label Studio: /setup runs before every predict batch.
FETCH_TIMEOUT = 5.0


def fetch_guidelines(project: str, *, client: Any = None) -> str | None:
    """The project's ``expert_instruction`` ("" when empty), or None when it cannot be read."""
    if client is None:
        from backend.labelstudio.client import connect

        try:
            client = connect(timeout=FETCH_TIMEOUT)
        except ValueError:
            return None
    try:
        info = client.projects.get(id=int(project))
    except Exception as exc:  # LS down or no access: keep what is known
        log.warning("could not read the guidelines of project %s: %s", project, type(exc).__name__)
        return None
    return str(getattr(info, "expert_instruction", None) or "")
