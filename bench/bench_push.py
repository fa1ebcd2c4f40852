"""Benchmark: pushing review tasks to Label Studio in bulk vs one request per task, in one run.

Run: ``python bench/bench_push.py [--tasks 200] [--experts 2]``. Starts a private Label Studio 1.23.2
(``LABEL_STUDIO_BIN`` or the cached venv; first start ≈ 45-90 s) unless ``LABEL_STUDIO_URL`` and
``LABEL_STUDIO_API_KEY`` point at one, then times, on fresh review projects of the same label config:

- baseline: ``tasks.create`` once per task (what a naive push does);
- bulk: :func:`backend.labelstudio.client.import_tasks` (one ``import_tasks`` request per 1000 tasks);
- ``review push`` end to end (ledger read, inputs fetch, user/project creation, bulk import) for
  ``--tasks`` flagged items and ``--experts`` experts.

Prints seconds, tasks/s and the ratio baseline / bulk (> 1 means bulk is faster). Not part of the tests.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
import uuid
from pathlib import Path

from backend.labelstudio.client import connect, create_project, import_tasks
from backend.labelstudio.labelconfig import label_config_for_spec, review_label_config
from backend.labelstudio.local import LocalLabelStudio, find_label_studio_bin
from backend.ledger import Ledger
from backend.scoring.results import ItemResult
from backend.review.push import BLIND_SETTINGS, push_review
from backend.review.review_store import ReviewStore
from backend.task.spec import load_spec

CONFIG = label_config_for_spec(load_spec("factual-consistency"))


def fake_items(n: int) -> list[dict]:
    rng = random.Random(0)
    words = "the a cat dog city river opened closed on in at before after report says".split()
    return [
        {"grounding": " ".join(rng.choice(words) for _ in range(60)), "generated_text": " ".join(rng.choice(words) for _ in range(12))}
        for _ in range(n)
    ]


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run(client, n: int, experts: int) -> None:
    items = fake_items(n)
    review_config = review_label_config(CONFIG)

    def fresh_project(tag: str) -> int:
        return create_project(client, title=f"bench {tag} {uuid.uuid4().hex[:6]}", label_config=review_config,
                              **BLIND_SETTINGS)

    per_project = fresh_project("per-task")
    per_task = timed(lambda: [client.tasks.create(project=per_project, data={**d, "review_ref": uuid.uuid4().hex})
                              for d in items])
    bulk_project = fresh_project("bulk")
    bulk = timed(lambda: import_tasks(client, bulk_project, [{"data": {**d, "review_ref": uuid.uuid4().hex}}
                                                            for d in items]))
    print(f"{n} tasks, per-task tasks.create : {per_task:8.2f} s  ({n / per_task:8.1f} tasks/s)")
    print(f"{n} tasks, bulk import_tasks     : {bulk:8.2f} s  ({n / bulk:8.1f} tasks/s)")
    print(f"ratio per-task / bulk            : {per_task / bulk:8.1f}x")

    source = create_project(client, title=f"bench source {uuid.uuid4().hex[:6]}", label_config=CONFIG)
    ids = import_tasks(client, source, [{"data": d} for d in items])
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'audit.sqlite'}"
        ledger = Ledger(db)
        ledger.record_many(str(source), "bench", [
            ItemResult(id=str(t), original="1", prediction="0", confidence=0.99 - k / (10 * n), probs=None, flagged=True)
            for k, t in enumerate(ids)
        ])
        emails = [f"bench-{uuid.uuid4().hex[:6]}-{k}@label-audit.test" for k in range(experts)]
        store = ReviewStore(db_engine=ledger.db_engine)
        push = timed(lambda: push_review(client, store, ledger, project_id=source, experts=emails))
        created = n * experts
        print(f"review push, {n} items x {experts} experts: {push:8.2f} s  ({created / push:8.1f} review tasks/s)")
        print(f"ratio per-task baseline / push  : {(per_task / n * created) / push:8.1f}x "
              "(the per-task rate extrapolated to the same number of review tasks)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--experts", type=int, default=2)
    args = parser.parse_args()
    if os.environ.get("LABEL_STUDIO_URL") and os.environ.get("LABEL_STUDIO_API_KEY"):
        run(connect(os.environ["LABEL_STUDIO_URL"], os.environ["LABEL_STUDIO_API_KEY"]), args.tasks, args.experts)
        return
    binary = find_label_studio_bin(os.environ.get("LABEL_STUDIO_BIN"))
    if binary is None:
        raise SystemExit("no Label Studio: set LABEL_STUDIO_BIN, or LABEL_STUDIO_URL + LABEL_STUDIO_API_KEY")
    from tests.support.services import free_port

    with tempfile.TemporaryDirectory(prefix="bench-push-") as tmp:
        with LocalLabelStudio(binary=binary, data_dir=Path(tmp) / "data", port=free_port()) as server:
            print(f"Label Studio started at {server.url}")
            run(connect(server.url, server.token), args.tasks, args.experts)


if __name__ == "__main__":
    main()
