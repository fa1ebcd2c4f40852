"""A worker process's settings: resolved once, when the worker starts, and handed to every job it runs.

This is the worker's edge (as the CLI commands and the web app factory are the others): the one place a
worker reads its environment. ``label-audit worker`` hands over the settings it resolved
(:func:`use_settings`); a worker started by rq's own CLI (``rq worker -w
backend.worker.recovery.AuditWorker``) resolves them when its worker class is built, and a job run outside
any worker resolves them on first use. Jobs never carry settings: what a job may ask for is data only
(:mod:`backend.worker.safety`), and the model version it names is checked against these settings'.
"""

from __future__ import annotations

import threading

from backend.config.settings import Settings

__all__ = ["use_settings", "worker_settings"]

_LOCK = threading.Lock()
_SETTINGS: list[Settings] = []  # at most one: this process's


def use_settings(settings: Settings) -> None:
    """Make ``settings`` this worker process's settings (a forked work horse inherits them)."""
    with _LOCK:
        _SETTINGS[:] = [settings]


def worker_settings() -> Settings:
    """This process's settings, resolved from its environment the first time they are needed."""
    with _LOCK:
        if not _SETTINGS:
            _SETTINGS.append(Settings.from_env())
        return _SETTINGS[0]
