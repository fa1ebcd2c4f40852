"""The report's ensemble section: the verdicts per class against the project's labels, and the class it names.

Counts are recomputed here from the items the section reads; the reading of each class follows the 1.5x bar of
:mod:`backend.scoring.class_reach`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from stats_cli.report.build import build_report
from tests.stats_cli.report.builders import planted_audit

TITLE = "The verdicts per class against the project's labels"


def _table(data):
    section = build_report(data).section("ensemble")
    return section, next(t for t in section.tables if t.title.startswith(TITLE))


def test_verdicts_that_never_predict_a_class_name_it_under_read():
    data, _ = planted_audit()
    first, second = data.spec.labels[:2]
    skewed = replace(data, items=tuple(replace(it, prediction=first) for it in data.items))
    section, table = _table(skewed)
    labelled = Counter(it.original for it in skewed.items)
    n = len(skewed.items)
    assert table.rows == ((first, labelled[first], n, round(n / labelled[first], 2), "over-read"),
                          (second, labelled[second], 0, 0.0, "under-read"))
    assert table.title == f"{TITLE} ({n} labelled items)"
    assert any(f"\"{second}\" predicted for 0 items where {labelled[second]} carry it (under-read" in note
               for note in section.notes)


def test_verdicts_within_the_bar_are_said_within_and_add_no_note():
    data, _ = planted_audit()
    section, table = _table(data)
    labelled = Counter(it.original for it in data.items)
    predicted = Counter(it.prediction for it in data.items)
    assert [row[:3] for row in table.rows] == [(lab, labelled[lab], predicted[lab]) for lab in data.spec.labels]
    assert all(row[4] == "within 1.5x" for row in table.rows)  # the planted audit's verdicts are near its labels
    assert not any(note.startswith("Verdicts against the labels") for note in section.notes)
