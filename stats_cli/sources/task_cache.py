"""On-disk cache of pulled Label Studio tasks, keyed by project and each task's version stamp.

A 50k-task project must report in minutes: a light listing (id and version fields only) tells which
tasks changed since the last run, and only those are fetched in full. The stamp combines
``updated_at`` with the annotation and prediction counts, because adding an annotation does not
always touch a task's ``updated_at``. The cache holds task payloads only, never tokens.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Mapping

from backend.api import defaults

STAMP_FIELDS = ("updated_at", "total_annotations", "cancelled_annotations", "total_predictions")


def cache_dir(home: str | Path = defaults.HOME) -> Path:
    """The cache folder under ``home`` (the settings' ``LABEL_AUDIT_HOME``, resolved by the command)."""
    return Path(home) / "report-cache"


def stamp_of(task: Mapping[str, Any]) -> str:
    """The version stamp of a listed task (changes when it or its annotations change)."""
    return "|".join(str(task.get(f)) for f in STAMP_FIELDS)


class TaskCache:
    """``(task id -> stamp, payload)`` for one Label Studio server and project, in a SQLite file.

    Parameters
    ----------
    url : str
        The server URL (hashed into the file name, so two servers never share entries).
    project : int or str
        Project id.
    root : Path, optional
        Folder of cache files (default :func:`cache_dir` of the default home; commands pass their settings').
    """

    def __init__(self, url: str, project: int | str, *, root: Path | None = None) -> None:
        if not url or str(project) == "":
            raise ValueError("a task cache needs a server URL and a project id")
        folder = root or cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        key = hashlib.sha256(url.rstrip("/").encode()).hexdigest()[:12]
        self.path = folder / f"{key}-project-{project}.sqlite"
        self._conn = sqlite3.connect(self.path)
        self._conn.execute("CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, stamp TEXT, payload TEXT)")

    def stamps(self) -> dict[str, str]:
        return dict(self._conn.execute("SELECT id, stamp FROM tasks"))

    def get_many(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        wanted = list(ids)
        out: dict[str, dict[str, Any]] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for tid, payload in self._conn.execute(f"SELECT id, payload FROM tasks WHERE id IN ({marks})", chunk):
                out[tid] = json.loads(payload)
        return out

    def put_many(self, tasks: Iterable[tuple[str, str, Mapping[str, Any]]]) -> None:
        """Store ``(id, stamp, payload)`` rows, replacing older versions."""
        rows = [(tid, stamp, json.dumps(payload, default=str)) for tid, stamp, payload in tasks]
        with self._conn:
            self._conn.executemany("INSERT OR REPLACE INTO tasks (id, stamp, payload) VALUES (?, ?, ?)", rows)

    def forget_except(self, keep: Iterable[str]) -> None:
        """Drop tasks deleted from the project since the last pull."""
        keep = set(keep)
        gone = [tid for tid in self.stamps() if tid not in keep]
        with self._conn:
            self._conn.executemany("DELETE FROM tasks WHERE id = ?", [(t,) for t in gone])

    def close(self) -> None:
        self._conn.close()
