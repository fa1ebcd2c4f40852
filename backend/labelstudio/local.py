"""Run a private Label Studio 1.23.2 on loopback: for the tests, the benches and local trials.

Label Studio lives in its own virtualenv (its pins would fight ours), so it is driven as a subprocess:
``label-studio start`` headless, bound to 127.0.0.1, with an admin whose API token we choose, so no
browser step is ever needed. A busy port makes Label Studio silently pick another one, so readiness is
checked on the port we asked for *with our token*: another server answering there cannot pass.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import httpx

from backend.common import defaults
from backend.common.environment import environment
from backend.common.private_files import PRIVATE_UMASK, private_dir, private_file
from backend.labelstudio.db_template import seed_database

DEFAULT_BIN = Path(defaults.LABEL_STUDIO_BIN).expanduser()
# Older machine images installed the same version under an unversioned folder.
FALLBACK_BINS = (Path.home() / ".cache" / "label-audit" / "ls-venv" / "bin" / "label-studio",)


def find_label_studio_bin(configured: str | Path | None = None) -> Path | None:
    """``configured`` (the settings' ``LABEL_STUDIO_BIN``) when given (even if missing: then None), else the
    cached venvs."""
    if configured:
        return Path(configured) if Path(configured).is_file() else None
    for candidate in (DEFAULT_BIN, *FALLBACK_BINS):
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class PostgresSettings:
    """Where Label Studio keeps its own tables when it runs on PostgreSQL."""

    name: str
    user: str = "postgres"
    password: str = ""
    host: str = "127.0.0.1"
    port: int = 5432

    def env(self) -> dict[str, str]:
        return {
            "DJANGO_DB": "default",
            "POSTGRE_NAME": self.name,
            "POSTGRE_USER": self.user,
            "POSTGRE_PASSWORD": self.password,
            "POSTGRE_HOST": self.host,
            "POSTGRE_PORT": str(self.port),
        }


@dataclass
class LocalLabelStudio:
    """One Label Studio server process with a known admin and token.

    Parameters
    ----------
    binary : Path
        The ``label-studio`` executable.
    data_dir : Path
        ``LABEL_STUDIO_BASE_DATA_DIR``: the SQLite database, uploads and media.
    port : int
        Port to bind on 127.0.0.1.
    postgres : PostgresSettings, optional
        Run on PostgreSQL instead of SQLite.
    """

    binary: Path
    data_dir: Path
    port: int
    postgres: PostgresSettings | None = None
    username: str = "admin@label-audit.local"
    password: str = field(default_factory=lambda: secrets.token_urlsafe(18), repr=False)
    token: str = field(default_factory=lambda: secrets.token_hex(20), repr=False)
    # Django's signing key: keep one per data dir (the demo stores it) so logins survive a restart.
    secret_key: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)
    # Sign-up only through the organization's invite link (backend.labelstudio.signup): an open form lets
    # anyone who reaches the port read every project. False only to test that `review push` refuses it.
    signup_closed: bool = True
    _proc: subprocess.Popen | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.port < 65536:
            raise ValueError(f"port out of range: {self.port}")
        if len(self.token) != 40:
            raise ValueError("Label Studio user tokens are 40 characters")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """The launcher's pid while it runs (its process group holds the server)."""
        return self._proc.pid if self._proc is not None else None

    @property
    def log_path(self) -> Path:
        return self.data_dir / "label-studio.log"

    def environment(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The process environment: loopback-only, no version check, our admin and token."""
        env = dict(environment() if base is None else base)
        for key in [k for k in env if k.startswith(("POSTGRE_", "DJANGO_DB", "LABEL_STUDIO_"))]:
            del env[key]
        # LS reads CI as a boolean: CI=true adds django_migration_linter (not installed) to its apps and
        # it fails to start; an empty CI= is rejected. Our CI sets CI=true, so LS never inherits it.
        env.pop("CI", None)
        env.update(
            {
                "LABEL_STUDIO_BASE_DATA_DIR": str(self.data_dir),
                "LABEL_STUDIO_USERNAME": self.username,
                "LABEL_STUDIO_PASSWORD": self.password,
                "LABEL_STUDIO_USER_TOKEN": self.token,
                "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
                "LATEST_VERSION_CHECK": "false",
                "SECRET_KEY": self.secret_key,
                # Let LS call ML backends and webhooks served by the tests on 127.0.0.1.
                "ML_BLOCK_LOCAL_IP": "false",
                "SSRF_PROTECTION_ENABLED": "false",
                # A backend's first /setup may load a model; LS's default 3 s fails on a busy machine.
                "ML_TIMEOUT_SETUP": "30",
                "COLLECT_ANALYTICS": "false",
                # No error reports to Label Studio's Sentry (offline machines; local data stays local).
                "SENTRY_DSN": "",
                "FRONTEND_SENTRY_DSN": "",
                # 1.23.2 reads both names (see signup_closed).
                "DISABLE_SIGNUP_WITHOUT_LINK": str(self.signup_closed).lower(),
                "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": str(self.signup_closed).lower(),
            }
        )
        if self.postgres is not None:
            env.update(self.postgres.env())
        return env

    def start(self, *, timeout: float = 300.0) -> "LocalLabelStudio":
        """Start the server and wait until it answers our token on our port (first start runs migrations)."""
        if self._proc is not None:
            raise RuntimeError("this Label Studio is already started")
        private_dir(self.data_dir)  # LS's SQLite database holds every user's API token
        if self.postgres is None:  # a first start copies the migrated schema instead of migrating (db_template)
            seed_database(self.binary, self.data_dir, env=self.environment())
        for existing in self.data_dir.glob("*.sqlite3*"):  # made by an older release with LS's own umask
            private_file(existing)
        cmd = [
            str(self.binary), "start", "--no-browser",
            "--internal-host", "127.0.0.1", "--port", str(self.port), "--host", self.url,
        ]
        with open(os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab") as log:
            self._proc = subprocess.Popen(
                cmd, env=self.environment(), stdout=log, stderr=subprocess.STDOUT,
                cwd=self.data_dir, start_new_session=True, umask=PRIVATE_UMASK,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"Label Studio exited with code {self._proc.returncode}; log: {self.log_path}")
            if self.ready():
                return self
            time.sleep(1.0)
        self.stop()
        raise RuntimeError(f"Label Studio did not answer on {self.url} within {timeout:.0f} s; log: {self.log_path}")

    def ready(self) -> bool:
        """True when our port serves the API and accepts our token."""
        try:
            resp = httpx.get(
                f"{self.url}/api/current-user/whoami",
                headers={"Authorization": f"Token {self.token}"}, timeout=3.0,
            )
        except httpx.HTTPError:
            return False
        return resp.status_code == 200

    def stop(self, *, timeout: float = 20.0) -> None:
        """Stop the whole process group (LS forks a server child)."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=timeout)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=timeout)

    def reset_password(self, email: str, password: str, *, timeout: float = 180.0) -> None:
        """Set a user's password with ``label-studio reset_password`` (same venv, same data dir/database).

        Open-source Label Studio has no API for another user's password; this is the command a lead runs
        for an expert created by ``review push``. Raises ValueError when Label Studio did not change it.
        """
        done = subprocess.run(
            [str(self.binary), "reset_password", "--username", email, "--password", password],
            env=self.environment(), cwd=self.data_dir, capture_output=True, text=True, timeout=timeout,
        )
        if "Password successfully changed" not in done.stdout:
            last = (done.stdout.strip().splitlines() or ["no output"])[-1]
            raise ValueError(f"Label Studio did not set the password of {email}: {last[:200]}")

    def __enter__(self) -> "LocalLabelStudio":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

