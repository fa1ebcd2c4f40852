"""One skipped input row, kept with its line number so one bad line never spoils a file.

It lives with the statistics because building a table (:mod:`stats_cli.stats.ratings`) reports the rows it
skips the same way as reading a file (:mod:`stats_cli.sources.rows`) does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["RowError"]


@dataclass(frozen=True)
class RowError:
    """One skipped input row: 1-based ``line`` in the file (0 when not tied to a line)."""

    line: int
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message}

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message
