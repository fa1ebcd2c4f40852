"""bench/triage_rte.py on the real RTE crowd (Snow et al. 2008: 800 items x 10 named Turkers, expert gold).

The data lies in ``../shared/data/snow2008/`` beside the checkout (not copied into the repository); the
tests skip where it is absent. They assert what the benchmark claims for named workers: one confusion
matrix per worker ranks the errors of a 5-worker majority better than the workers' own split does and
sends fewer items to the experts per confirmed error, while a pooled crowd reduces the truth to the
majority and calls nothing a likely error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from triage_rte import evaluate_rte, load_rte  # noqa: E402

RTE = next((p for p in (ROOT.parent / "shared" / "data" / "snow2008" / "rte.standardized.tsv",
                        Path("/work/shared/data/snow2008/rte.standardized.tsv")) if p.exists()), None)
needs_rte = pytest.mark.skipif(RTE is None, reason="the shared Snow et al. data is not beside the checkout")


def test_an_even_number_of_workers_is_refused(tmp_path):
    with pytest.raises(ValueError, match="odd"):
        load_rte(tmp_path / "none.tsv", k=2)


@needs_rte
def test_the_majority_of_the_first_workers_is_the_original_label():
    rows = load_rte(RTE, k=3)
    assert len(rows) == 800
    assert all(len(r["annotations"]) == 3 for r in rows)
    assert all(list(r["annotations"].values()).count(r["old"]) >= 2 for r in rows)


@needs_rte
def test_per_worker_truth_ranks_errors_better_than_the_crowd_split():
    out = evaluate_rte(load_rte(RTE, k=5), pool=False, anchored=0.0, seed=0)
    assert out["ap_posterior"] > out["ap_crowd_share"] + 0.1
    assert out["posterior_accuracy"] > out["majority_accuracy"]
    assert out["likely_error"]["precision"] > out["errors"] / out["items"] * 3
    assert out["routed_per_error_after"] < out["routed_per_error_before"]


@needs_rte
def test_a_pooled_crowd_is_its_majority_and_names_no_likely_error():
    out = evaluate_rte(load_rte(RTE, k=3), pool=True, anchored=0.0, seed=0)
    assert out["posterior_accuracy"] == pytest.approx(out["majority_accuracy"])
    assert out["likely_error"]["said"] == 0


@needs_rte
def test_anchored_items_leave_every_figure_and_their_verdicts_set_the_cut():
    rows = load_rte(RTE, k=3)
    out = evaluate_rte(rows, pool=False, anchored=0.1, seed=0)
    blind = evaluate_rte(rows, pool=False, anchored=0.0, seed=0)
    assert out["variant"]["anchored"] + out["items"] == len(rows)
    assert out["thresholds"]["source"].startswith("verdicts")  # the 70 verdicts separate errors here
    assert out["likely_error"]["recall"] > blind["likely_error"]["recall"]
