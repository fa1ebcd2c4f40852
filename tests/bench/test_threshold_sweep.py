"""bench/bench_presentations.py's threshold sweep: what each flag threshold would flag, and the tables a default is
chosen on (bench/presentation_tables.py; the bar of issue 42: precision >= 0.5 at recall >= 0.5 on every run whose
judge is above 0.6 accuracy)."""

from __future__ import annotations

import json

import pytest

from tests.support.bench_module import load_bench_module


@pytest.fixture(scope="module")
def bench():
    return load_bench_module("bench_presentations")


@pytest.fixture(scope="module")
def tables():
    return load_bench_module("presentation_tables")


class _Verdict:
    def __init__(self, probs):
        self.probs = probs


def test_the_sweep_flags_by_each_threshold_over_the_same_probabilities(bench):
    labels = ["e", "n", "c"]
    # item: (verdict's probabilities, given label, true label)
    items = [({"e": 0.42, "n": 0.38, "c": 0.20}, "n", "e"),   # wrong label, flagged only at 0.35 and 0.40
             ({"e": 0.10, "n": 0.30, "c": 0.60}, "e", "c"),   # wrong label, flagged up to 0.55
             ({"e": 0.46, "n": 0.44, "c": 0.10}, "n", "n"),   # right label, a false flag up to 0.45
             ({"e": 0.80, "n": 0.10, "c": 0.10}, "e", "e"),   # right label, agreed: never flagged
             (None, "c", "c")]                               # no verdict: never flagged
    out = bench.sweep([_Verdict(p) for p, _, _ in items], labels, [t for *_, t in items], [g for _, g, _ in items])
    assert out["0.35"] == {"flagged": 3, "flag_precision": pytest.approx(2 / 3), "flag_recall": 1.0}
    assert out["0.45"] == {"flagged": 2, "flag_precision": 0.5, "flag_recall": 0.5}
    assert out["0.50"] == {"flagged": 1, "flag_precision": 1.0, "flag_recall": 0.5}
    assert out["0.60"] == {"flagged": 0, "flag_precision": None, "flag_recall": 0.0}
    assert list(out) == [f"{t:.2f}" for t in bench.THRESHOLDS]
    against = bench.sweep([_Verdict(p) for p, _, _ in items], labels, [t for *_, t in items],
                          [g for _, g, _ in items], rule=bench._against)
    # 1 - P(given): item 1 0.62, item 2 0.90, item 3 0.56 (the agreed item 4 never flags, whatever its mass)
    assert against["0.55"] == {"flagged": 3, "flag_precision": pytest.approx(2 / 3), "flag_recall": 1.0}
    assert against["0.60"] == {"flagged": 2, "flag_precision": 1.0, "flag_recall": 1.0}
    assert against["0.70"] == {"flagged": 1, "flag_precision": 1.0, "flag_recall": 0.5}


def test_the_table_counts_the_bar_only_on_runs_whose_judge_is_above_the_accuracy_floor(tables, tmp_path):
    def run(name, accuracy, at):
        cells = {f"{t:.2f}": {"flagged": 4, "flag_precision": 0.25, "flag_recall": 0.25} for t in tables.THRESHOLDS}
        cells.update(at)
        return {"data_set": name, "presentation": "codes", "items": 40, "gated": {"accuracy": accuracy},
                "sweep": {"gated": cells}}

    good = {"flagged": 6, "flag_precision": 0.5, "flag_recall": 0.75}
    runs = [run("a", 0.8, {"0.40": good, "0.50": good}), run("b", 0.7, {"0.40": good}),
            run("c", 0.55, {"0.50": good})]  # c: below the floor, its flags do not count
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in runs) + "\n", "utf-8")
    table = tables.threshold_table(path).splitlines()
    assert "a · codes (40, acc 0.80)" in table[0] and "c · codes (40, acc 0.55)" in table[0]
    row = {line.split(" | ")[0].strip("| "): line for line in table[2:]}
    assert row["0.40"].endswith("| 2 of 2 |") and row["0.50"].endswith("| 1 of 2 |")
    assert row["0.35"].endswith("| 0 of 2 |") and table[0].startswith("| top confidence > (gated)")
    assert "6, 0.50 / 0.75" in row["0.40"]


def test_natural_rows_keep_the_sets_proportions_and_balanced_rows_interleave_the_classes(bench, tmp_path):
    lines = []
    for uid, (label, top) in enumerate([("n", 90), ("n", 85), ("e", 95), ("n", 60), ("n", 81), ("c", 88), ("e", 80)]):
        lines.append(json.dumps({"uid": str(uid), "majority_label": label, "label_count": [top, 100 - top, 0],
                                 "example": {"premise": f"p{uid}", "hypothesis": f"h{uid}"}}))
    (tmp_path / "chaosNLI_snli.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    natural = bench.load_rows("snli", n_items=4, folder=tmp_path, balanced=False)
    assert [r["id"] for r in natural] == ["0", "1", "2", "4"]  # file order; item 3 (60 votes) is not clear
    balanced = bench.load_rows("snli", n_items=6, folder=tmp_path)
    assert [r["true"] for r in balanced] == ["e", "n", "c"]  # one round of e, n, c: c has one clear item


def test_the_docs_table_marks_a_run_of_one_prompt_as_that_prompt_alone(tables, tmp_path):
    """A ``--prompt`` run's "ensemble" is that prompt by itself: its rows must not read as the default ensemble's."""
    figures = {"accuracy": 0.78, "modal": "rotten", "modal_share": 0.72, "ratios": {"fresh": 0.56, "rotten": 1.44},
               "auroc": 0.87, "ap": 0.6, "flagged": 8, "flag_precision": 0.5, "flag_recall": 0.67,
               "seconds_per_item": 8.6}

    def run(prompts):
        return {"data_set": "rotten-tomatoes", "presentation": "codes+q", "items": 32, "planted": 6,
                "prompts": prompts, "members": {"generic-definitions@v3": figures}, "ensemble": figures,
                **{name: figures for name in tables.VARIANTS}, "gate": {"left_out": []}}

    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(run(["generic-definitions"])) + "\n" + json.dumps(run([])) + "\n", "utf-8")
    rows = tables.markdown(path).splitlines()[2:]
    alone = [r for r in rows if "generic-definitions only" in r]
    assert len(alone) == len(rows) // 2 and any("**ensemble**" in r for r in alone)
    assert "0.78 / rotten 72% / 0.56–1.44 / 0.87 / 0.60 / 8, 0.50 / 0.67" in alone[0]


def test_the_default_readings_table_names_the_choice_and_each_candidates_agreement(tables, tmp_path):
    def figures(accuracy, low, high, flagged):
        return {"accuracy": accuracy, "ratios": {"a": low, "b": high}, "auroc": 0.9, "ap": 0.7, "flagged": flagged,
                "flag_precision": 0.5, "flag_recall": 0.75}

    chose = {"data_set": "snli", "presentation": "hints", "items": 64, "planted": 13, "prompts": [],
             "gated": figures(0.64, 0.43, 1.67, 14), "gated+auto": figures(0.7, 0.86, 1.1, 13),
             "auto_choice": {"chosen": "given", "agreement": {"none": {"agree": 30, "of": 64},
                                                              "given": {"agree": 36, "of": 64}},
                             "refused": {"fitted": "too few labels"}}}
    small = {**chose, "items": 20, "gated+auto": chose["gated"],
             "auto_choice": {"chosen": None, "agreement": None, "note": "fewer than 30 scored items"}}
    alone = {**chose, "prompts": ["generic-definitions"]}  # one prompt's run is not the default ensemble
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (chose, small, alone)) + "\n", "utf-8")
    rows = tables.auto_table(path).splitlines()[2:]
    assert len(rows) == 2
    assert rows[0] == ("| snli · hints (64, 13) | 30 / 36 / refused | given | 0.64 / 0.43–1.67 / 0.90 / 0.70 / "
                       "14, 0.50 / 0.75 | 0.70 / 0.86–1.10 / 0.90 / 0.70 / 13, 0.50 / 0.75 |")
    assert "| not read | none (fewer than 30 scored items) |" in rows[1]


def test_the_readings_table_gives_each_candidates_agreement_and_true_figures_and_marks_a_refusal(tables, tmp_path):
    def figures(accuracy, flagged):
        return {"accuracy": accuracy, "ratios": {"a": 0.8, "b": 1.2}, "auroc": 0.9, "ap": 0.7, "flagged": flagged,
                "flag_precision": 0.5, "flag_recall": 0.75}

    run = {"data_set": "rt", "presentation": "values", "items": 32, "planted": 6, "prompts": [],
           "gated": figures(0.78, 11), "gated+given": figures(0.84, 10), "gated+fitted": figures(0.5, 2),
           "gated+auto": figures(0.84, 10),
           "auto_choice": {"chosen": "given", "agreement": {"none": {"agree": 19, "of": 32},
                                                            "given": {"agree": 21, "of": 32}},
                           "refused": {"fitted": "not applied: 32 labels"}}}
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(run) + "\n", "utf-8")
    row = tables.readings_table(path).splitlines()[2]
    assert row == ("| rt · values (32, 6) | given | 19 of 32: 0.78 / 0.80–1.20 / 0.90 / 0.70 / 11, 0.50 / 0.75 | "
                   "21 of 32: 0.84 / 0.80–1.20 / 0.90 / 0.70 / 10, 0.50 / 0.75 | refused |")


def test_the_summary_table_reads_the_default_path_and_names_the_most_collapsed_prompt(tables, tmp_path):
    def figures(accuracy, modal, share):
        return {"accuracy": accuracy, "modal": modal, "modal_share": share, "ratios": {"a": 0.5, "b": 1.5},
                "auroc": 0.8, "ap": 0.6, "flagged": 3, "flag_precision": 2 / 3, "flag_recall": 0.5}

    run = {"data_set": "rt", "presentation": "codes", "items": 12, "planted": 2, "llm_calls": 96, "prompts": [],
           "gated+auto": figures(0.58, "a", 0.75), "gated": figures(0.5, "a", 0.9),
           "members": {"p1@v1": figures(0.5, "a", 0.6), "p2@v3": figures(0.5, "b", 0.92)},
           "gate": {"left_out": [{"member": "local:m/p2@v3", "reason": "collapsed"}]},
           "auto_choice": {"chosen": None, "note": "not applied: 12 scored items"}}
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(run) + "\n", "utf-8")
    row = tables.summary_table(path).splitlines()[2]
    assert row == ("| rt · codes (12, 2; 96) | 0.58 | a 75% | 0.50–1.50 | 0.80 / 0.60 | 3, 0.67 / 0.50 | p2@v3 b 92% | "
                   "p2@v3 | none (under 30 items) |")


def test_the_pooled_table_sums_flags_and_classes_per_set_with_intervals(tables, tmp_path):
    def run(data_set, presentation, flagged, precision, planted, ratios, true_counts=None, *, items=40, accuracy=0.7,
            prompts=()):
        f = {"accuracy": accuracy, "flagged": flagged, "flag_precision": precision, "ratios": ratios,
             "ratio_min": min(ratios.values()), "ratio_max": max(ratios.values()),
             "flag_recall": round((precision or 0.0) * flagged) / planted}
        if true_counts:
            f["true_counts"] = true_counts
        return {"data_set": data_set, "presentation": presentation, "items": items, "planted": planted,
                "prompts": list(prompts), "gated+auto": f}

    runs = [run("snli", "values", 10, 0.6, 8, {"e": 1.2, "n": 0.5}, {"e": 20, "n": 20}),  # 6 hits of 8; ratio not
            run("snli", "aliases", 10, 0.6, 8, {"e": 1.2, "n": 0.5}, {"e": 20, "n": 20}),  # values' twin: once
            run("snli", "hints", 4, 0.5, 8, {"e": 1.1, "n": 0.9}, {"e": 20, "n": 20}),  # 2 hits: ratio met only
            run("snli", "hints", 1, 1.0, 4, {"e": 1.0, "n": 1.0}, {"e": 10, "n": 10}, items=20),  # its prefix: left out
            run("snli", "values+q", 5, 1.0, 8, {"e": 1.4, "n": 0.6}),  # no class counts: flags only
            run("snli", "aliases+q", 3, 1.0, 4, {"e": 1.0, "n": 1.0}, items=20),  # values+q's text on its prefix
            run("snli", "codes", 9, 0.0, 8, {"e": 2.0, "n": 0.0}, {"e": 20, "n": 20}, accuracy=0.5),  # below the floor
            run("snli", "codes+q", 9, 0.0, 8, {"e": 1.0, "n": 1.0}, {"e": 20, "n": 20}, prompts=["one"]),  # one prompt
            run("snli (natural)", "values", 0, None, 6, {"e": 1.0, "n": 1.0}, {"e": 30, "n": 10})]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in runs) + "\n", "utf-8")
    rows = tables.pooled_table(path).splitlines()[2:]
    snli, natural = rows
    # values, hints (40), values+q: 6 + 2 + 5 = 13 hits of 19 flags and of 24 wrong labels; flags met on values
    # and values+q; classes from values and hints: e (24 + 22) / 40, n (10 + 18) / 40; codes under the floor
    assert snli.startswith("| snli (3; 120; 24; 1) | 1 / 2 / 0 | 19 | 0.68 [")
    assert "| 0.54 [" in snli and snli.endswith("| 0.70–1.15 |")
    low, high = snli.split("| 0.68 [")[1].split("]")[0].split(", ")
    assert 0.4 < float(low) < 0.68 < float(high) < 0.9  # Clopper-Pearson, wider than the point on both sides
    assert natural == "| snli (natural) (1; 40; 6; 0) | 1 / 0 / 0 | 0 | - | 0.00 [0.00, 0.46] | 1.00–1.00 |"


def test_the_reach_table_sets_the_classes_named_against_the_labels_beside_the_true_ratio(tables, tmp_path):
    def run(presentation, ratios, under=(), over=(), *, reach=True):
        classes = [{"label": "e", "labelled": 20, "predicted": 20 if "e" not in under + over else 8},
                   {"label": "n", "labelled": 20, "predicted": 20 if "n" not in under + over else 31}]
        out = {"data_set": "snli", "presentation": presentation, "items": 40, "planted": 8, "prompts": [],
               "gated+auto": {"ratio_min": min(ratios), "ratio_max": max(ratios)}}
        if reach:
            out["class_reach"] = {"classes": classes, "under": list(under), "over": list(over)}
        return out

    runs = [run("values", (0.4, 1.6), under=("e",), over=("n",)),  # named, missed
            run("hints", (0.9, 1.1)),  # quiet, met
            run("codes", (0.5, 1.2)),  # quiet, missed
            run("aliases", (1.0, 1.0), over=("n",)),  # named, met
            run("values+q", (0.1, 2.0), under=("e",), reach=False)]  # recorded before the check: left out
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in runs) + "\n", "utf-8")
    lines = tables.reach_table(path).splitlines()
    assert lines[2:6] == ["| snli · values (40, 8) | e 8 of 20 (under); n 31 of 20 (over) | 0.40–1.60 | no |",
                          "| snli · hints (40, 8) | none | 0.90–1.10 | yes |",
                          "| snli · codes (40, 8) | none | 0.50–1.20 | no |",
                          "| snli · aliases (40, 8) | n 31 of 20 (over) | 1.00–1.00 | yes |"]
    assert lines[-1] == "Named on 1 of the 2 runs that miss the bar and on 1 of the 2 that meet it."
