"""Where the real instruct judge (Qwen2.5-Coder-1.5B-Instruct, GGUF) is, for opt-in tests and the bench.

It is never part of the default install: ``LABEL_AUDIT_QWEN_GGUF`` names its file, else the local
provider's alias for it is tried (present once the opt-in install has assembled it). Plain Python,
so bench scripts import it without pytest.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "LABEL_AUDIT_QWEN_GGUF"
ALIAS = "qwen2.5-coder-1.5b"


def real_judge_path() -> tuple[Path | None, str]:
    """``(path, "")`` of the real judge's GGUF, or ``(None, why it is not there)``."""
    named = os.environ.get(ENV, "").strip()
    if named:
        path = Path(named).expanduser()
        return (path, "") if path.is_file() else (None, f"{ENV} names {path}, which is not a file")
    from backend.providers.local_gguf import resolve_model_path

    try:
        return resolve_model_path(ALIAS), ""
    except (ValueError, FileNotFoundError):
        return None, f"the real judge is not installed: set {ENV} to its GGUF file (or run the opt-in install)"
