"""The end-to-end audit loop the e2e tests share: a real rq worker on its own queue, and `label-audit audit`.

Why one module: the generic, multi-label and span e2e tests each started the same worker with the same
settings and ran the same command; a change to how the loop is set up now happens once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping

from redis import Redis
from rq import Queue

from tests.backend.server.backend_process import REPO
from tests.backend.worker.rq_process import RQWorkerProcess


@contextmanager
def audit_environment(label_studio, redis_url: str, home: Path, *, queue_prefix: str,
                      members: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """The settings of one audit (ledger in ``home``, a fresh queue, ``members`` settings) with a worker on them;
    the worker is stopped and the queue emptied on exit."""
    env = {"DATABASE_URL": f"sqlite:///{home / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(home),
           "REDIS_URL": redis_url, "LABEL_AUDIT_QUEUE": f"{queue_prefix}-{uuid.uuid4().hex[:10]}",
           **members, "LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token}
    worker = RQWorkerProcess(redis_url, env["LABEL_AUDIT_QUEUE"], env).start()
    try:
        yield env
    finally:
        worker.stop()
        Queue(env["LABEL_AUDIT_QUEUE"], connection=Redis.from_url(redis_url)).empty()


def run_audit(env: Mapping[str, str], project: int, *, timeout: int) -> dict:
    """`label-audit audit --wait --json` on ``project`` as a user runs it; its summary. The token never shows."""
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("label-audit")), "audit", "--project", str(project), "--wait", "--json",
         "--timeout", str(timeout)],
        cwd=REPO, env={**os.environ, **env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=timeout + 300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert env["LABEL_STUDIO_API_KEY"] not in proc.stdout + proc.stderr
    return json.loads(proc.stdout)
