"""Dawid–Skene on Snow et al. (2008)'s RTE crowd labels, and the per-annotator quality table.

Real data: /work/shared/data/snow2008/rte.standardized.tsv (800 items × 10 Turkers, expert gold).
Issue 22, finding 10: majority reaches 0.8969 against gold (ties counted 0.5), Dawid–Skene 0.9275.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from stats_cli.stats.crowd_quality import annotator_quality, dawid_skene

RTE = Path("/work/shared/data/snow2008/rte.standardized.tsv")


def _rte() -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    answers: dict[str, dict[str, str]] = {}
    gold: dict[str, str] = {}
    with RTE.open(newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            answers.setdefault(row["orig_id"], {})[row["!amt_worker_ids"]] = row["response"]
            gold[row["orig_id"]] = row["gold"]
    return answers, gold


@pytest.mark.skipif(not RTE.exists(), reason="the shared Snow et al. data is not on this machine")
def test_dawid_skene_beats_majority_on_rte() -> None:
    answers, gold = _rte()
    majority = 0.0
    for item, by in answers.items():
        counts = Counter(by.values()).most_common()
        tied = [lab for lab, n in counts if n == counts[0][1]]
        majority += (gold[item] in tied) / len(tied)  # a tie counts half
    assert majority / len(answers) == pytest.approx(0.8969, abs=5e-5)
    ds = dawid_skene(answers)
    accuracy = sum(ds.labels[i] == gold[i] for i in answers) / len(answers)
    assert accuracy == pytest.approx(0.9275, abs=5e-4)
    quality = annotator_quality(answers, gold, ds=ds)
    assert len(quality) == len({a for by in answers.values() for a in by})
    # D–S's gold-free estimate tracks each annotator's accuracy against gold
    busy = [q for q in quality if q.with_gold >= 40]
    assert busy and sum(abs(q.ds_accuracy - q.accuracy) for q in busy) / len(busy) < 0.06
    assert all(q.low <= q.accuracy <= q.high for q in busy)


def test_annotator_table_counts_confusion_and_leaves_no_gold_without_interval() -> None:
    answers = {"1": {"ann": "yes", "bob": "no"}, "2": {"ann": "no", "bob": "no"}, "3": {"ann": "yes"}}
    gold = {"1": "yes", "2": "yes", "3": None}
    ann, bob = annotator_quality(answers, gold)
    assert (ann.answered, ann.with_gold, ann.correct) == (3, 2, 1) and ann.confusion_text() == "no→yes ×1"
    assert bob.accuracy == 0.0 and bob.low == 0.0 and 0.5 < bob.high < 1.0 and bob.confusion_text() == "no→yes ×2"
    lone = annotator_quality({"1": {"cy": "a"}}, {"1": None})[0]
    assert lone.accuracy is None and lone.low is None
