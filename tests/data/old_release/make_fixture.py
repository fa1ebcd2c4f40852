"""Make the previous release's store (label-audit b50f3f5) for the migration tests; run with THAT code.

Used once at test-authoring time, not by the tests::

    git -C <repo> archive b50f3f5 backend stats_cli prompts | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old python tests/data/old_release/make_fixture.py sqlite:////tmp/old.sqlite
    sqlite3 /tmp/old.sqlite .dump > tests/data/old_release/ledger-b50f3f5.sqlite.sql
    PYTHONPATH=/tmp/old python tests/data/old_release/make_fixture.py postgresql://postgres@127.0.0.1/old
    pg_dump --no-owner --no-privileges --inserts -d old > tests/data/old_release/ledger-b50f3f5.postgresql.sql

It stores through that release's own classes: two verdicts with an input hash, one without (as a
verdict recorded before hashes existed would be), members, crowd labels, a job, a project's config, a
cached call, a review item and gold label, a probe row and a sample stratum.
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone

from backend.scoring.cache import CallCache
from backend.ledger import CrowdLabel, Ledger
from backend.probes.probe_store import save_probe_report
from backend.providers.base import ClassDistribution
from backend.scoring.results import ItemResult, MemberResult
from backend.review import schema as review_schema
from backend.review.sample_store import SampleStore, strata_table

VERSION = "label-audit-oldrelease1"


def main(url: str) -> None:
    ledger = Ledger(url)
    member = MemberResult("openai:smol/fc-premise-hypothesis@v1", probs={"0": 0.2, "1": 0.8}, latency_s=0.4)
    results = [ItemResult(id=str(i), original="0", prediction="1", confidence=0.8, probs={"0": 0.2, "1": 0.8},
                          flagged=True, members=(member,), data={"text": f"item {i}"},
                          input_hash=None if i == 3 else f"hash{i:016d}") for i in (1, 2, 3)]
    ledger.record_many("7", VERSION, results)
    ledger.record_crowd("7", [CrowdLabel("1", "100", "0", "11"), CrowdLabel("2", "101", "0", "11")])
    ledger.jobs.queued("la-7-old", project="7", model_version=VERSION, n_tasks=3)
    ledger.jobs.started("la-7-old", project="7", model_version=VERSION, n_tasks=3)
    ledger.jobs.finish("la-7-old", status="finished", n_scored=3)
    ledger.set_project("7", label_config="<View><Text name='text' value='$text'/></View>")
    cache = CallCache(url)
    cache.put("k" * 64, ClassDistribution(probs={"0": 0.2, "1": 0.8}, raw_mass=0.9, method="logprobs"), provider="openai", model="smol",
              template_id="fc-premise-hypothesis", template_version=1, latency_s=0.4)
    now = datetime.now(timezone.utc)
    SampleStore(ledger.db_engine)
    review_schema.metadata.create_all(ledger.db_engine)
    with ledger.db_engine.begin() as conn:
        conn.execute(review_schema.items.insert(), [{"source_project": "7", "task_id": "1", "rank": 0,
                                                     "original": "0", "prediction": "1", "confidence": 0.8,
                                                     "model_version": VERSION, "pushed_at": now}])
        conn.execute(review_schema.gold.insert(), [{"source_project": "7", "task_id": "1", "original": "0",
                                                    "prediction": "1", "confidence": 0.8, "gold": "1",
                                                    "decided_by": "experts_round1", "status": "final",
                                                    "updated_at": now}])
        conn.execute(strata_table.insert(), [{"source_project": "7", "stratum": "flagged", "design": "random",
                                              "seed": 1, "population": 3, "sample": 1, "drawn_at": now}])
    save_probe_report({"run_id": "r1", "task": "factual-consistency", "created_at": now.isoformat(),
                       "rows": [{"member_id": member.member_id, "condition": "planted", "n": 3, "n_ok": 3,
                                 "n_errors": 0, "mae": 0.1}]}, db_engine=ledger.db_engine)


if __name__ == "__main__":
    main(sys.argv[1])
