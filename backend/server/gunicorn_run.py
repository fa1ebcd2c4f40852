"""Run the ML backend under gunicorn from ``label-audit serve`` (never Werkzeug's development server).

gunicorn is embedded through its documented custom-application API (``gunicorn.app.base.BaseApplication``)
so ``serve`` keeps its own options and the settings it already checked; each gunicorn worker builds
its app after the fork (no SQL or Redis connection crosses a fork).
"""

from __future__ import annotations

import os
from typing import Any, Callable

from flask import Flask
from gunicorn.app.base import BaseApplication

from backend.common.environment import env_value
from backend.common.private_files import runtime_dir


class _Embedded(BaseApplication):
    def __init__(self, factory: Callable[[], Flask], options: dict[str, Any]) -> None:
        self.factory = factory
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Flask:
        return self.factory()


def run(factory: Callable[[], Flask], *, host: str, port: int, workers: int = 1, threads: int = 8,
        timeout: int = 60) -> None:
    """Serve ``factory()`` on ``host:port`` until stopped (SIGTERM/SIGINT: graceful shutdown).

    The timeout stays well under Label Studio's 100 s ``ML_TIMEOUT_PREDICT``; /predict only reads the
    ledger, so a few threads serve Label Studio comfortably. Each instance gets its own control socket
    (:func:`control_socket`): gunicorn's default is one path per user, so a second backend on the
    machine took over (or removed) the first one's.
    """
    _Embedded(factory, {
        "bind": f"{host}:{port}", "workers": workers, "threads": threads, "timeout": timeout,
        "worker_class": "gthread", "accesslog": None, "errorlog": "-", "loglevel": "info",
        "control_socket": control_socket(port),
    }).run()


def control_socket(port: int) -> str:
    """This instance's gunicorn control socket: a 0700 runtime folder, named by port and pid."""
    return str(runtime_dir(env_value("XDG_RUNTIME_DIR")) / f"gunicorn-{port}-{os.getpid()}.ctl")
