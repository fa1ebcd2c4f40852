"""Triage: likely error, ambiguous, guideline gap; thresholds from the verdicts only when there are enough."""

from __future__ import annotations

import numpy as np
import pytest

from backend.common import defaults
from backend.review.triage import (AMBIGUOUS, GUIDELINE_GAP, LIKELY_ERROR, ItemEvidence, Thresholds, judge_figures,
                                   thresholds_from_verdicts, triage, triage_items)
from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.results import ItemResult, MemberResult

LABELS = ["pos", "neg", "neu"]
SPEC = spec_from_label_config("""<View><Text name="t" value="$text"/><Choices name="s" toName="t">
<Choice value="pos"/><Choice value="neg"/><Choice value="neu"/></Choices></View>""")


def _clear_items(n: int, rng) -> list[ItemEvidence]:
    out = []
    for k in range(n):
        lab = LABELS[k % 3]
        out.append(ItemEvidence(f"c{k}", lab, {f"a{j}": lab for j in range(5)},
                                {"judge:x": {lab: 0.9, LABELS[(k + 1) % 3]: 0.1},
                                 "judge:y": {lab: 0.85, LABELS[(k + 2) % 3]: 0.15}}))
    return out


def test_a_wrong_label_the_reliable_sources_contradict_is_a_likely_error():
    # One annotation per item (the original label), wrong on 10% of the items, where the judges are right.
    items = []
    for k in range(60):
        lab = LABELS[k % 3]
        said = LABELS[(k + 1) % 3] if k % 10 == 0 else lab
        items.append(ItemEvidence(f"c{k}", said, {}, {"judge:x": {lab: 0.9, LABELS[(k + 2) % 3]: 0.1},
                                                      "judge:y": {lab: 0.85, LABELS[(k + 1) % 3]: 0.15}}))
    wrong = ItemEvidence("w", "neg", {}, {"judge:x": {"pos": 0.97, "neg": 0.03}, "judge:y": {"pos": 0.96, "neg": 0.04},
                                          "cleanlab:tfidf-logreg": {"pos": 0.9, "neg": 0.1}})
    result = triage([*items, wrong], labels=LABELS, flagged=["w"])
    (row,) = result.items
    assert row.p_d is None
    assert row.cl_p_original == pytest.approx(0.1)
    assert row.klass == LIKELY_ERROR, row.reasons
    assert row.truth_label == "pos"
    assert result.thresholds.source == "defaults"


def test_split_annotators_and_unsure_judges_make_an_item_ambiguous():
    items = _clear_items(60, np.random.default_rng(1))
    split = ItemEvidence("s", "pos", {"a0": "pos", "a1": "neg", "a2": "pos", "a3": "neg", "a4": "neu"},
                         {"judge:x": {"pos": 0.34, "neg": 0.36, "neu": 0.30}, "judge:y": {"pos": 0.3, "neg": 0.4, "neu": 0.3}})
    (row,) = triage([*items, split], labels=LABELS, flagged=["s"]).items
    assert row.klass in (AMBIGUOUS, GUIDELINE_GAP)
    assert row.p_d == pytest.approx(0.4)
    assert row.judge_entropy > defaults.TRIAGE_ENTROPY_CUT
    assert any("annotators split" in r for r in row.reasons)


def test_judge_spread_separates_disagreeing_judges_from_unsure_ones():
    unsure, unsure_spread = judge_figures({"x": {"a": 0.5, "b": 0.5}, "y": {"a": 0.5, "b": 0.5}}, ["a", "b"])
    sure, sure_spread = judge_figures({"x": {"a": 1.0}, "y": {"b": 1.0}}, ["a", "b"])
    assert unsure == pytest.approx(1.0) and unsure_spread == pytest.approx(0.0)
    assert sure == pytest.approx(0.0) and sure_spread == pytest.approx(1.0)
    assert judge_figures({"cleanlab:m": {"a": 0.5, "b": 0.5}}, ["a", "b"]) == (None, None)


def test_a_pair_many_items_confuse_is_a_guideline_gap():
    items = _clear_items(30, np.random.default_rng(2))
    confused = [ItemEvidence(f"g{k}", "pos", {"a0": "pos", "a1": "neu", "a2": "pos", "a3": "neu", "a4": "neu"},
                             {"judge:x": {"pos": 0.45, "neu": 0.55}, "judge:y": {"pos": 0.5, "neu": 0.5}})
                for k in range(12)]
    result = triage([*items, *confused], labels=LABELS, flagged=[c.item for c in confused])
    assert result.gaps and set(result.gaps[0].pair) == {"pos", "neu"}
    assert result.gaps[0].n_items >= defaults.TRIAGE_GAP_MIN_ITEMS
    assert {t.klass for t in result.items} <= {GUIDELINE_GAP, LIKELY_ERROR}
    assert any(t.klass == GUIDELINE_GAP for t in result.items)


def test_thresholds_come_from_verdicts_only_when_there_are_enough():
    assert thresholds_from_verdicts([0.9, 0.1], [True, False]).source == "defaults"
    rng = np.random.default_rng(3)
    wrong = [k % 3 == 0 for k in range(40)]
    scores = [0.8 + 0.1 * rng.random() if w else 0.3 * rng.random() for w in wrong]
    learnt = thresholds_from_verdicts(scores, wrong)
    assert learnt.source == "verdicts (n=40)"
    assert 0.3 < learnt.error_cut <= min(s for s, w in zip(scores, wrong) if w)
    with pytest.raises(ValueError):
        Thresholds(error_cut=1.5)


def test_verdicts_that_the_posterior_does_not_separate_keep_the_defaults():
    """A score that ranks the reviewed errors no better than the rest: the best-F1 cut would call every
    suspect a likely error (seen on ChaosNLI with judges at chance), so the defaults stay, and say why."""
    wrong = [k % 4 == 0 for k in range(40)]
    scores = [0.5 if w else 0.5 + 0.01 * (k % 5) for k, w in enumerate(wrong)]  # the errors score lowest
    kept = thresholds_from_verdicts(scores, wrong)
    assert kept.error_cut == Thresholds().error_cut
    assert kept.source == "defaults (the 40 verdicts do not separate errors: no cut beats their error rate)"


def test_triage_items_reads_ledger_rows_and_skips_errored_ones():
    rows = []
    for k in range(40):
        lab = LABELS[k % 3]
        other = LABELS[(k + 1) % 3]
        flagged = k < 4
        shown = other if flagged else lab
        rows.append(ItemResult(id=str(k), original=lab, prediction=shown, confidence=0.9, probs={shown: 0.9},
                               flagged=flagged, members=(MemberResult("judge:x", probs={shown: 0.9, lab: 0.1}),)))
    rows.append(ItemResult(id="bad", original="pos", prediction=None, confidence=None, probs=None, flagged=False))
    result = triage_items(rows, labels=LABELS, crowd={"0": {"ann": "pos"}})
    assert [t.item for t in result.items] == ["0", "1", "2", "3"]
    assert "bad" not in result.posterior
    assert {q.source for q in result.sources} == {"judge:x", "original label", "annotators (pooled)"}


def test_push_routing_holds_ambiguous_suspects_back_unless_asked():
    from backend.review.triage_route import held_lines, route_suspects

    rows = []
    for k in range(45):
        lab = LABELS[k % 3]
        if k < 3:  # flagged, the judges confident: the label is wrong
            members = (MemberResult("judge:x", probs={"neu": 0.97, lab: 0.03}),
                       MemberResult("judge:y", probs={"neu": 0.95, lab: 0.05}))
            rows.append(ItemResult(id=str(k), original=lab if lab != "neu" else "pos", prediction="neu",
                                   confidence=0.96, probs={"neu": 0.96}, flagged=True, members=members))
        elif k < 6:  # flagged, both judges at a loss
            even = {x: 1 / 3 for x in LABELS}
            other = LABELS[(k + 1) % 3]
            rows.append(ItemResult(id=str(k), original=lab, prediction=other, confidence=0.34, probs=even,
                                   flagged=True, members=(MemberResult("judge:x", probs=even),
                                                          MemberResult("judge:y", probs=even))))
        else:
            members = (MemberResult("judge:x", probs={lab: 0.9, LABELS[(k + 1) % 3]: 0.1}),
                       MemberResult("judge:y", probs={lab: 0.9, LABELS[(k + 2) % 3]: 0.1}))
            rows.append(ItemResult(id=str(k), original=lab, prediction=lab, confidence=0.9, probs={lab: 0.9},
                                   flagged=False, members=members))
    candidates = [r for r in rows if r.flagged]
    sent, block = route_suspects(rows, candidates, spec=SPEC, include_ambiguous=False)
    held = {t["item"] for t in block["held"]}
    assert {"3", "4", "5"} <= held and not held & {str(r.id) for r in sent}
    assert [str(r.id) for r in sent] == [str(r.id) for r in candidates if str(r.id) not in held]
    assert any("held back for the lead" in line for line in held_lines(block))
    everything, block = route_suspects(rows, candidates, spec=SPEC, include_ambiguous=True)
    assert everything == candidates and block["held"] == []


def test_push_routing_is_not_applied_with_too_few_sources_or_no_distributions():
    from backend.review.triage_route import held_lines, route_suspects

    rows = [ItemResult(id=str(k), original="pos", prediction="neg", confidence=0.6, probs={"neg": 0.6},
                       flagged=True, members=(MemberResult("judge:x", probs={"neg": 0.34, "pos": 0.33, "neu": 0.33}),))
            for k in range(10)]
    rows.append(ItemResult(id="bare", original="pos", prediction="neg", confidence=0.99, probs=None, flagged=True))
    sent, block = route_suspects(rows, rows, spec=SPEC)
    assert sent == rows and block["held"] == []
    assert "not applied" in held_lines(block)[0]


def test_push_routing_reads_the_original_annotators_as_the_report_does(tmp_path):
    """The push's triage takes the crowd the ledger keeps: a suspect whose annotators split is held back
    as ambiguous, as the report's section (which reads the same crowd) calls it."""
    from backend.labelstudio.tasks import crowd_by_item
    from backend.ledger import Ledger
    from backend.ledger.store import CrowdLabel
    from backend.review.triage_route import route_suspects

    rows = []
    for k in range(45):
        lab = LABELS[k % 3]
        if k < 3:  # flagged, both judges confident the label is wrong
            members = (MemberResult("judge:x", probs={"neu": 0.97, "pos": 0.03}),
                       MemberResult("judge:y", probs={"neu": 0.95, "pos": 0.05}))
            rows.append(ItemResult(id=str(k), original="pos", prediction="neu", confidence=0.96,
                                   probs={"neu": 0.96}, flagged=True, members=members))
        else:
            members = (MemberResult("judge:x", probs={lab: 0.9, LABELS[(k + 1) % 3]: 0.1}),
                       MemberResult("judge:y", probs={lab: 0.9, LABELS[(k + 2) % 3]: 0.1}))
            rows.append(ItemResult(id=str(k), original=lab, prediction=lab, confidence=0.9, probs={lab: 0.9},
                                   flagged=False, members=members))
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    split = ["pos", "pos", "neu", "neu", "neg"]  # item 0: 2 of 5 gave the original label (p_d 0.4)
    ledger.record_crowd("p", [CrowdLabel("0", f"a{j}", lab, f"annotator {j}") for j, lab in enumerate(split)]
                        + [CrowdLabel("1", "b0", None, "annotator 0")])  # an unparsed label is left out
    crowd = crowd_by_item(lab for labs in ledger.crowd_labels("p").values() for lab in labs)
    assert crowd == {"0": {f"annotator {j}": lab for j, lab in enumerate(split)}}
    candidates = [r for r in rows if r.flagged]
    blind_sent, _ = route_suspects(rows, candidates, spec=SPEC, include_ambiguous=False)
    sent, block = route_suspects(rows, candidates, spec=SPEC, crowd=crowd, include_ambiguous=False)
    assert "0" in {str(r.id) for r in blind_sent}  # without the crowd nothing says the annotators split
    held = {t["item"]: t for t in block["held"]}
    assert "0" not in {str(r.id) for r in sent} and held["0"]["class"] == AMBIGUOUS
    assert any("annotators split" in reason for reason in held["0"]["reasons"])
    report_view = triage_items(rows, labels=LABELS, crowd=crowd)
    assert {t.item: t.klass for t in report_view.items}["0"] == held["0"]["class"]


def test_annotators_who_all_contradict_the_original_are_not_a_split():
    """An original imported as a data field that every annotator contradicts has p_d 0; they agree with
    each other, so that is the strongest sign of an error, not a split; a real split still is one."""
    rng = np.random.default_rng(1)
    items = _clear_items(30, rng)
    against = ItemEvidence("x", "pos", {f"a{j}": "neg" for j in range(5)},
                           {"judge:x": {"neg": 0.9, "pos": 0.1}, "judge:y": {"neg": 0.85, "pos": 0.15}})
    split = ItemEvidence("s", "pos", {"a0": "pos", "a1": "neg", "a2": "pos", "a3": "neg", "a4": "neu"},
                         {"judge:x": {"neg": 0.9, "pos": 0.1}, "judge:y": {"neg": 0.85, "pos": 0.15}})
    rows = {t.item: t for t in triage([*items, against, split], labels=LABELS, flagged=["x", "s"]).items}
    assert rows["x"].p_d == 0.0 and rows["x"].annotator_agreement == 1.0
    assert rows["x"].klass == LIKELY_ERROR
    assert not any("annotators split" in r for r in rows["x"].reasons)
    assert rows["s"].annotator_agreement == pytest.approx(0.4)
    assert any("annotators split" in r for r in rows["s"].reasons) and rows["s"].klass != LIKELY_ERROR


def test_judges_soft_on_every_item_are_unsure_only_above_their_usual_entropy():
    """A judge that is soft everywhere (entropy above the absolute cut on every item) does not make every
    suspect ambiguous: an item counts as unsure only above the judges' median over the project."""
    rng = np.random.default_rng(2)
    items = []
    for k in range(40):  # clear items: annotators agree, the judges lean to the label but stay soft
        lab = LABELS[k % 3]
        soft = {x: (0.45 if x == lab else 0.275) for x in LABELS}
        items.append(ItemEvidence(f"c{k}", lab, {f"a{j}": lab for j in range(3)},
                                  {"judge:x": soft, "judge:y": dict(soft)}))
    lean = {"neg": 0.5, "pos": 0.25, "neu": 0.25}  # as soft as the clear items' judges
    wrong = ItemEvidence("w", "pos", {f"a{j}": "neg" for j in range(3)}, {"judge:x": lean, "judge:y": dict(lean)})
    even = {x: 1 / 3 for x in LABELS}  # softer than usual: truly unsure
    lost = ItemEvidence("u", "pos", {"a0": "neg", "a1": "neg", "a2": "pos"}, {"judge:x": even, "judge:y": even})
    result = triage([*items, wrong, lost], labels=LABELS, flagged=["w", "u"])
    assert result.thresholds.entropy_usual is not None and result.thresholds.entropy_usual > 0.9
    rows = {t.item: t for t in result.items}
    assert rows["w"].judge_entropy >= result.thresholds.entropy_cut  # above the absolute cut ...
    assert not any("judges unsure" in r for r in rows["w"].reasons)  # ... but not above the usual
    assert rows["w"].klass == LIKELY_ERROR
    assert any("judges unsure" in r for r in rows["u"].reasons) and rows["u"].klass != LIKELY_ERROR
    with pytest.raises(ValueError):
        Thresholds(entropy_usual=1.5)


def test_unanimous_annotators_outweigh_unsure_judges():
    """Three annotators who all contradict an imported label make it a likely error even when the judges are
    more unsure than usual on it (seen in a report: such items were called guideline gaps)."""
    rng = np.random.default_rng(3)
    items = _clear_items(30, rng)
    even = {x: 1 / 3 for x in LABELS}
    against = ItemEvidence("x", "pos", {"a0": "neg", "a1": "neg", "a2": "neg"}, {"judge:x": even, "judge:y": even})
    (row,) = triage([*items, against], labels=LABELS, flagged=["x"]).items
    assert row.annotator_agreement == 1.0 and row.p_d == 0.0
    assert row.klass == LIKELY_ERROR
    assert any("but the annotators are unanimous" in r for r in row.reasons)
