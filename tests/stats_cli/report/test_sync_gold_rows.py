"""Gold rows and training-set modes (Nahum §7.1) on test-built inputs."""

from __future__ import annotations

import csv
import json

import pytest

from stats_cli.sources.gold_export import choice_values, gold_rows, write_gold_file
from tests.stats_cli.report.builders import planted_audit


def test_correct_mode_uses_expert_gold_and_keeps_the_rest():
    data, truth = planted_audit()
    rows = {r.id: r for r in gold_rows(data, mode="correct")}
    for item_id in data.reviews:
        assert rows[item_id].label == truth[item_id] and rows[item_id].source == "experts"
    corrected = [r for r in rows.values() if r.action == "corrected"]
    assert len(corrected) == 9
    assert all(r.label == r.original for r in rows.values() if r.id not in data.reviews)


def test_flip_and_filter_touch_only_unreviewed_flags_above_threshold():
    data, truth = planted_audit(reviewed_share=0.5)
    unreviewed = [it for it in data.items if it.flagged and str(it.id) not in data.reviews]
    cut = sorted(it.confidence for it in unreviewed)[len(unreviewed) // 2]
    flip = {r.id: r for r in gold_rows(data, mode="flip", threshold=cut)}
    drop = {r.id: r for r in gold_rows(data, mode="filter", threshold=cut)}
    for it in unreviewed:
        above = it.confidence >= cut
        assert flip[str(it.id)].action == ("flipped" if above else "kept")
        assert flip[str(it.id)].label == (it.prediction if above else it.original)
        assert drop[str(it.id)].action == ("dropped" if above else "kept")
    for item_id in data.reviews:  # expert decisions always win
        assert flip[item_id].label == drop[item_id].label == truth[item_id]
    with pytest.raises(ValueError):
        gold_rows(data, mode="shuffle")  # type: ignore[arg-type]


def test_gold_file_round_trip_jsonl_and_csv(tmp_path):
    data, _ = planted_audit(reviewed_share=0.5)
    rows = gold_rows(data, mode="filter", threshold=0.5)
    dropped = sum(r.action == "dropped" for r in rows)
    assert dropped > 0
    n = write_gold_file(rows, tmp_path / "gold.jsonl")
    lines = [json.loads(x) for x in (tmp_path / "gold.jsonl").read_text().splitlines()]
    assert n == len(lines) == len(rows) - dropped
    assert set(lines[0]) >= {"id", "original", "gold", "source", "label", "prediction", "confidence"}
    write_gold_file(rows, tmp_path / "gold.csv")
    with (tmp_path / "gold.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == n
    with pytest.raises(ValueError):
        write_gold_file(rows, tmp_path / "gold.txt")


def test_choice_values_map_aliases_to_stored_values():
    config = ("<View><Text name='t' value='$text'/><Choices name='label' toName='t'>"
              "<Choice value='Consistent' alias='1'/><Choice value='0'/></Choices></View>")
    assert choice_values(config, control="label") == {"1": "Consistent", "0": "0"}


def test_flip_and_filter_leave_items_experts_reviewed_but_did_not_settle():
    # the split item t11 is answered by both experts but not reconciled: it was reviewed, so
    # flip/filter (which act only on flags no expert reviewed) keep its original label
    data, _ = planted_audit(reconcile=False)
    split = data.items[11]
    assert split.flagged and str(split.id) in data.reviews and data.gold(split)[0] is None
    for mode in ("flip", "filter"):
        row = next(r for r in gold_rows(data, mode=mode, threshold=0.0) if r.id == str(split.id))
        assert (row.action, row.label) == ("kept", split.original)


def test_gold_csv_neutralises_formulas_and_keeps_the_old_file_when_writing_fails(tmp_path):
    from dataclasses import replace

    data, _ = planted_audit()
    rows = gold_rows(data, mode="correct")
    rows[0] = replace(rows[0], id="=HYPERLINK(\"http://x.test\")", original="@SUM(1)")
    path = tmp_path / "gold.csv"
    write_gold_file(rows, path)
    with path.open(newline="", encoding="utf-8") as handle:
        first = next(csv.DictReader(handle))
    assert (first["id"], first["original"]) == ("'=HYPERLINK(\"http://x.test\")", "'@SUM(1)")
    assert first["confidence"] == str(rows[0].confidence)  # numbers are left alone

    before = path.read_bytes()

    class Unwritable(float):
        def __str__(self):
            raise RuntimeError("disk went away")

        __repr__ = __str__

    with pytest.raises(RuntimeError):  # fails half-way through the rows
        write_gold_file(rows[:3] + [replace(rows[3], confidence=Unwritable(0.5))] + rows[4:], path)
    assert path.read_bytes() == before  # the previous file is intact, not truncated
    assert [p.name for p in tmp_path.iterdir()] == ["gold.csv"]
