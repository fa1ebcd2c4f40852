"""Early exit gives the full ensemble's flag and prediction, whatever the skipped members say.

Checked exhaustively on a grid of binary answers (ties and one-hot answers included, failures too) and
with hypothesis on ordinal answers; every prefix that claims to be settled must match the full verdict.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from backend.scoring.early_exit import more_needed, settled
from backend.scoring.ensemble import Quorum, VerdictRule, normalize, verdict
from backend.task.spec import load_spec

BIN = load_spec("factual-consistency")
REL = load_spec("relevance")
LIK = load_spec("likert")


def _check(answers, models, original, spec, *, threshold, quorum) -> int:
    """Assert every settled prefix matches the full verdict; return how many calls early exit skips."""
    rule = VerdictRule(spec, threshold=threshold, quorum=quorum)
    full = verdict(answers, models, original, rule)
    for called in range(1, len(answers) + 1):
        early = settled(answers[:called], models[:called], models, original, rule)
        if early is None:
            ahead = more_needed(answers[:called], len(answers), spec)
            assert ahead >= 1
            for sooner in range(called + 1, min(called + ahead, len(answers) + 1)):  # sending `ahead` at once wastes none
                assert settled(answers[:sooner], models[:sooner], models, original, rule) is None
            if called == len(answers):
                assert full is None, "with every member heard, only an item nobody answered is unsettled"
            continue
        assert full is not None
        assert (early.prediction, early.flagged, early.insufficient) == (full.prediction, full.flagged, full.insufficient)
        return len(answers) - called
    return 0


GRID = [None, {"0": 1.0, "1": 0.0}, {"0": 0.75, "1": 0.25}, {"0": 0.5, "1": 0.5}, {"0": 0.25, "1": 0.75},
        {"0": 0.0, "1": 1.0}, {"0": 0.03, "1": 0.97}]


def test_exhaustive_binary_grid_matches_the_full_ensemble():
    models = ["a", "a", "b", "b"]
    saved = 0
    for answers in itertools.product(GRID, repeat=4):
        for original in ("0", "1", None):
            for threshold in (0.5, 0.6, 0.75, 0.9):
                for quorum in (Quorum(), Quorum(min_share=0.25, every_model=False)):
                    saved += _check(list(answers), models, original, BIN, threshold=threshold, quorum=quorum)
    assert saved > 0  # the bound does stop items, it is not vacuous


def _dist(labels):
    return st.one_of(
        st.none(),
        st.sampled_from(labels).map(lambda lab: {x: float(x == lab) for x in labels}),  # one-hot
        st.lists(st.floats(0.0, 1.0), min_size=len(labels), max_size=len(labels))
        .filter(lambda v: sum(v) > 1e-6).map(lambda v: normalize(dict(zip(labels, v)), labels)),  # as the engine stores them
    )


@settings(max_examples=400, deadline=None)
@given(
    data=st.data(),
    spec=st.sampled_from([REL, LIK, BIN]),
    n=st.integers(1, 8),
    threshold=st.sampled_from([0.0, 0.2, 0.5, 0.7, 0.95]),
    share=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_random_members_match_the_full_ensemble(data, spec, n, threshold, share):
    answers = data.draw(st.lists(_dist(spec.labels), min_size=n, max_size=n))
    models = data.draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    original = data.draw(st.sampled_from([*spec.labels, None]))
    _check(answers, models, original, spec, threshold=threshold, quorum=Quorum(min_share=share, every_model=share > 0))


def test_confident_agreeing_members_stop_at_the_quorum():
    sure = {"0": 0.02, "1": 0.98}
    models = ["a"] * 4 + ["b"] * 4
    assert settled([sure] * 3, models[:3], models, "1", VerdictRule(BIN)) is None  # model b not heard yet
    assert settled([sure] * 3 + [None], ["a", "a", "a", "b"], models, "1", VerdictRule(BIN)) is None  # b failed: no quorum yet
    done = settled([sure] * 4 + [sure], models[:4] + ["b"], models, "1", VerdictRule(BIN))
    assert done is not None and not done.flagged and done.prediction == "1"
    # a confident disagreement is settled as flagged once the rest cannot pull the confidence under 0.5
    flagged = settled([sure] * 4 + [sure] * 2, models[:6], models, "0", VerdictRule(BIN))
    assert flagged is not None and flagged.flagged
    assert settled([sure] * 4 + [sure] * 2, models[:6], models, "0", VerdictRule(BIN, threshold=0.9)) is None
