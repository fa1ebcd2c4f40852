"""``review push --sample``: controls mixed blind among the suspects in real Label Studio, drawn once."""

from __future__ import annotations

import pytest

from backend.labelstudio.client import iter_tasks
from backend.scoring.results import ItemResult
from backend.review.push import push_review
from backend.review.sample_push import SampleRequest
from backend.review.sample_store import SampleStore
from backend.review.sampling import FLAGGED_REVIEWED, UNFLAGGED
from backend.review.source import REF_FIELD
from backend.review.status import review_status
from tests.support.labelstudio import unique_email

pytestmark = pytest.mark.labelstudio

CONFIG = """<View>
  <Text name="passage" value="$passage"/>
  <Choices name="verdict" toName="passage"><Choice value="0"/><Choice value="1"/></Choices>
</View>"""


@pytest.fixture()
def scored(label_studio, record_verdicts):
    """30 items: every third flagged (the ensemble disagrees, confidence 0.9+), the rest agreed with."""
    tasks = [{"passage": f"passage {k}", "label": str(k % 2)} for k in range(30)]
    project, ids = label_studio.create_project(CONFIG, tasks)
    results = []
    for k, t in enumerate(ids):
        flagged = k % 3 == 0
        results.append(ItemResult(id=str(t), original=str(k % 2), prediction=str(1 - k % 2 if flagged else k % 2),
                                  confidence=0.9 + k / 1000 if flagged else 0.6 + k / 100, probs=None, flagged=flagged))
    ledger, store = record_verdicts(project, results, config=CONFIG, label_field="label")
    return label_studio, project, ids, ledger, store, results


def test_stratified_sample_is_mixed_blind_and_never_drawn_twice(scored):
    ls, project, ids, ledger, store, results = scored
    experts = [unique_email("a"), unique_email("b")]
    request = SampleRequest(6, design="stratified", seed=4)
    report = push_review(ls.client, store, ledger, project_id=project, experts=experts, sample=request, seed=4)
    assert report.sample_drawn and report.sampled == 6 and report.items == 16
    draw = SampleStore(ledger.db_engine).draw(str(project))
    assert draw.strata == {FLAGGED_REVIEWED: 10, UNFLAGGED: 20}
    assert {i.stratum: i.inclusion_probability for i in draw.items} == {FLAGGED_REVIEWED: 1.0, UNFLAGGED: 6 / 20}
    flagged = {str(r.id) for r in results if r.flagged}
    by_ref = {a.ref: a.task_id for a in store.assignments(str(project))}
    orders = {}
    for email, pid in report.projects.items():
        data = [t.data for t in iter_tasks(ls.client, pid)]
        assert {frozenset(d) for d in data} == {frozenset({"passage", REF_FIELD})}  # same fields for all
        orders[email] = [by_ref[d[REF_FIELD]] for d in data]
    for order in orders.values():
        assert set(order) == {i.task_id for i in draw.items}
        # Not confidence order: the suspects (confidence > 0.9) do not all come first.
        assert [t in flagged for t in order] != sorted((t in flagged for t in order), reverse=True)
    assert orders[experts[0]] != orders[experts[1]]
    status = review_status(store, str(project))  # the lead sees the sample's strata, nothing settled yet
    assert status.design == "stratified"
    assert [(p.stratum, p.population, p.drawn, p.settled) for p in status.sample] == [
        (FLAGGED_REVIEWED, 10, 10, 0), (UNFLAGGED, 20, 6, 0)]
    assert status.to_json()["sample"]["strata"][1]["drawn"] == 6
    again = push_review(ls.client, store, ledger, project_id=project, experts=experts, sample=request, seed=4)
    assert not again.sample_drawn and again.sampled == 0 and again.new_tasks == {e: 0 for e in experts}
    with pytest.raises(ValueError, match="never re-drawn"):
        push_review(ls.client, store, ledger, project_id=project, experts=experts,
                    sample=SampleRequest(6, design="random", seed=4), seed=4)
