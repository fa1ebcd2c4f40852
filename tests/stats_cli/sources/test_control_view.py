"""The per-control view of a several-control audit, on hand-built data in the composite's encoding.

Values are JSON objects ``{control: value}`` (compact, control order), each item's verdict holds one verdict
per control under the control's name: the contract of the composite ``controls`` family. The views are cut
by :func:`split_by_control` with the JSON splitter here (what ``control_values`` returns), so every figure
below is checked against the answers written in the test.
"""

from __future__ import annotations

import json

import pytest
from sklearn.metrics import cohen_kappa_score

from backend.review.outcome import GoldStatus, ReviewOutcome
from backend.scoring.results import ItemResult
from backend.task.spec import load_spec, spec_from_mapping
from stats_cli.sources.audit_data import AuditData, ExpertReview
from stats_cli.sources.control_view import Control, split_by_control
from stats_cli.report.build import build_report

LIKERT = load_spec("likert")  # ordinal 1-5, flagged when |prediction - original| > 1
PAIR = spec_from_mapping({"name": "preference", "family": "nominal", "fields": {"a": "a", "b": "b"},
                          "labels": ["left", "right", "tie"]})
CONTROLS = (Control("coherence", LIKERT, tag="Rating", title="Coherence"), Control("fluency", LIKERT, tag="Rating"),
            Control("pref", PAIR, tag="Pairwise"))


def _value(**parts: str) -> str:
    return json.dumps(parts, separators=(",", ":"))


def _parts(value: str) -> dict[str, str]:
    parts = json.loads(value)
    if not isinstance(parts, dict):
        raise ValueError(f"{value!r} is not an object of control values")
    return parts


def _question(name: str, original: str | None, prediction: str | None, *, flagged: bool = False,
              error: str | None = None) -> ItemResult:
    return ItemResult(id=name, original=original, prediction=prediction, confidence=None if prediction is None else 0.8,
                      probs=None, flagged=flagged, error=error)


def _item(i: int, original: dict, predicted: dict, *, flagged: set[str] = frozenset(), not_shown=()) -> ItemResult:
    questions = tuple(_question(n, original.get(n), None, error="not_shown") if n in not_shown
                      else _question(n, original.get(n), predicted[n], flagged=n in flagged)
                      for n in ("coherence", "fluency", "pref"))
    shown = {k: v for k, v in predicted.items() if k not in not_shown}
    return ItemResult(id=f"t{i}", original=_value(**original), prediction=_value(**shown), confidence=0.8, probs=None,
                      flagged=bool(flagged), questions=questions)


def _audit(**extra) -> AuditData:
    items = (
        _item(0, {"coherence": "4", "fluency": "5", "pref": "left"}, {"coherence": "4", "fluency": "4", "pref": "left"}),
        _item(1, {"coherence": "1", "fluency": "5", "pref": "left"}, {"coherence": "4", "fluency": "5", "pref": "right"},
              flagged={"coherence"}),
        _item(2, {"coherence": "3", "pref": "tie"}, {"coherence": "3", "pref": "left"}, not_shown=("fluency",)),
    )
    reviews = {"t1": ExpertReview("t1", round1={"A": _value(coherence="4", fluency="5", pref="right"),
                                                "B": _value(coherence="2", fluency="5", pref="right")},
                                  round2={"A": _value(coherence="4"), "B": _value(coherence="4")})}
    return AuditData(project="p", spec=LIKERT, items=items, routed=frozenset({"t1"}), reviews=reviews,
                     experts=("A", "B"), **extra)


def test_each_control_sees_its_own_verdicts_originals_and_labels():
    coherence, fluency, pref = split_by_control(_audit(), CONTROLS, parts=_parts)
    assert coherence.control.label == "Coherence (coherence)" and fluency.control.label == "fluency"
    assert [(str(it.id), it.original, it.prediction, it.flagged) for it in coherence.data.items] == [
        ("t0", "4", "4", False), ("t1", "1", "4", True), ("t2", "3", "3", False)]
    assert coherence.data.spec is LIKERT and pref.data.spec is PAIR
    # fluency was not asked on t2 (its condition did not hold): left out and counted
    assert [str(it.id) for it in fluency.data.items] == ["t0", "t1"] and fluency.not_shown == 1
    assert [it.prediction for it in pref.data.items] == ["left", "right", "left"]


def test_review_rounds_and_gold_are_cut_per_control():
    coherence, fluency, pref = split_by_control(_audit(), CONTROLS, parts=_parts)
    review = coherence.data.reviews["t1"]
    assert review.round1 == {"A": "4", "B": "2"} and review.round2 == {"A": "4", "B": "4"}
    assert review.split and review.final_answers == {"A": "4", "B": "4"}
    # round 2 showed only coherence: fluency keeps the experts' round-1 answers
    assert fluency.data.reviews["t1"].round2 == {} and fluency.data.reviews["t1"].final_answers == {"A": "5", "B": "5"}
    t1 = {v.control.name: v.data.gold(v.data.items[1]) for v in (coherence, fluency, pref)}
    assert t1["coherence"] == ("4", GoldStatus.RECONCILED)
    assert t1["fluency"] == ("5", GoldStatus.AGREED_WITH_ENSEMBLE)
    assert t1["pref"] == ("right", GoldStatus.EXPERTS_AGREE)  # the ensemble reversed the original; experts agree


def test_stored_outcomes_give_each_control_its_part_and_its_own_status():
    stored = {"t1": ReviewOutcome("t1", None, None, 0.8, _value(coherence="4", fluency="5", pref="right"),
                                  GoldStatus.RECONCILED)}
    coherence, fluency, pref = split_by_control(_audit(gold_labels=stored), CONTROLS, parts=_parts)
    assert coherence.data.gold(coherence.data.items[1]) == ("4", GoldStatus.RECONCILED)
    assert fluency.data.gold(fluency.data.items[1]) == ("5", GoldStatus.AGREED_WITH_ENSEMBLE)
    assert pref.data.gold(pref.data.items[1]) == ("right", GoldStatus.EXPERTS_AGREE)
    # items without a stored outcome are decided on the control's own answers
    assert coherence.data.gold(coherence.data.items[0]) == ("4", GoldStatus.AGREED_WITH_ENSEMBLE)


def test_crowd_labels_and_unreadable_values():
    crowd = {"t0": {"w1": _value(coherence="4", fluency="5"), "w2": _value(coherence="5"), "w3": "not json"},
             "t2": {"w1": _value(coherence="3", fluency="2")}}
    coherence, fluency, _ = split_by_control(_audit(crowd=crowd), CONTROLS, parts=_parts)
    assert coherence.data.crowd == {"t0": {"w1": "4", "w2": "5"}, "t2": {"w1": "3"}}
    assert fluency.data.crowd == {"t0": {"w1": "5"}}  # t2's fluency was not shown: not in the view
    assert coherence.unreadable == 1


def test_sections_run_per_control_with_the_controls_family():
    items, reviews = [], {}
    a = ["1", "2", "3", "4", "5", "5", "4", "3", "2", "1", "3", "4"]
    b = ["1", "2", "4", "4", "5", "4", "4", "2", "2", "1", "3", "5"]
    for i, (x, y) in enumerate(zip(a, b)):
        items.append(_item(i, {"coherence": x, "fluency": "3", "pref": "left"},
                           {"coherence": "1" if x == "5" else x, "fluency": "3", "pref": "left"},
                           flagged={"coherence"} if x == "5" else set()))
        reviews[f"t{i}"] = ExpertReview(f"t{i}", round1={"A": _value(coherence=x, fluency="3", pref="left"),
                                                         "B": _value(coherence=y, fluency="3", pref="left")})
    data = AuditData(project="p", spec=LIKERT, items=tuple(items), routed=frozenset(reviews), reviews=reviews,
                     experts=("A", "B"))
    coherence, _, _ = split_by_control(data, CONTROLS, parts=_parts)
    experts = build_report(coherence.data).section("experts")
    assert experts.values["before"]["cohen_kappa"] == pytest.approx(cohen_kappa_score(a, b))
    audit = build_report(coherence.data).section("audit")
    assert audit.status.value == "ok"
