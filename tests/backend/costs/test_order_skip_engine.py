"""``order_skip``: the engine leaves an item's second option order unasked only where the first settles its flag.

A test judge reads the item's text (``politics 0.95``: that label, that sure) and answers the letter its label
has in the order asked. Above a threshold of 0.5 an item sure of its own label settles unflagged (the second
order can lift another class to 0.5 + its first-order mass / 2 at most); an item sure of another label stays open
(the second order could still side with the original). The flags are the full run's either way.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from backend.providers.base import ClassDistribution
from backend.scoring.engine_config import EngineConfig
from backend.scoring.members import MemberSpec, build_members
from backend.scoring.question_engine import make_engine
from backend.task.dataset import Item
from backend.task.generic import generic_spec

LABELS = ["sport", "politics", "science"]
ITEMS = [Item(id="right", original="sport", fields={"text": "sport 0.95"}),
         Item(id="wrong", original="sport", fields={"text": "politics 0.95"}),
         Item(id="unsure", original="science", fields={"text": "science 0.5"})]


class ContentJudge:
    """Answers the label named in the item's text with the share it states, the rest spread evenly."""

    name, model = "content", "content-1"

    def __init__(self) -> None:
        self.calls = 0

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float) -> ClassDistribution:
        self.calls += 1
        label, share = re.search(r"(sport|politics|science) ([0-9.]+)", prompt).groups()  # type: ignore[union-attr]
        letter = re.search(rf"^([A-Z])\. {label}$", prompt, re.M).group(1)  # type: ignore[union-attr]
        rest = (1 - float(share)) / (len(labels) - 1)
        return ClassDistribution(probs={t: float(share) if t == letter else rest for t in labels}, raw_mass=1.0,
                                 method="logits")

    def cache_params(self) -> Mapping[str, Any]:
        return {"kind": "content"}


def _run(threshold: float, order_skip: bool) -> tuple[list, int]:
    spec = generic_spec(labels=LABELS, fields=["text"], option_orders=2)
    judge = ContentJudge()
    members = build_members([MemberSpec(provider=judge.name, model=judge.model, prompts=("generic-question",))],
                            spec, provider_factory=lambda e: judge)
    engine = make_engine(spec, members, cache=None, config=EngineConfig(threshold=threshold, order_skip=order_skip))
    return list(engine.score(ITEMS)), judge.calls


def test_above_half_the_item_sure_of_its_label_skips_its_second_order():
    full, full_calls = _run(0.75, order_skip=False)
    skipped, calls = _run(0.75, order_skip=True)
    assert (full_calls, calls) == (6, 4)  # "right" and "unsure" settle unflagged; "wrong" is asked twice
    assert [r.flagged for r in skipped] == [r.flagged for r in full] == [False, True, False]
    assert [len(r.questions[1].members) for r in skipped] == [0, 1, 0]
    assert skipped[1].probs == full[1].probs and skipped[0].probs == skipped[0].questions[0].probs


def test_at_half_every_item_is_asked_in_both_orders():
    full, _ = _run(0.5, order_skip=False)
    skipped, calls = _run(0.5, order_skip=True)
    assert calls == 6 and [(r.flagged, r.probs) for r in skipped] == [(r.flagged, r.probs) for r in full]


def test_the_setting_reaches_the_engine_config_and_is_off_by_default():
    from backend.config.settings import Settings

    from backend.scoring.order_skip import OrderSkip

    assert Settings.from_env({}).engine_config().order_skip == OrderSkip() and not OrderSkip()
    assert Settings.from_env({"LABEL_AUDIT_ORDER_SKIP": "true"}).engine_config().order_skip == OrderSkip("exact")
