"""Label Studio itself on PostgreSQL (what docker-compose runs): start, import, annotate, read back."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from backend.labelstudio.client import iter_tasks
from backend.labelstudio.tasks import annotation_results
from backend.labelstudio.local import find_label_studio_bin
from tests.support.labelstudio import create_pg_database, drop_pg_database, start_label_studio
from tests.support.services import missing_service, port_open

pytestmark = [pytest.mark.labelstudio, pytest.mark.postgres]

CONFIG = (
    "<View><Text name='text' value='$text'/>"
    "<Choices name='label' toName='text'><Choice value='0'/><Choice value='1'/></Choices></View>"
)


def test_label_studio_runs_on_postgresql():
    if find_label_studio_bin(os.environ.get("LABEL_STUDIO_BIN")) is None:
        missing_service("Label Studio 1.23.2")
    if not port_open("127.0.0.1", 5432):
        missing_service("PostgreSQL at 127.0.0.1:5432")
    settings, name = create_pg_database()
    try:
        with tempfile.TemporaryDirectory(prefix="la-ls-pg-") as tmp:
            server = start_label_studio(Path(tmp) / "data", postgres=settings)
            try:
                project, ids = server.create_project(CONFIG, [{"text": "a"}, {"text": "b"}])
                result = [{"from_name": "label", "to_name": "text", "type": "choices", "value": {"choices": ["0"]}}]
                server.client.annotations.create(id=ids[1], result=result)
                tasks = list(iter_tasks(server.client, project, with_annotations=True))
                assert [t.data["text"] for t in tasks] == ["a", "b"]
                assert [len(list(annotation_results(t))) for t in tasks] == [0, 1]
                # Its tables really are in our database, not in a SQLite file of the data dir.
                import psycopg

                from tests.support.services import PG_ADMIN_URL

                url = PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
                with psycopg.connect(url) as conn:
                    count = conn.execute("SELECT count(*) FROM task").fetchone()[0]
                assert count == 2
                assert not list((Path(tmp) / "data").glob("*.sqlite3"))
            finally:
                server.process.stop()
    finally:
        drop_pg_database(name)
