"""The environment that points every other command at the running demo (``label-audit demo --env``).

After the demo, ``label-audit review status``, ``audit-stats report`` or ``label-audit audit`` need the source
Label Studio's URL and token, the demo's ledger, its Redis and queue, and the map of the experts' own
instances; without them each command looks at ``.label-audit/`` and the default ports, not at the demo. They
are all in the demo's home: ports, queue and project ids in ``state.json``, tokens in the 0600
``secrets.json``, the expert map in the 0600 ``expert-instances.json``. Nothing is generated here: a secret
comes only from those files, and a file another user could read is refused rather than used.
"""

from __future__ import annotations

import json
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

from backend.demo.home import RECONCILE_INSTANCE, DemoHome, load_state
from backend.labelstudio.expert_instances import EXPERT_INSTANCES_ENV
from backend.labelstudio.instances import REVIEW_KEY_ENV, REVIEW_URL_ENV

START = "label-audit demo --labelstudio"


def _private_json(path: Path) -> dict[str, Any]:
    """A secrets file of the demo, only when no one but its owner can read it."""
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ValueError(f"{path} is readable by other users (mode {stat.S_IMODE(mode):o}); "
                         f"run chmod 600 {path} first")
    return json.loads(path.read_text(encoding="utf-8"))


def _local(port: int) -> str:
    return f"http://127.0.0.1:{int(port)}"  # every demo service listens on loopback


def demo_environment(home: DemoHome) -> dict[str, str]:
    """The variables a command needs to work on the demo in ``home``, by name.

    Raises
    ------
    ValueError
        When ``home`` holds no demo (never started there) or a secrets file is readable by others.
    """
    state = load_state(home)
    secrets_path = home.root / "secrets.json"
    if not state.get("ports") or not state.get("queue") or not secrets_path.exists():
        raise ValueError(f"no demo in {home.root}: start it first with {START}")
    keys = _private_json(secrets_path)
    ports = state["ports"]
    env = {
        "LABEL_AUDIT_HOME": str(home.root.parent),  # `label-audit demo --stop` then finds this demo too
        "LABEL_STUDIO_URL": _local(ports["source"]),
        "LABEL_STUDIO_API_KEY": keys["source"]["token"],
        "DATABASE_URL": home.database_url,
        "REDIS_URL": f"redis://127.0.0.1:{int(ports['redis'])}/0",
        "LABEL_AUDIT_QUEUE": state["queue"],
    }
    experts = home.root / "expert-instances.json"
    if experts.exists():
        _private_json(experts)  # the same check: it holds each instance's admin token
        env[EXPERT_INSTANCES_ENV] = str(experts)
    if home.ls_data(RECONCILE_INSTANCE).exists() and RECONCILE_INSTANCE in ports:
        # Round 2 was reconciled on the demo's shared review instance: the review commands read it there.
        env[REVIEW_URL_ENV] = _local(ports[RECONCILE_INSTANCE])
        env[REVIEW_KEY_ENV] = keys[RECONCILE_INSTANCE]["token"]
    return env


def export_lines(env: dict[str, str]) -> str:
    """``export NAME=value`` lines, each value shell-quoted, for ``eval "$(label-audit demo --env)"``."""
    return "".join(f"export {name}={shlex.quote(value)}\n" for name, value in env.items())


def commands_folder() -> Path | None:
    """The folder holding this install's ``label-audit`` and ``audit-stats`` (the venv's ``bin``), if they are there.

    The interpreter's own folder, not resolved: a venv's ``python`` is a link to the system one.
    """
    folder = Path(sys.executable).parent
    return folder if (folder / "label-audit").is_file() else None


def command(name: str = "label-audit") -> str:
    """How to type one of our commands so that it runs in any shell: its absolute path when known."""
    folder = commands_folder()
    return shlex.quote(str(folder / name)) if folder is not None else name


def path_line() -> str:
    """``export PATH=<venv bin>:"$PATH"``: a shell that never activated the venv then finds our commands
    (empty when the commands' folder is unknown, e.g. run from a checkout with ``python -m``)."""
    folder = commands_folder()
    return "" if folder is None else f'export PATH={shlex.quote(str(folder))}:"$PATH"\n'
