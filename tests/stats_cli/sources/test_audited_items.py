"""Audited-items rows → strata: bad rows skipped with their reason, inclusion probabilities → strata sizes."""

from __future__ import annotations

import pytest

from stats_cli.sources.audited_items import audited_strata, read_audited
from stats_cli.sources.rows import Row


def rows(*records: dict) -> list[Row]:
    return [Row(line=i + 2, data=r) for i, r in enumerate(records)]


def test_bad_rows_are_counted_with_their_reason():
    errors = []
    items = read_audited(rows({"id": "a", "score": 0.2, "wrong": 1}, {"id": "", "score": 0.1},
                              {"id": "a", "score": 0.3}, {"id": "b", "score": "x"}, {"id": "c", "score": 0.5, "wrong": 2},
                              {"id": "d", "score": 0.5, "wrong": None, "p": 0}, {"id": "e"}), errors)
    assert list(items.scores) == ["a"]
    assert [e.line for e in errors] == [3, 4, 5, 6, 7, 8]
    assert "repeats line 2" in errors[1].message and "'wrong'" in errors[3].message and "'p'" in errors[4].message


def test_a_simple_random_sample_is_one_stratum_of_every_item():
    errors = []
    items = read_audited(rows(*({"id": str(i), "score": 0.1 * (i % 10), "wrong": (i % 3 == 0) if i < 30 else ""}
                                for i in range(100))), errors)
    (stratum,) = audited_strata(items)
    assert (stratum.population, stratum.sample, stratum.errors) == (100, 30, 10)
    assert stratum.score_total == pytest.approx(sum(items.scores.values()))


def test_inclusion_probabilities_make_the_strata():
    records = [{"id": f"f{i}", "score": 0.9, "wrong": i % 2 if i < 10 else None, "p": 0.5} for i in range(20)]
    records += [{"id": f"u{i}", "score": 0.1, "wrong": int(i == 0) if i < 10 else None, "p": 0.1} for i in range(100)]
    errors = []
    strata = audited_strata(read_audited(rows(*records), errors))
    assert not errors
    assert [(s.population, s.sample, s.errors) for s in strata] == [(100, 10, 1), (20, 10, 5)]
    blanks = [dict(r, p=None) if r["wrong"] is None else r for r in records]  # only the reviewed rows carry p
    assert [(s.population, s.sample) for s in audited_strata(read_audited(rows(*blanks), []))] == [(100, 10), (20, 10)]


def test_probabilities_that_do_not_fit_the_file_are_refused():
    records = [{"id": str(i), "score": 0.5, "wrong": 0 if i < 10 else None, "p": 0.5 if i < 10 else None}
               for i in range(100)]
    with pytest.raises(ValueError, match="imply 20 items, the file holds 100"):
        audited_strata(read_audited(rows(*records), []))


def test_a_reviewed_row_without_p_beside_rows_with_one_is_bad():
    errors = []
    items = read_audited(rows({"id": "a", "score": 0.2, "wrong": 1, "p": 0.5}, {"id": "b", "score": 0.2, "wrong": 0}),
                         errors)
    assert list(items.wrong) == ["a"] and errors[0].line == 3
