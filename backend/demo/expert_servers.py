"""One local Label Studio per expert, started and stopped by ``label-audit review instances``.

For a lead who runs the review on this machine without the demo: each expert gets an instance of
their own (open-source Label Studio shows every project of an organization to every member, see
:mod:`backend.labelstudio.expert_instances`), with sign-up closed (``DISABLE_SIGNUP_WITHOUT_LINK``, set
by :class:`backend.labelstudio.local.LocalLabelStudio`). The expert is signed up through a one-use invite
link with a generated password, and the expert -> URL/token map that ``review push`` reads
(``LABEL_AUDIT_EXPERT_INSTANCES``) is written. The processes are run and recorded like the demo's
(:mod:`backend.demo.processes`: pid and start time, so ``stop`` signals nothing else).

Everything lives in ``<home>/review-instances/`` (home: ``--home``, ``$LABEL_AUDIT_HOME`` or
``.label-audit``)::

    secrets.json            0600: per expert the admin password and token, SECRET_KEY, the expert's password
    expert-instances.json   0600: expert -> {url, token} (what review push reads)
    state.json              each expert's port and data folder name
    pids/ logs/ ls-<n>/     processes, their output, each instance's database
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from backend.common import defaults
from backend.common.private_files import private_dir, write_private_json
from backend.demo.processes import ProcessTable
from backend.labelstudio.local import LocalLabelStudio
from backend.demo import services
from backend.demo.project import ensure_expert
from backend.labelstudio.client import connect, find_user
from backend.labelstudio.signup import signup_open

ADMIN = "admin@label-audit.local"
FOLDER = "review-instances"
DEFAULT_PORT = defaults.EXPERT_PORT
_EMAIL = re.compile(r"^[^@\s,]+@[^@\s,]+$")


@dataclass(frozen=True)
class ExpertServer:
    """One expert's instance as this machine knows it (``running``: its recorded process is alive)."""

    expert: str
    url: str
    running: bool
    signup_closed: bool | None = None  # None: not checked (not running)


@dataclass(frozen=True)
class StartedExpert:
    """What ``start`` tells the lead about one expert: where, and how the expert logs in."""

    expert: str
    url: str
    password: str | None  # set only when the account was created now: shown once, kept in secrets.json


class ExpertServers:
    """The folder holding the experts' local instances (see the module docstring)."""

    def __init__(self, home: str | Path | None = None, *, label_studio_bin: str | None = None) -> None:
        """``home``: ``--home``, else the settings' ``LABEL_AUDIT_HOME`` (the command resolves it; None: the
        default home); ``label_studio_bin``: the settings' ``LABEL_STUDIO_BIN``."""
        base = Path(home or defaults.HOME)
        self.root = base.expanduser().resolve() / FOLDER
        self.label_studio_bin = label_studio_bin

    @property
    def map_path(self) -> Path:
        return self.root / "expert-instances.json"

    @property
    def secrets_path(self) -> Path:
        return self.root / "secrets.json"

    def _read(self, name: str) -> dict[str, Any]:
        try:
            return json.loads((self.root / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}

    def _table(self):
        return ProcessTable(self.root / "pids")

    def _server(self, expert: str, keys: dict[str, Any], state: dict[str, Any], binary: Path):
        mine, where = keys[expert], state[expert]
        return LocalLabelStudio(binary=binary, data_dir=self.root / where["folder"], port=int(where["port"]),
                                username=ADMIN, password=mine["password"], token=mine["token"],
                                secret_key=mine["secret_key"])

    def start(self, experts: Sequence[str], *, first_port: int = DEFAULT_PORT,
              say: Callable[[str], None] = lambda _text: None) -> list[StartedExpert]:
        """Start (or find running) each expert's instance, sign the expert up, write the map; in order."""
        emails = check_experts(experts)
        private_dir(self.root)
        keys, state = self._read("secrets.json"), self._read("state.json")
        for email in emails:
            keys.setdefault(email, {"password": secrets.token_urlsafe(12), "token": secrets.token_hex(20),
                                    "secret_key": secrets.token_urlsafe(40)})
            if email not in state:
                taken = {int(s["port"]) for s in state.values()}
                port = services.first_free_port(max([first_port - 1, *taken]) + 1)
                while port in taken:
                    port = services.first_free_port(port + 1)
                state[email] = {"port": port, "folder": f"ls-{len(state) + 1}"}
        write_private_json(self.secrets_path, keys)
        write_private_json(self.root / "state.json", state)
        binary = services.label_studio_binary(say=say, configured=self.label_studio_bin)
        servers = {email: self._server(email, keys, state, binary) for email in emails}
        services.ensure_label_studios(self._table(), {_name(e): s for e, s in servers.items()}, say=say)
        started = []
        for email, server in servers.items():
            client = connect(server.url, server.token)
            new = find_user(client, email) is None
            if new:
                keys[email]["expert_password"] = secrets.token_urlsafe(12)
                write_private_json(self.secrets_path, keys)
            ensure_expert(client, email, keys[email].get("expert_password", ""))
            started.append(StartedExpert(email, server.url, keys[email]["expert_password"] if new else None))
        self.write_map(keys, state)
        return started

    def write_map(self, keys: dict[str, Any], state: dict[str, Any]) -> Path:
        """The expert -> {url, token} file ``review push`` reads (0600: it holds admin tokens)."""
        return write_private_json(self.map_path, {
            email: {"url": f"http://127.0.0.1:{int(where['port'])}", "token": keys[email]["token"]}
            for email, where in state.items()})

    def status(self, *, check_signup: bool = True) -> list[ExpertServer]:
        """Every expert this folder knows, with whether their instance runs (and refuses sign-up)."""
        table, out = self._table(), []
        for email, where in self._read("state.json").items():
            url = f"http://127.0.0.1:{int(where['port'])}"
            running = table.get(f"labelstudio-{_name(email)}") is not None
            closed = None
            if running and check_signup:
                try:
                    closed = not signup_open(url)
                except (ValueError, OSError):
                    closed = None
            out.append(ExpertServer(email, url, running, closed))
        return out

    def stop(self) -> list[str]:
        """Stop every instance this folder started; the experts whose instance was running."""
        table = self._table()
        return [email for email in self._read("state.json") if table.stop(f"labelstudio-{_name(email)}")]


def _name(email: str) -> str:
    """An expert's instance name in the process table (recorded as ``labelstudio-<name>``)."""
    return re.sub(r"[^a-z0-9]+", "-", email.lower()).strip("-")


def check_experts(experts: Sequence[str]) -> list[str]:
    """Normalised, distinct expert emails (ValueError naming a bad one)."""
    emails = list(dict.fromkeys(e.strip().lower() for e in experts if e.strip()))
    if not emails:
        raise ValueError("give at least one expert email (--experts a@example.org,b@example.org)")
    bad = [e for e in emails if not _EMAIL.match(e)]
    if bad:
        raise ValueError(f"not an email: {', '.join(bad)}")
    return emails
