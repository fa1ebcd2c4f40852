"""``review push --until-width`` in real Label Studio: a batch drawn, experts answer, the next push grows it.

30 items with the judges' P(label wrong) planted; two experts answer every task with the item's truth
through Label Studio; the answers are read back (``refresh_review``) and the next push draws the next batch
on top of the first (the earlier items stay, only the new ones are imported), or stops at the target.
"""

from __future__ import annotations

from typing import Any

import pytest

from backend.labelstudio.client import iter_tasks
from backend.review.gold_store import refresh_review
from backend.review.push import push_review
from backend.review.review_store import ROUND_REVIEW
from backend.review.sample_store import SampleStore
from backend.review.source import REF_FIELD, load_source
from backend.review.spread_design import SPREAD
from backend.review.until_width import WidthTarget
from backend.review.until_width_push import UntilRequest
from backend.scoring.results import ItemResult
from tests.support.labelstudio import unique_email

pytestmark = pytest.mark.labelstudio

CONFIG = """<View>
  <Text name="passage" value="$passage"/>
  <Choices name="verdict" toName="passage"><Choice value="0"/><Choice value="1"/></Choices>
</View>"""
SCORES = (0.02, 0.1, 0.4, 0.8, 0.45)


def choice(label: str) -> list[dict[str, Any]]:
    return [{"from_name": "verdict", "to_name": "passage", "type": "choices", "value": {"choices": [label]}}]


def test_until_width_grows_the_sample_after_the_experts_answer(label_studio, record_verdicts):
    ls = label_studio
    tasks = [{"passage": f"passage {k}", "label": str(k % 2)} for k in range(30)]
    project, ids = ls.create_project(CONFIG, tasks)
    truth, results = {}, []
    for k, t in enumerate(ids):
        s, label = SCORES[k % len(SCORES)], str(k % 2)
        truth[str(t)] = str(1 - k % 2) if k % 4 == 0 else label  # every fourth label wrong
        results.append(ItemResult(id=str(t), original=label, prediction=str(1 - k % 2) if s > 0.5 else label,
                                  confidence=max(s, 1 - s), probs={label: 1 - s, str(1 - k % 2): s}, flagged=s > 0.5))
    ledger, store = record_verdicts(project, results, config=CONFIG, label_field="label")
    experts = [unique_email("uw-a"), unique_email("uw-b")]
    until = UntilRequest(WidthTarget(points=5), batch=10, rule="sequential", seed=2)
    first = push_review(ls.client, store, ledger, project_id=project, experts=experts, until=until, budget=0)
    assert first.until_width["state"] == "drawn" and first.sampled == 10 and first.items == 10
    draw = SampleStore(ledger.db_engine).draw(str(project))
    assert draw.design == SPREAD and len(draw.items) == 10

    waiting = push_review(ls.client, store, ledger, project_id=project, experts=experts, until=until, budget=0)
    assert waiting.until_width["state"] == "waiting" and waiting.sampled == 0
    assert "PENDING (10 drawn items not settled yet)" in waiting.until_width["line"]

    uids = {p.expert: p.expert_user_id for p in store.projects(str(project), round=ROUND_REVIEW)}
    by_ref = {a.ref: a.task_id for a in store.assignments(str(project))}
    for email in experts:
        for task in iter_tasks(ls.client, first.projects[email]):
            ls.client.annotations.create(id=task.id, result=choice(truth[by_ref[task.data[REF_FIELD]]]),
                                         completed_by=uids[email])
    refresh_review(ls.client, store, load_source(ls.client, project, label_field="label"), ledger.results(str(project)))

    second = push_review(ls.client, store, ledger, project_id=project, experts=experts, until=until, budget=0)
    step = second.until_width
    grown = SampleStore(ledger.db_engine).draw(str(project))
    assert {i.task_id for i in draw.items} <= {i.task_id for i in grown.items}
    # 10 reviews of 30 items (under 5 errors: the exact design-only interval, about ±20 points) miss ±5 points
    assert step["state"] == "drawn" and step["half_width"] > 0.05
    assert len(grown.items) == 20 and second.sampled == 10
    assert second.new_tasks == {e: 10 for e in experts}  # only the new batch is imported
    assert step["line"].startswith("about ") and "to reach ±5 points" in step["line"]
