"""Where the demo keeps everything: ``<home>/demo/`` (home defaults to ``$LABEL_AUDIT_HOME`` or ``.label-audit``).

::

    demo/secrets.json      0600: Label Studio tokens, admin and expert passwords, backend auth, SECRET_KEYs
    demo/state.json        ports, queue name, project ids (what a second run reuses)
    demo/pids/*.json       the background processes (see backend.demo.processes)
    demo/logs/*.log        their output
    demo/labelstudio/      the source Label Studio's SQLite database and media
    demo/labelstudio-expert-a/, -expert-b/  each expert's own review instance (docs/experts.md)
    demo/expert-instances.json  0600: expert -> their instance's URL and admin token (for `review push`)
    demo/audit.sqlite      the audit ledger and review store
    demo/report.html       the report

Secrets are generated once per machine (``secrets`` module) and written with mode 0600 before any
content reaches the file; nothing here prints them.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.common import defaults
from backend.common.private_files import write_private_json

EXPERTS = ("expert-a@label-audit.demo", "expert-b@label-audit.demo")
# One review instance per expert (an open-source Label Studio shows every project to every member).
EXPERT_INSTANCES = {"expert-a": EXPERTS[0], "expert-b": EXPERTS[1]}
RECONCILE_INSTANCE = "reconcile"  # the shared review instance of round 2 (started only when needed)
INSTANCES = ("source", *EXPERT_INSTANCES, RECONCILE_INSTANCE)
ADMIN = "admin@label-audit.demo"
BACKEND_USER = "label-studio"


@dataclass(frozen=True)
class DemoHome:
    """The demo's folder and the files in it."""

    root: Path
    label_studio_bin: str | None = None  # the settings' LABEL_STUDIO_BIN (None: the cached venvs)

    @classmethod
    def at(cls, home: str | Path | None, *, label_studio_bin: str | None = None) -> "DemoHome":
        """The demo folder under ``home`` (``--home``, else the settings' ``LABEL_AUDIT_HOME``, resolved by
        the command; None: the default home)."""
        base = Path(home or defaults.HOME)
        return cls(base.expanduser().resolve() / "demo", label_studio_bin)

    @property
    def pids(self) -> Path:
        return self.root / "pids"

    def log(self, name: str) -> Path:
        return self.root / "logs" / f"{name}.log"

    def ls_data(self, instance: str) -> Path:
        return self.root / ("labelstudio" if instance == "source" else f"labelstudio-{instance}")

    @property
    def database_url(self) -> str:
        return f"sqlite:///{self.root / 'audit.sqlite'}"

    @property
    def report(self) -> Path:
        return self.root / "report.html"

    @property
    def redis_dir(self) -> Path:
        return self.root / "redis"


def _write_private(path: Path, data: dict[str, Any]) -> None:
    """Write JSON readable by the owner only (mode set at creation)."""
    write_private_json(path, data)


def _instance_secrets() -> dict[str, str]:
    return {"password": secrets.token_urlsafe(12), "token": secrets.token_hex(20),
            "secret_key": secrets.token_urlsafe(40)}


def _new_secrets() -> dict[str, Any]:
    return {
        **{name: _instance_secrets() for name in INSTANCES},
        "backend": {"user": BACKEND_USER, "password": secrets.token_urlsafe(18)},
        "experts": {email: secrets.token_urlsafe(9) for email in EXPERTS},
    }


def load_secrets(home: DemoHome) -> dict[str, Any]:
    """This machine's demo secrets, created on first use (0600; an unreadable file is an error, not replaced).

    A file from an older demo gains the secrets of the instances it lacks (one per expert, reconciliation)."""
    path = home.root / "secrets.json"
    if path.exists():
        os.chmod(path, 0o600)
        data = json.loads(path.read_text(encoding="utf-8"))
        missing = [name for name in INSTANCES if name not in data]
        if missing:
            data.update({name: _instance_secrets() for name in missing})
            _write_private(path, data)
        return data
    data = _new_secrets()
    _write_private(path, data)
    return data


def save_reconcile_logins(home: DemoHome, keys: dict[str, Any], passwords: dict[str, str]) -> dict[str, str]:
    """Keep the passwords ``review reconcile`` gave the experts on the shared instance; all known ones.

    They are printed once by the command; the demo keeps them with its other secrets so every run can
    show the logins again."""
    logins = keys.setdefault("reconcile_logins", {})
    if passwords:
        logins.update(passwords)
        _write_private(home.root / "secrets.json", keys)
    return dict(logins)


def write_expert_instances(home: DemoHome, urls: dict[str, str], keys: dict[str, Any]) -> Path:
    """The expert -> own instance map `review push` reads (LABEL_AUDIT_EXPERT_INSTANCES), 0600: it holds tokens."""
    path = home.root / "expert-instances.json"
    _write_private(path, {email: {"url": urls[name], "token": keys[name]["token"]}
                          for name, email in EXPERT_INSTANCES.items()})
    return path


def load_state(home: DemoHome) -> dict[str, Any]:
    """What earlier runs recorded (ports, queue, project ids); empty on the first run."""
    path = home.root / "state.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def save_state(home: DemoHome, state: dict[str, Any]) -> None:
    """Record ports, ids and the queue so a second run reuses them (no secret goes in here)."""
    _write_private(home.root / "state.json", state)
