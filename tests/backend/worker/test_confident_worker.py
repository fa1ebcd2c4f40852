"""The confident-learning member in the Label Studio path: real Label Studio, Redis and an rq worker.

A job holds one batch, the member learns from the whole project: the first job fits once (on every
labelled task of the project) and stores every task's answer in the call cache; the other jobs find
theirs there. Observable from the ledger: only items of the fitting job have answers that were not cached.
The tickets are asked in two option orders (the default): the member answers the first only.
The tickets' planted errors are the only wrong labels, so the flags' precision is measured too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backend.demo.confident import LABEL_CONFIG, ticket_tasks
from backend.labelstudio.client import iter_tasks
from backend.ledger import Ledger
from tests.backend.server.backend_process import REPO
from tests.support.audit_loop import audit_environment

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis]
BATCH = 30


@pytest.fixture()
def env(label_studio, redis_url, tmp_path):
    members = {"LABEL_AUDIT_MEMBERS": "cleanlab:tfidf-logreg", "LABEL_AUDIT_BATCH": str(BATCH)}
    with audit_environment(label_studio, redis_url, tmp_path, queue_prefix="confident", members=members) as env:
        yield env


def test_worker_fits_once_per_project_version_and_finds_planted_errors(label_studio, env):
    tasks = ticket_tasks()
    project, _ = label_studio.create_project(LABEL_CONFIG, tasks)
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("label-audit")), "audit", "--project", str(project), "--wait", "--json",
         "--timeout", "600"],
        cwd=REPO, env={**os.environ, **env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    assert summary["scored"] == len(tasks) and summary["errors"] == {}
    results = Ledger(env["DATABASE_URL"]).results(str(project), model_version=summary["model_version"])
    answers = [m for r in results for m in r.members]
    assert {m.member_id for m in answers} == {"cleanlab:tfidf-logreg/features@v1"}
    fresh = sorted(int(r.id) for r in results if any(not m.cached for m in r.members))
    # One job fitted (its items answered as they came, the rest of its batch may already read the answers
    # the fit stored); the other four jobs read the cache. Tasks are batched in id order.
    assert fresh and fresh[-1] - fresh[0] < BATCH
    flagged = [r for r in results if r.flagged]
    hits = sum(bool(r.data.get("planted")) for r in flagged)
    assert hits >= 12 and hits / len(flagged) >= 0.7  # 15 planted among 150; chance precision 0.1
    predicted = [t for t in iter_tasks(label_studio.client, project, with_annotations=True) if t.predictions]
    assert len(predicted) == len(tasks)
