"""Benchmark: `audit-stats report` on a 10k-task project vs the raw SDK export of the same project.

Run: ``python bench/bench_report.py [--tasks 10000]``. Starts a private Label Studio 1.23.2 on
127.0.0.1 (``LABEL_STUDIO_BIN`` or the cached venv) unless ``LABEL_STUDIO_URL`` and
``LABEL_STUDIO_API_KEY`` point at one, bulk-imports ``--tasks`` labelled tasks (30% with three annotations), writes a 3-member
ensemble verdict per task into a fresh SQLite ledger, routes the flagged items to a two-expert
blind review (``review push``) and answers half of it, then times in the same run:

- baseline: ``projects.exports.as_json`` — one raw SDK export of every task with its annotations;
- report, cold: light listing + full pull of the multi-annotated tasks (no cache) + ledger + review
  store (answers re-read through the SDK) + every section, table format;
- report, warm: the same with the task cache filled (only the light id/version listing is fetched);
- HTML rendering of that report (matplotlib figures).

Prints absolute seconds and the ratios report / export (< 1 means the report is faster than merely
exporting the project). Not part of the tests.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
import uuid
from pathlib import Path

from backend.labelstudio.client import connect, create_project, import_tasks, iter_tasks
from backend.labelstudio.labelconfig import label_config_for_spec
from backend.labelstudio.local import LocalLabelStudio, find_label_studio_bin
from backend.ledger import Ledger
from backend.scoring.results import ItemResult, MemberResult
from backend.review.push import push_review
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from backend.task.spec import load_spec
from stats_cli.report.build import build_report
from stats_cli.sources.task_cache import TaskCache
from stats_cli.sources.audit_pull import PullStats, pull_audit
from stats_cli.report.render import render

CONFIG = label_config_for_spec(load_spec("factual-consistency"))
MEMBERS = ("local:m1/p1", "local:m1/p2", "local:m2/p1")
REVIEWED = 60  # flagged items sent to the experts
MULTI_TENTHS = 3  # 30% of tasks carry three annotations: those are pulled in full and cached


def choice(label: str) -> list[dict]:
    return [{"from_name": "label", "to_name": "generated_text", "type": "choices", "value": {"choices": [label]}}]


def make_project(client, n: int, rng: random.Random) -> tuple[int, list[int], list[str]]:
    words = "the a cat dog city river opened closed on in at before after report says".split()
    originals = [rng.choice("01") for _ in range(n)]
    tasks = [{"data": {"grounding": " ".join(rng.choice(words) for _ in range(60)),
                       "generated_text": " ".join(rng.choice(words) for _ in range(12))},
              "annotations": [{"result": choice(lab)}] * (3 if k % 10 < MULTI_TENTHS else 1)}
             for k, lab in enumerate(originals)]
    project = create_project(client, title=f"bench report {uuid.uuid4().hex[:6]}", label_config=CONFIG)
    return project, import_tasks(client, project, tasks), originals


def verdicts(ids: list[int], originals: list[str], rng: random.Random) -> list[ItemResult]:
    out = []
    for task_id, original in zip(ids, originals):
        p1 = rng.betavariate(2, 2)
        members = tuple(MemberResult(m, probs={"1": min(max(p1 + rng.uniform(-.1, .1), 0.01), .99)},
                                     method="logprobs") for m in MEMBERS)
        avg = sum(m.probs["1"] for m in members) / len(members)
        pred = "1" if avg >= 0.5 else "0"
        conf = avg if pred == "1" else 1 - avg
        members = tuple(MemberResult(m.member_id, probs={"1": m.probs["1"], "0": 1 - m.probs["1"]}, method="logprobs")
                        for m in members)
        out.append(ItemResult(id=str(task_id), original=original, prediction=pred, confidence=conf,
                              probs={pred: conf, ("0" if pred == "1" else "1"): 1 - conf},
                              flagged=pred != original and conf >= 0.6, members=members))
    return out


def answer_half(client, store: ReviewStore, project: int, rng: random.Random) -> None:
    """Both experts answer the first half of their review tasks (random labels: timing only)."""
    for p in store.projects(str(project), round=ROUND_REVIEW):
        tasks = list(iter_tasks(client, p.ls_project_id))
        for task in tasks[: len(tasks) // 2]:
            client.annotations.create(id=task.id, result=choice(rng.choice("01")), completed_by=p.expert_user_id)


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def run(url: str, token: str, n: int, home: Path) -> None:
    client = connect(url, token)
    rng = random.Random(0)
    t_import, (project, ids, originals) = timed(lambda: make_project(client, n, rng))
    print(f"imported {n} tasks in {t_import:.1f} s")
    db = f"sqlite:///{home / 'audit.sqlite'}"
    ledger = Ledger(db)
    ledger.record_many(str(project), "bench-v1", verdicts(ids, originals, rng))
    store = ReviewStore(db_engine=ledger.db_engine)
    os.environ.update({"LABEL_STUDIO_URL": url, "LABEL_STUDIO_API_KEY": token})
    push_review(client, store, ledger, project_id=project, experts=[f"ba{uuid.uuid4().hex[:5]}@la.test",
                                                                    f"bb{uuid.uuid4().hex[:5]}@la.test"],
                budget=REVIEWED)
    answer_half(client, store, project, rng)

    t_export, exported = timed(lambda: client.projects.exports.as_json(project))
    print(f"baseline: raw SDK export of {len(exported)} tasks: {t_export:.1f} s")

    cache = TaskCache(url, project, root=home / "cache")

    def report():
        stats = PullStats()
        data = pull_audit(project, client=client, db_url=db, cache=cache, stats=stats)
        return render(build_report(data), fmt="table"), stats, data

    t_cold, (_, cold, data) = timed(report)
    t_warm, (text, warm, _) = timed(report)
    t_html, html = timed(lambda: render(build_report(data), fmt="html"))
    multi = sum(1 for k in range(n) if k % 10 < MULTI_TENTHS)
    assert cold.fetched == multi and warm.from_cache == multi and warm.fetched == 0, (cold, warm)
    assert "Label errors" in text and len(html) > 10_000
    print(f"report, cold cache (light listing of {cold.tasks} tasks, {cold.fetched} multi-annotated pulled in full, "
          f"ledger, review, sections): {t_cold:.1f} s")
    print(f"report, warm cache ({warm.from_cache} tasks from cache): {t_warm:.1f} s")
    print(f"HTML rendering (3 figures): {t_html:.1f} s")
    print(f"ratio cold report / raw export: {t_cold / t_export:.2f}")
    print(f"ratio warm report / raw export: {t_warm / t_export:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        home = Path(tmp)
        os.environ["LABEL_AUDIT_HOME"] = str(home)
        url, token = os.environ.get("LABEL_STUDIO_URL"), os.environ.get("LABEL_STUDIO_API_KEY")
        if url and token:
            run(url, token, args.tasks, home)
            return
        binary = find_label_studio_bin(os.environ.get("LABEL_STUDIO_BIN"))
        if binary is None:
            raise SystemExit("label-studio not found: set LABEL_STUDIO_BIN (or LABEL_STUDIO_URL + LABEL_STUDIO_API_KEY)")
        from tests.support.services import free_port

        server = LocalLabelStudio(binary=binary, data_dir=home / "ls", port=free_port())
        server.start()
        try:
            run(server.url, server.token, args.tasks, home)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
