"""Real Label Studio 1.23.2 servers for the whole test session.

``label_studio`` starts it once (first start ≈ 45 s of migrations), shares it with every test and stops
it at session end; ``review_ls`` is a second one, for the blind review's own instance. Tests isolate themselves by creating their own projects and users (emails made
unique with ``unique_email``). Locally a missing Label Studio skips its tests; under CI it fails them.

``LABEL_AUDIT_TEST_LS_DB=postgresql`` runs the session's Label Studio on a fresh PostgreSQL database
instead of SQLite (``start_label_studio(..., postgres=...)`` is also usable directly).
"""

from __future__ import annotations

import os
import secrets
import tempfile
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import pytest

from backend.labelstudio.client import create_project, ensure_user, import_tasks
from backend.labelstudio.local import LocalLabelStudio, PostgresSettings, find_label_studio_bin
from backend.labelstudio.signup import invite_user
from tests.support.services import PG_ADMIN_URL, free_port, missing_service, port_open


@dataclass(frozen=True)
class LSUser:
    """A Label Studio user a test can act as (``client`` authenticates with their own token)."""

    id: int
    email: str
    token: str = field(repr=False)
    client: Any = field(repr=False)


@dataclass
class LabelStudioServer:
    """The running server: ``url``, admin ``token`` (never print it), SDK ``client``, ``org_id``."""

    url: str
    token: str = field(repr=False)
    client: Any = field(repr=False)
    org_id: int
    log_path: Path
    process: LocalLabelStudio = field(repr=False)
    _users: dict[str, LSUser] = field(default_factory=dict, repr=False)

    def create_project(
        self,
        label_config: str,
        tasks: Sequence[Mapping[str, Any]] = (),
        *,
        title: str | None = None,
        **settings: Any,
    ) -> tuple[int, list[int]]:
        """A new project with ``tasks`` bulk-imported: (project id, task ids in order)."""
        project_id = create_project(
            self.client, title=title or f"test {uuid.uuid4().hex[:8]}", label_config=label_config, **settings
        )
        ids = import_tasks(self.client, project_id, list(tasks)) if tasks else []
        return project_id, ids

    def ensure_user(self, email: str) -> int:
        """An org member without a password (what ``review push`` creates): their id."""
        return ensure_user(self.client, email, org_id=self.org_id)

    def create_user(self, email: str | None = None) -> LSUser:
        """An org member with a working API token (signed up like a real expert would).

        The API can neither set a password nor read another user's token, so users made with
        ``users.create`` cannot act themselves; sign-up gives both (through a one-use invite link: sign-up
        is closed on every instance the tool starts). Asking again for an email this session already
        signed up returns the same user.
        """
        from label_studio_sdk import LabelStudio

        email = (email or unique_email("user")).lower()
        if email in self._users:
            return self._users[email]
        token = invite_user(self.client, email, secrets.token_urlsafe(16))
        client = LabelStudio(base_url=self.url, api_key=token)
        me = client.users.whoami()
        if me.active_organization != self.org_id:
            self.client.users.update(me.id, active_organization=self.org_id)
        self._users[email] = LSUser(id=int(me.id), email=email, token=token, client=client)
        return self._users[email]


def login_session(url: str, email: str, password: str) -> Any | None:
    """An ``httpx.Client`` logged in through Label Studio's login form (as a browser would), or None
    when the form refuses the email/password. The caller closes it."""
    import httpx

    session = httpx.Client(base_url=url, timeout=30.0)
    session.get("/user/login/")
    resp = session.post(
        "/user/login/",
        data={"email": email, "password": password, "csrfmiddlewaretoken": session.cookies.get("csrftoken", "")},
        headers={"Referer": f"{url}/user/login/"},
    )
    if resp.status_code != 302:
        session.close()
        return None
    return session


def unique_email(prefix: str) -> str:
    """An email no other test of the session uses (the server is shared)."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}@label-audit.test"


def start_label_studio(data_dir: Path, *, postgres: PostgresSettings | None = None) -> LabelStudioServer:
    """Start a Label Studio in ``data_dir`` on a free port; raise RuntimeError (with the log path) on failure."""
    from label_studio_sdk import LabelStudio

    binary = find_label_studio_bin(os.environ.get("LABEL_STUDIO_BIN"))
    if binary is None:
        raise FileNotFoundError("label-studio executable not found (set LABEL_STUDIO_BIN)")
    proc = LocalLabelStudio(binary=binary, data_dir=data_dir, port=free_port(), postgres=postgres)
    proc.start()
    try:
        client = LabelStudio(base_url=proc.url, api_key=proc.token, timeout=120)
        org_id = int(client.users.whoami().active_organization)
    except Exception:
        proc.stop()
        raise
    return LabelStudioServer(
        url=proc.url, token=proc.token, client=client, org_id=org_id, log_path=proc.log_path, process=proc
    )


def create_pg_database() -> tuple[PostgresSettings, str]:
    """A fresh PostgreSQL database for Label Studio's own tables: (settings, name)."""
    import psycopg

    name = f"la_ls_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return PostgresSettings(name=name), name


def drop_pg_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def _session_server(name: str) -> Iterator[LabelStudioServer]:
    """A Label Studio for the session (SQLite; PostgreSQL with ``LABEL_AUDIT_TEST_LS_DB=postgresql``)."""
    if find_label_studio_bin(os.environ.get("LABEL_STUDIO_BIN")) is None:
        missing_service("Label Studio 1.23.2 (LABEL_STUDIO_BIN or ~/.cache/label-audit/ls-venv-1.23.2)")
    pg_name = None
    postgres = None
    if os.environ.get("LABEL_AUDIT_TEST_LS_DB", "sqlite").lower() in ("postgresql", "postgres"):
        if not port_open("127.0.0.1", 5432):
            missing_service("PostgreSQL at 127.0.0.1:5432 (LABEL_AUDIT_TEST_LS_DB=postgresql)")
        postgres, pg_name = create_pg_database()
    with tempfile.TemporaryDirectory(prefix=f"la-{name}-") as tmp:
        data_dir = Path(tmp) / "data"
        try:
            server = start_label_studio(data_dir, postgres=postgres)
        except RuntimeError as exc:
            _keep_log(data_dir, name)
            pytest.fail(f"Label Studio ({name}) did not start: {exc}")
        try:
            yield server
        finally:
            server.process.stop()
            _keep_log(data_dir, name)
            if pg_name:
                drop_pg_database(pg_name)


@pytest.fixture(scope="session")
def label_studio() -> Iterator[LabelStudioServer]:
    """The session's Label Studio: the source instance (projects, items, original labels, predictions)."""
    with _session_server("ls") as server:
        yield server


@pytest.fixture(scope="session")
def review_ls() -> Iterator[LabelStudioServer]:
    """A second Label Studio for the blind review: holds no source data; the experts' accounts live here."""
    with _session_server("review-ls") as server:
        yield server


def _keep_log(data_dir: Path, name: str = "ls") -> None:
    """Copy the server log out of the temp dir so a failure can be read after the session."""
    log = data_dir / "label-studio.log"
    if log.is_file():
        kept = Path(tempfile.gettempdir()) / f"label-audit-{name}-{os.getpid()}.log"
        kept.write_bytes(log.read_bytes())
        print(f"\nLabel Studio log: {kept}")
