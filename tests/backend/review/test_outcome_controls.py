"""Gold of an item with several controls: round 1 and round 2 decided per control through the family."""

from __future__ import annotations

from backend.labelstudio.projectspec import spec_from_label_config
from backend.review.outcome import GoldStatus, decide_outcome, experts_split
from backend.scoring.results import ItemResult

DIMS = ("coherence", "fluency")
CONFIG = "<View><Text name=\"summary\" value=\"$summary\"/>" + "".join(
    f'<Choices name="{d}" toName="summary" choice="single-radio">'
    + "".join(f'<Choice value="{v}"/>' for v in range(1, 6)) + "</Choices>" for d in DIMS) + "</View>"
SPEC = spec_from_label_config(CONFIG)
FAMILY = SPEC.task_family


def v(coherence: int | None, fluency: int | None) -> str:
    return FAMILY.encode_controls(SPEC, {"coherence": coherence and str(coherence), "fluency": fluency and str(fluency)})


def verdict(original: str, prediction: str) -> ItemResult:
    return ItemResult(id="1", original=original, prediction=prediction, confidence=0.9, probs={}, flagged=True)


def test_round_one_split_is_per_control():
    assert not experts_split(SPEC, [v(4, 5), v(4, 5)])
    assert not experts_split(SPEC, [v(4, 5), v(3, 5)])  # ordinal: one grade apart is within delta
    assert experts_split(SPEC, [v(4, 5), v(3, 5)], delta=0)
    assert experts_split(SPEC, [v(4, 5), v(2, 5)])
    assert not experts_split(SPEC, [v(4, 5)])  # one expert: nothing to split


def test_round_two_agrees_on_the_disputed_control_even_if_an_agreed_one_is_re_answered_differently():
    result = verdict(original=v(2, 4), prediction=v(4, 4))
    outcome = decide_outcome(result, SPEC, experts=["a", "b"], round1={"a": v(4, 5), "b": v(2, 5)},
                             round2={"a": v(4, None), "b": v(4, 2)}, routed=True)  # b re-answers fluency: ignored
    assert outcome.status is GoldStatus.RECONCILED
    # coherence: the experts' round-2 answer (the ensemble disputed the original); fluency: the ensemble agrees
    # with the original 4, so the original stays although both experts said 5 in round 1
    assert FAMILY.control_values(SPEC, outcome.gold) == {"coherence": "4", "fluency": "4"}


def test_round_two_still_split_on_the_disputed_control_is_unresolved():
    result = verdict(original=v(2, 4), prediction=v(4, 4))
    outcome = decide_outcome(result, SPEC, experts=["a", "b"], round1={"a": v(4, 5), "b": v(2, 5)},
                             round2={"a": v(4, 5), "b": v(2, 5)}, routed=True)
    assert outcome.status is GoldStatus.SPLIT_UNRESOLVED and outcome.gold is None


def test_round_one_agreement_settles_every_control_with_the_per_control_gold_rule():
    result = verdict(original=v(2, 4), prediction=v(4, 4))
    outcome = decide_outcome(result, SPEC, experts=["a", "b"], round1={"a": v(5, 3), "b": v(5, 3)}, routed=True)
    assert outcome.status is GoldStatus.EXPERTS_AGREE
    assert FAMILY.control_values(SPEC, outcome.gold) == {"coherence": "5", "fluency": "4"}
