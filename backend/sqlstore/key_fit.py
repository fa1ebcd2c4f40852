"""A key that fits its column: a longer one keeps its start and ends in a hash of the whole.

Member ids are qualified with what they answered (``judge#control``, ``judge#label``); a control name or
label near the column's width then makes a key wider than the column, and PostgreSQL refuses the row and
with it the whole batch (SQLite stores it anyway). The full id stays in the row's JSON; the key column
only needs to be unique and the same for the same id on every write, which the hash keeps.
"""

from __future__ import annotations

import hashlib

from backend.common.defaults import STORE_COLUMN_CHARS

__all__ = ["fit_key"]

HASH_CHARS = 16  # 64 bits of SHA-256: two distinct long ids of one item sharing a key is not a practical risk


def fit_key(value: str, *, width: int = STORE_COLUMN_CHARS) -> str:
    """``value`` itself when it fits ``width`` characters, else its start, ``~`` and a hash of the whole."""
    if width <= HASH_CHARS + 1:
        raise ValueError(f"width must exceed {HASH_CHARS + 1}, got {width}")
    if len(value) <= width:
        return value
    digest = hashlib.sha256(value.encode("utf-8")).hexdigest()[:HASH_CHARS]
    return f"{value[:width - HASH_CHARS - 1]}~{digest}"
