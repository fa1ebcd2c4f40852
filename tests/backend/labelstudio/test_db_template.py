"""The migrated-schema template: what a new instance's folder receives, and what happens without one.

Real Label Studio 1.23.2 (its own venv): the template is made by its own migrations. Every Label Studio the
suite starts on SQLite begins from this copy, so each server test also checks that a seeded instance serves.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from backend.labelstudio.db_template import DB_FILE, seed_database, template_path
from backend.labelstudio.local import LocalLabelStudio, find_label_studio_bin
from tests.support.services import free_port

pytestmark = pytest.mark.labelstudio


@pytest.fixture(scope="module")
def binary() -> Path:
    found = find_label_studio_bin()
    if found is None:
        pytest.skip("Label Studio 1.23.2 is not installed (bash scripts/install_labelstudio.sh)")
    return found


def _instance(binary: Path, folder: Path) -> LocalLabelStudio:
    return LocalLabelStudio(binary=binary, data_dir=folder, port=free_port())


def test_a_new_folder_gets_the_migrated_schema_and_no_user(binary: Path, tmp_path: Path) -> None:
    folder = tmp_path / "ls"
    folder.mkdir()
    assert seed_database(binary, folder, env=_instance(binary, folder).environment())
    assert template_path(binary).is_file()
    with sqlite3.connect(folder / DB_FILE) as db:
        migrations = db.execute("select count(*) from django_migrations").fetchone()[0]
        users = db.execute("select count(*) from htx_user").fetchone()[0]
        organizations = db.execute("select count(*) from organization").fetchone()[0]
    assert migrations > 100 and users == 0 and organizations == 0
    assert (folder / DB_FILE).stat().st_mode & 0o077 == 0  # it will hold every user's token


def test_a_folder_with_a_database_is_left_alone(binary: Path, tmp_path: Path) -> None:
    (tmp_path / DB_FILE).write_bytes(b"an instance's own data")
    assert not seed_database(binary, tmp_path, env={})
    assert (tmp_path / DB_FILE).read_bytes() == b"an instance's own data"


def test_without_label_studios_manage_py_the_instance_migrates_itself(tmp_path: Path) -> None:
    fake_venv = tmp_path / "venv" / "bin"
    fake_venv.mkdir(parents=True)
    (fake_venv / "label-studio").write_text("#!/bin/sh\n")
    folder = tmp_path / "ls"
    folder.mkdir()
    assert not seed_database(fake_venv / "label-studio", folder, env={})
    assert not (folder / DB_FILE).exists() and not template_path(fake_venv / "label-studio").exists()
