"""A migrated, empty Label Studio database, made once per Label Studio install and copied into new instances.

A first ``label-studio start`` on an empty folder runs Label Studio's ~300 Django migrations on SQLite before it
answers: about 35 s of CPU and many small synchronous writes, a minute or more on a busy 2-core machine, paid
again by every new instance (each expert's own instance, the demo's three, every test server). The migrations
give the same empty schema every time, so the first instance's result is kept and copied: the next start finds
its schema current, creates only its admin and serves. Nothing of an instance is in the copy: users, tokens,
the organization and the signing key (``SECRET_KEY`` comes from the environment) are all created at start.

The template lives inside the Label Studio venv that made it (``<venv>/label-audit-db-template/``), so a
reinstalled or upgraded Label Studio starts from its own migrations again. Any failure here only means the
instance migrates itself, as without a template.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Mapping

__all__ = ["DB_FILE", "seed_database", "template_path"]

DB_FILE = "label_studio.sqlite3"  # Label Studio's SQLite file in LABEL_STUDIO_BASE_DATA_DIR
TEMPLATE_DIR = "label-audit-db-template"
MIGRATE_TIMEOUT = 900.0  # seconds; a first migration on a loaded machine took 316 s here


def template_path(binary: Path) -> Path:
    """Where the template of the Label Studio at ``binary`` (``<venv>/bin/label-studio``) is kept."""
    return binary.resolve().parent.parent / TEMPLATE_DIR / DB_FILE


def _manage_py(binary: Path) -> Path | None:
    """Label Studio's ``manage.py`` in the venv of ``binary`` (run by path: it puts its ``core`` package first)."""
    venv = binary.resolve().parent.parent
    found = sorted(venv.glob("lib/python3*/site-packages/label_studio/manage.py"))
    return found[0] if found else None


def _make_template(binary: Path, target: Path, env: Mapping[str, str]) -> bool:
    """Run the migrations into a private temp folder and move the database to ``target`` (atomic)."""
    manage = _manage_py(binary)
    python = binary.resolve().parent / "python"
    if manage is None or not python.exists():
        return False
    with tempfile.TemporaryDirectory(dir=target.parent, prefix="migrate-") as work:
        run_env = {**env, "LABEL_STUDIO_BASE_DATA_DIR": work}
        for key in ("LABEL_STUDIO_USERNAME", "LABEL_STUDIO_PASSWORD", "LABEL_STUDIO_USER_TOKEN", "DJANGO_DB"):
            run_env.pop(key, None)  # the schema only: no user, and SQLite whatever the caller runs on
        done = subprocess.run([str(python), str(manage), "migrate", "--no-color", "-v", "0"], env=run_env,
                              cwd=work, capture_output=True, timeout=MIGRATE_TIMEOUT, check=False)
        made = Path(work) / DB_FILE
        if done.returncode != 0 or not made.is_file():
            return False
        os.chmod(made, 0o600)
        os.replace(made, target)
    return True


def seed_database(binary: Path, data_dir: Path, *, env: Mapping[str, str]) -> bool:
    """Copy the migrated template into ``data_dir`` when it holds no database yet (made first if missing).

    ``env`` is the instance's environment (its settings reach the migrations). True when a copy was placed;
    False leaves the folder as it was, and Label Studio migrates on its own.
    """
    target = data_dir / DB_FILE
    if target.exists():
        return False
    template = template_path(binary)
    try:
        template.parent.mkdir(mode=0o700, exist_ok=True)
        with open(template.parent / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # two instances starting at once make it once
            if not template.is_file() and not _make_template(binary, template, env):
                return False
        shutil.copyfile(template, target)
        os.chmod(target, 0o600)
        return True
    except (OSError, subprocess.SubprocessError):
        target.unlink(missing_ok=True)
        return False
