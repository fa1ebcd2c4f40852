"""Files holding secrets are the owner's only: Label Studio's database (it stores every API token) and a
backend's gunicorn control socket, on a real Label Studio and a real `label-audit serve`."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from backend.labelstudio.tasks import tasks_to_items  # noqa: F401  (the backend's import graph loads)
from tests.backend.reliability.test_degraded_backend import _serve


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.labelstudio
def test_label_studio_database_is_0600_in_a_0700_folder(label_studio) -> None:
    folder = label_studio.process.data_dir
    databases = list(folder.glob("*.sqlite3"))
    assert databases, sorted(p.name for p in folder.iterdir())
    assert _mode(folder) == 0o700  # before: 0755
    for path in [*databases, label_studio.process.log_path]:
        assert _mode(path) & 0o077 == 0, (path.name, oct(_mode(path)))  # before: 0644


@pytest.mark.redis
def test_each_backend_has_its_own_private_control_socket(tmp_path, redis_url) -> None:
    procs = [_serve(tmp_path / str(i), redis_url) for i in range(2)]
    try:
        sockets = []
        for proc in procs:
            found = re.search(r"Control socket listening at (\S+)", proc.log_tail(20_000))
            assert found, proc.log_tail()
            sockets.append(Path(found.group(1)))
        # before: both at ~/.gunicorn/gunicorn.ctl, the second backend taking over the first one's
        assert sockets[0] != sockets[1]
        for path in sockets:
            assert path.is_socket() and _mode(path.parent) == 0o700
    finally:
        for proc in procs:
            proc.stop()
