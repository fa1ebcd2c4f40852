"""The review store (SQLite and PostgreSQL) and the review-outcome (gold-label) rule."""

from __future__ import annotations

import pytest

from backend.scoring.results import ItemResult
from backend.review.gold_store import refresh_gold
from backend.review.outcome import GoldStatus, answers_after, decide_outcome
from backend.review.review_store import IgnoredAnswer, ROUND_RECONCILE, ROUND_REVIEW, Answer, ReviewItem, ReviewProject, ReviewStore
from backend.task.spec import load_spec

BINARY = load_spec("factual-consistency")
LIKERT = load_spec("likert")
EXPERTS = ["a@x.org", "b@x.org"]


def result(task_id: str, original: str | None, prediction: str | None, *, error: str | None = None) -> ItemResult:
    return ItemResult(id=task_id, original=original, prediction=prediction, confidence=0.9 if prediction else None,
                      probs=None, flagged=prediction is not None and prediction != original, error=error)


def test_original_stands_when_the_ensemble_agrees():
    g = decide_outcome(result("1", "1", "1"), BINARY, experts=EXPERTS)
    assert (g.gold, g.decided_by, g.status) == ("1", "original", GoldStatus.AGREED_WITH_ENSEMBLE)
    assert g.status.settled and not g.status.by_experts


def test_ordinal_agreement_uses_the_flag_distance():
    assert decide_outcome(result("1", "3", "4"), LIKERT, experts=EXPERTS).status is GoldStatus.AGREED_WITH_ENSEMBLE
    assert decide_outcome(result("1", "3", "5"), LIKERT, experts=EXPERTS).status is GoldStatus.NOT_REVIEWED
    assert decide_outcome(result("1", "3", "4"), LIKERT, experts=EXPERTS, delta=0).status is GoldStatus.NOT_REVIEWED


def test_disagreement_needs_every_expert_then_their_agreement():
    item = result("7", "1", "0")
    assert decide_outcome(item, BINARY, experts=EXPERTS).status is GoldStatus.NOT_REVIEWED
    assert decide_outcome(item, BINARY, experts=EXPERTS, routed=True).status is GoldStatus.PENDING
    assert decide_outcome(item, BINARY, experts=EXPERTS, round1={"a@x.org": "0"}).status is GoldStatus.PENDING
    agreed = decide_outcome(item, BINARY, experts=EXPERTS, round1={"a@x.org": "1", "b@x.org": "1"})
    assert (agreed.gold, agreed.decided_by, agreed.status) == ("1", "experts_round1", GoldStatus.EXPERTS_AGREE)
    split = decide_outcome(item, BINARY, experts=EXPERTS, round1={"a@x.org": "0", "b@x.org": "1"})
    assert (split.gold, split.status) == (None, GoldStatus.PENDING)


def test_round_two_overrides_round_one_and_can_stay_unresolved():
    item = result("7", "1", "0")
    r1 = {"a@x.org": "0", "b@x.org": "1"}
    settled = decide_outcome(item, BINARY, experts=EXPERTS, round1=r1, round2={"a@x.org": "0", "b@x.org": "0"})
    assert (settled.gold, settled.decided_by, settled.status) == ("0", "experts_round2", GoldStatus.RECONCILED)
    still = decide_outcome(item, BINARY, experts=EXPERTS, round1=r1, round2={"a@x.org": "0", "b@x.org": "1"})
    assert (still.gold, still.status) == (None, GoldStatus.SPLIT_UNRESOLVED)
    blank = decide_outcome(item, BINARY, experts=EXPERTS, round1=r1, round2={"a@x.org": None})
    assert blank.status is GoldStatus.SPLIT_UNRESOLVED


def test_unscored_items_have_no_gold():
    assert decide_outcome(result("9", "1", None, error="timeout"), BINARY, experts=EXPERTS).status is GoldStatus.NOT_SCORED


def test_a_sampled_item_is_decided_by_the_experts_even_where_the_ensemble_agrees():
    item = result("8", "1", "1")
    assert decide_outcome(item, BINARY, experts=EXPERTS, sampled=True).status is GoldStatus.PENDING
    wrong = decide_outcome(item, BINARY, experts=EXPERTS, sampled=True, round1={"a@x.org": "0", "b@x.org": "0"})
    assert (wrong.gold, wrong.status) == ("0", GoldStatus.EXPERTS_AGREE)


def test_answers_after_reconciliation():
    r1 = {"Expert A": "0", "Expert B": "1"}
    assert answers_after(r1, {"a@x.org": "1", "b@x.org": "1"}) == {"Expert A": "1", "Expert B": "1"}
    assert answers_after(r1, {"Expert B": "0"}) == {"Expert A": "0", "Expert B": "0"}
    assert answers_after(r1, {"Expert A": "1", "Expert B": None}) == {"Expert A": "1", "Expert B": None}


def test_stored_rows_of_the_older_vocabulary_read_back():
    assert GoldStatus.from_stored("final", "original") is GoldStatus.AGREED_WITH_ENSEMBLE
    assert GoldStatus.from_stored("final", "experts_round2") is GoldStatus.RECONCILED
    assert GoldStatus.from_stored("unresolved") is GoldStatus.SPLIT_UNRESOLVED
    assert GoldStatus.from_stored("reconciled", "experts_round2") is GoldStatus.RECONCILED


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        return ReviewStore(f"sqlite:///{tmp_path}/audit.sqlite")
    return ReviewStore(request.getfixturevalue("postgres_url"))


def test_store_roundtrip_assignments_answers_and_gold(store):
    # Each expert's own instance numbers its first project 1: the store keys them by instance too.
    own = [ReviewProject("5", ROUND_REVIEW, email, i, 10 + i, 1, f"http://review-{i}.test") for i, email in enumerate(EXPERTS)]
    for project in own:
        store.add_project(project)
    store.add_project(own[0])  # idempotent
    assert store.experts("5") == EXPERTS and store.projects("5", round=ROUND_REVIEW) == own
    assert [p.display_name for p in store.projects("5")] == ["Expert A", "Expert B"]

    store.add_items("5", [ReviewItem("11", 0, "1", "0", 0.9), ReviewItem("12", 1, "0", "1", 0.8)])
    first = store.assign("5", ["11", "12"], round=ROUND_REVIEW, expert=EXPERTS[0], ls_project_id=1)
    again = store.assign("5", ["11", "12", "11"], round=ROUND_REVIEW, expert=EXPERTS[0], ls_project_id=1)
    assert len(first) == 2 and again == []
    refs = [a.ref for a in first]
    assert len(set(refs)) == 2 and all(len(r) >= 20 for r in refs)
    store.set_task_ids({refs[0]: 501})
    by_ref = {a.ref: a for a in store.assignments("5", round=ROUND_REVIEW)}
    assert by_ref[refs[0]].ls_task_id == 501 and by_ref[refs[1]].ls_task_id is None

    second = store.assign("5", ["11", "12"], round=ROUND_REVIEW, expert=EXPERTS[1], ls_project_id=1)
    store.replace_answers(own[0], [Answer(refs[0], "11", 1, EXPERTS[0], 1, "0"), Answer(refs[1], "12", 1, EXPERTS[0], 2, "0")])
    intruder = IgnoredAnswer(ROUND_REVIEW, EXPERTS[1], "12", "lead@x.org", 4, 1, "http://review-1.test")
    store.replace_answers(own[1], [Answer(second[0].ref, "11", 1, EXPERTS[1], 3, "1")], ignored=[intruder])
    # Re-collecting one project replaces its answers only (a deleted annotation disappears), although
    # the other expert's project has the same Label Studio id on its own instance.
    store.replace_answers(own[0], [Answer(refs[0], "11", 1, EXPERTS[0], 1, "0")])
    assert store.answers_by_task("5", round=ROUND_REVIEW) == {"11": {EXPERTS[0]: "0", EXPERTS[1]: "1"}}
    assert store.ignored_answers("5") == [intruder]

    shared = ReviewProject("5", ROUND_RECONCILE, "", None, None, 102)
    store.add_project(shared)
    (rec,) = store.assign("5", ["11"], round=ROUND_RECONCILE, expert="", ls_project_id=102)
    store.replace_answers(shared, [Answer(rec.ref, "11", 2, EXPERTS[1], 9, "0")])
    assert store.ignored_answers("5") == [intruder]  # another project's collection leaves it
    assert store.expert_labels("5", stage="before") == {"11": {"Expert A": "0", "Expert B": "1"}}
    assert store.expert_labels("5", stage="after") == {"11": {"Expert A": "0", "Expert B": "0"}}

    counts = refresh_gold(store, [result("11", "1", "0"), result("12", "0", "1"), result("13", "1", "1")], BINARY,
                          source_project="5")
    assert counts == {"reconciled": 1, "agreed_with_ensemble": 1, "pending": 1}
    gold = {g.task_id: g for g in store.gold_labels("5")}
    assert (gold["11"].gold, gold["11"].decided_by) == ("0", "experts_round2")
    assert (gold["13"].gold, gold["13"].decided_by) == ("1", "original")
    assert gold["12"].gold is None
    assert store.gold_counts("5") == counts
    # Other source projects are untouched.
    assert store.gold_labels("6") == [] and store.items("6") == []


def test_constructor_refuses_url_and_engine(tmp_path):
    one = ReviewStore(f"sqlite:///{tmp_path}/a.sqlite")
    with pytest.raises(ValueError):
        ReviewStore(f"sqlite:///{tmp_path}/a.sqlite", db_engine=one.db_engine)
