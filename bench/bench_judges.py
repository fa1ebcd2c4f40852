"""Benchmark: does each judge (model x prompt) judge? Accuracy, collapse, position bias, planted errors.

Run (the real model is opt-in: its path in ``LABEL_AUDIT_QWEN_GGUF``)::

    python bench/bench_judges.py [--member local:smollm2 --member local:/path/model.gguf]
        [--data-set question-types --data-set chaosnli] [--items 60] [--orders 1,2]
        [--calibration none,content-free] [--confident] [--json bench_judges.json]

Everything goes through the tool's own path: the spec comes from a Label Studio label config
(``<Header>`` question, ``<Choices>`` with code aliases and hints: :func:`spec_from_label_config`), each
member list is scored by :func:`backend.scoring.question_engine.make_engine` (the option orders of
:mod:`backend.task.option_orders`, the contextual calibration of :mod:`backend.scoring.contextual_calibration`, the
ensemble's verdict and flag rule) with the call cache, so a re-run costs nothing (a calibrated run reuses
the items' calls and adds two content-free calls per member x order).

Data sets, each with true labels and 10 % of them planted wrong (replaced by another class, fixed seed):

- ``question-types``: 120 questions written for this benchmark (``bench/data/question_types.jsonl``; no
  small question-type set ships in a package), each with its TREC coarse class (Li & Roth 2002: ABBR,
  DESC, ENTY, HUM, LOC, NUM) shown to the judge under its meaning ("Abbreviation"...), the alias being
  the stored label; interleaved by class, so the first ``--items`` are balanced;
- ``chaosnli``: ChaosNLI v1.0, SNLI part (Nie, Zhou & Bansal, EMNLP 2020; CC BY-NC 4.0; read from
  ``../shared/data/chaosnli/`` beside the checkout, never copied here): items whose 100-vote majority
  holds at least 80 votes, the true label being that majority.

Figures per member x prompt (its distribution averaged over the orders asked) and for the ensemble:
accuracy against the true labels; the modal answer's share; accuracy by the true label's letter in the
order as given (A, B, C...); the largest and smallest ratio of a class's predicted count to its true
count; AUROC and average precision of the planted errors (score: 1 - the probability of the given
label); for the ensemble the flag rule's precision and recall; seconds per call (the call's own
latency, kept in the cache); calls per item. ``--json`` writes every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from backend.confident.fitting import is_confident, prepare_members  # noqa: E402
from backend.config.settings import Settings  # noqa: E402
from backend.task.dataset import Item  # noqa: E402
from backend.labelstudio.projectspec import spec_from_label_config  # noqa: E402
from backend.scoring.cache import CallCache  # noqa: E402
from backend.scoring.contextual_calibration import MODES, check_mode, with_calibration  # noqa: E402
from backend.scoring.engine_config import EngineConfig  # noqa: E402
from backend.scoring.ensemble import argmax  # noqa: E402
from backend.scoring.members import MemberSpec, build_members, parse_member_arg  # noqa: E402
from backend.task.option_orders import with_option_orders  # noqa: E402
from backend.families.orders import position_flips  # noqa: E402
from backend.scoring.question_engine import make_engine  # noqa: E402

QWEN_ENV = "LABEL_AUDIT_QWEN_GGUF"
CHAOSNLI = ROOT.parent / "shared" / "data" / "chaosnli" / "chaosNLI_snli.jsonl"
QUESTIONS = ROOT / "bench" / "data" / "question_types.jsonl"
PLANTED_RATE = 0.10
CONFIDENT = MemberSpec(provider="cleanlab", model="tfidf-logreg", options={"min_per_class": 3, "folds": 3})

QUESTION_CONFIG = """<View>
  <Text name="question" value="$question"/>
  <Header value="What kind of answer does the question ask for?"/>
  <Choices name="label" toName="question" choice="single">
    <Choice value="Abbreviation" alias="ABBR" hint="what an abbreviation stands for, or the short form of something"/>
    <Choice value="Description" alias="DESC" hint="a definition, a description, a manner or a reason (what is, how, why)"/>
    <Choice value="Entity" alias="ENTY" hint="a thing: an animal, colour, work, food, language, product, sport, substance, word..."/>
    <Choice value="Human" alias="HUM" hint="a person, a group or an organisation, or a description of one (who)"/>
    <Choice value="Location" alias="LOC" hint="a place: a city, country, mountain, state or other location (where)"/>
    <Choice value="Number" alias="NUM" hint="a number: a count, date, distance, price, percentage, size, speed, age..."/>
  </Choices>
</View>"""
QUESTION_GUIDELINES = ("Label each question by the type of its expected answer, not by its topic: "
                       "'Who wrote Hamlet?' expects a human, 'When was Rome founded?' a number (a date).")

NLI_CONFIG = """<View>
  <Header value="Premise"/>
  <Text name="premise" value="$premise"/>
  <Header value="Hypothesis"/>
  <Text name="hypothesis" value="$hypothesis"/>
  <Header value="Given the premise, is the hypothesis true?"/>
  <Choices name="label" toName="premise" choice="single">
    <Choice value="Entailment" alias="entailment" hint="the hypothesis is definitely true given the premise"/>
    <Choice value="Neutral" alias="neutral" hint="the hypothesis might be true or false given the premise"/>
    <Choice value="Contradiction" alias="contradiction" hint="the hypothesis is definitely false given the premise"/>
  </Choices>
</View>"""
NLI_GUIDELINES = "Judge only from the premise; do not use outside knowledge beyond common sense."
NLI_SHORT = {"e": "entailment", "n": "neutral", "c": "contradiction"}


def load_rows(name: str, *, n_items: int, chaosnli: Path = CHAOSNLI) -> tuple[str, str, list[dict[str, Any]]]:
    """(label config, guidelines, rows with ``id``, ``fields``, ``true``) of a data set, first ``n_items``."""
    if name == "question-types":
        rows = [json.loads(line) for line in QUESTIONS.read_text("utf-8").splitlines() if line.strip()]
        rows = [{"id": r["id"], "fields": {"question": r["question"]}, "true": r["label"]} for r in rows]
        return QUESTION_CONFIG, QUESTION_GUIDELINES, rows[:n_items]
    if name == "chaosnli":
        if not chaosnli.is_file():
            raise SystemExit(f"no ChaosNLI file at {chaosnli} (../shared beside the checkout): pass --chaosnli")
        rows = []
        for line in chaosnli.read_text("utf-8").splitlines():
            raw = json.loads(line)
            if max(raw["label_count"]) >= 80:  # a clear 100-vote majority is the true label
                rows.append({"id": raw["uid"], "true": NLI_SHORT[raw["majority_label"]],
                             "fields": {"premise": raw["example"]["premise"],
                                        "hypothesis": raw["example"]["hypothesis"]}})
        by_class: dict[str, list] = {}
        for row in rows:
            by_class.setdefault(row["true"], []).append(row)
        mixed = [r for group in zip(*by_class.values()) for r in group]  # balanced, in file order
        return NLI_CONFIG, NLI_GUIDELINES, mixed[:n_items]
    raise SystemExit(f"unknown data set {name!r}: question-types or chaosnli")


def plant(true: Sequence[str], labels: Sequence[str], *, rate: float, seed: int) -> list[str]:
    """``true`` with round(rate * n) labels replaced by another class, uniformly (fixed seed)."""
    rng = np.random.default_rng(seed)
    given = list(true)
    for i in rng.choice(len(true), size=round(rate * len(true)), replace=False):
        others = [c for c in labels if c != true[i]]
        given[i] = others[int(rng.integers(len(others)))]
    return given


def _ranking(scores: Sequence[float], wrong: Sequence[bool]) -> dict[str, float | None]:
    from sklearn.metrics import average_precision_score, roc_auc_score

    if not any(wrong) or all(wrong):
        return {"auroc": None, "ap": None}
    return {"auroc": float(roc_auc_score(wrong, scores)), "ap": float(average_precision_score(wrong, scores))}


def judge_figures(probs: Sequence[dict[str, float] | None], true: Sequence[str], given: Sequence[str],
                  labels: Sequence[str]) -> dict[str, Any]:
    """Accuracy, modal share, accuracy by the true label's letter, class ratios, planted-error ranking."""
    ok = [i for i, p in enumerate(probs) if p is not None]
    if not ok:
        return {"answered": 0}
    preds = [argmax(probs[i], labels) for i in ok]  # type: ignore[arg-type]
    counts = Counter(preds)
    modal, modal_n = counts.most_common(1)[0]
    by_letter = {}
    for pos, label in enumerate(labels):
        idx = [j for j, i in enumerate(ok) if true[i] == label]
        if idx:
            by_letter[chr(ord("A") + pos)] = sum(preds[j] == label for j in idx) / len(idx)
    true_counts = Counter(true[i] for i in ok)
    ratios = {lab: counts.get(lab, 0) / true_counts[lab] for lab in labels if true_counts.get(lab)}
    scores = [1.0 - float(probs[i].get(given[i], 0.0)) for i in ok]  # type: ignore[union-attr]
    wrong = [given[i] != true[i] for i in ok]
    return {"answered": len(ok), "accuracy": sum(p == true[i] for p, i in zip(preds, ok)) / len(ok),
            "modal": modal, "modal_share": modal_n / len(ok), "accuracy_by_letter": by_letter,
            "ratio_max": max(ratios.values()), "ratio_min": min(ratios.values()), "ratios": ratios,
            "true_counts": {lab: true_counts[lab] for lab in labels if true_counts.get(lab)},
            **_ranking(scores, wrong)}


def run(spec, entries: Sequence[MemberSpec], items: list[Item], cache: CallCache) -> tuple[list, dict]:
    """The tool's own scoring of ``items`` (members built, confident ones fitted, the family's engine), and the
    content-free priors of a calibrated spec (per order, per member id)."""
    settings = Settings.from_env(members=tuple(entries))  # their API keys and the models folder, from this process
    members = build_members(entries, spec, providers=settings.provider_settings(), prompts_root=settings.prompts_dir)
    if any(is_confident(m) for m in members):
        members = prepare_members(members, items, spec, delimit=True).members
    engine = make_engine(spec, members, cache=cache, config=EngineConfig(concurrency=1))
    results = list(engine.score(items))
    engines = getattr(engine, "engines", [engine])
    keys = [q.key or "o0" for q in getattr(engine, "questions", [])] or ["o0"]
    return results, {key: e.priors for key, e in zip(keys, engines) if getattr(e, "priors", None)}


def summarise(results: list, spec, true: list[str], given: list[str], n_orders: int) -> dict[str, Any]:
    labels = list(spec.labels)
    member_ids = [m.member_id for m in results[0].members]
    out: dict[str, Any] = {"orders": n_orders, "members": {}}
    for k, member_id in enumerate(member_ids):
        per_item = [r.members[k] for r in results]
        figs = judge_figures([m.probs for m in per_item], true, given, labels)
        latencies = [m.latency_s / n_orders for m in per_item if m.latency_s is not None]
        figs["seconds_per_call"] = float(np.mean(latencies)) if latencies else None
        flips = [position_flips(r, labels).get(member_id) for r in results]
        flips = [f for f in flips if f is not None]
        figs["position_flip_rate"] = sum(flips) / len(flips) if flips else None
        out["members"][member_id] = figs
    ens = judge_figures([r.probs for r in results], true, given, labels)
    flagged = np.array([bool(r.flagged) for r in results])
    wrong = np.array([g != t for g, t in zip(given, true)])
    ens["flagged"] = int(flagged.sum())
    ens["flag_precision"] = float(wrong[flagged].mean()) if flagged.any() else None
    ens["flag_recall"] = float(wrong[flagged].sum() / wrong.sum()) if wrong.any() else None
    ens["calls_per_item"] = float(np.mean([sum(len(q.members) for q in r.questions) if r.questions else len(r.members)
                                           for r in results]))  # a confident-learning member: first order only
    ens["flag_sweep"] = flag_sweep([r.probs for r in results], given, wrong, labels)
    out["ensemble"] = ens
    return out


#: Thresholds of the two flag rules the sweep compares (the default rule is "top > 0.5 and not the label").
TOP_THRESHOLDS = (0.3, 0.35, 0.4, 0.45, 0.5)
GIVEN_THRESHOLDS = (0.1, 0.15, 0.2, 0.25, 0.3)


def flag_sweep(probs: Sequence[dict[str, float] | None], given: Sequence[str], wrong: np.ndarray,
               labels: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Precision and recall of planted errors under other flag rules, from the same ensemble distributions.

    ``top>t``: the ensemble's top label is not the given one and its probability exceeds ``t`` (the tool's
    rule, ``t`` = 0.5 by default); ``given<t``: the given label's probability is below ``t``. No call is
    made: this only reads how far the default threshold is from the ranking the AUROC/AP describe.
    """
    out: dict[str, dict[str, Any]] = {}
    for name, thresholds, rule in (
            ("top>", TOP_THRESHOLDS, lambda p, g, t: argmax(p, labels) != g and p[argmax(p, labels)] > t),
            ("given<", GIVEN_THRESHOLDS, lambda p, g, t: p.get(g, 0.0) < t)):
        for t in thresholds:
            flagged = np.array([p is not None and bool(rule(p, g, t)) for p, g in zip(probs, given)])
            out[f"{name}{t}"] = {"flagged": int(flagged.sum()),
                                 "precision": float(wrong[flagged].mean()) if flagged.any() else None,
                                 "recall": float(wrong[flagged].sum() / wrong.sum()) if wrong.any() else None}
    return out


def _f(value: Any, digits: int = 2) -> str:
    return "  -  " if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def print_table(title: str, figures: dict[str, Any]) -> None:
    print(f"\n{title}")
    print(f"  {'prompt':<30} {'acc':>5} {'modal':>11} {'pred/true':>10} {'AUROC':>6} {'AP':>5} {'flips':>5} "
          f"{'s/call':>6}  accuracy by the true label's letter")
    rows = [*((name.rsplit("/", 1)[-1], f) for name, f in figures["members"].items()),  # the title names the model
            ("ENSEMBLE (all prompts)", figures["ensemble"])]
    for name, f in rows:
        if not f.get("answered"):
            print(f"  {name:<30} no answer")
            continue
        letters = " ".join(f"{k} {v:.2f}" for k, v in f["accuracy_by_letter"].items())
        print(f"  {name:<30} {_f(f['accuracy']):>5} {f['modal']:>5} {f['modal_share']:>4.0%} "
              f"{_f(f['ratio_min'])}-{_f(f['ratio_max'])} {_f(f['auroc']):>6} {_f(f['ap']):>5} "
              f"{_f(f.get('position_flip_rate')):>5} {_f(f.get('seconds_per_call')):>6}  {letters}")
    e = figures["ensemble"]
    print(f"  flag rule: {e['flagged']} flagged, precision {_f(e['flag_precision'])}, recall {_f(e['flag_recall'])}; "
          f"{e['calls_per_item']:g} calls per item ({figures['orders']} order(s))")
    print("  other flag rules (flagged, precision/recall): " + "; ".join(
        f"{rule} {v['flagged']} {_f(v['precision'])}/{_f(v['recall'])}" for rule, v in e["flag_sweep"].items()))


def default_members() -> list[str]:
    members = ["local:smollm2"]
    if os.environ.get(QWEN_ENV):
        members.append(f"local:{os.environ[QWEN_ENV]}")
    return members


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--member", action="append", help="PROVIDER:MODEL[@URL], repeatable (default: the "
                        f"embedded model, and the real one when ${QWEN_ENV} names it)")
    parser.add_argument("--prompt", action="append", help="only these prompt ids (default: every prompt)")
    parser.add_argument("--data-set", action="append", choices=["question-types", "chaosnli"])
    parser.add_argument("--items", type=int, default=60)
    parser.add_argument("--chaosnli", type=Path, default=CHAOSNLI, help="the ChaosNLI SNLI JSONL file")
    parser.add_argument("--orders", default="1,2", help="comma-separated numbers of option orders to compare")
    parser.add_argument("--calibration", default="none", help="comma-separated calibration modes to compare "
                        f"({', '.join(MODES)})")
    parser.add_argument("--confident", action="store_true",
                        help="also the confident-learning member alone and beside each judge")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-url", default=f"sqlite:///{ROOT / '.label-audit' / 'bench_judges.sqlite'}")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)
    (ROOT / ".label-audit").mkdir(exist_ok=True)
    cache = CallCache(args.cache_url)
    orders = [int(n) for n in args.orders.split(",")]
    modes = [check_mode(m) for m in args.calibration.split(",")]
    report: dict[str, Any] = {"planted_rate": PLANTED_RATE, "seed": args.seed, "runs": []}
    try:
        for data_set in args.data_set or ["question-types", "chaosnli"]:
            config, guidelines, rows = load_rows(data_set, n_items=args.items, chaosnli=args.chaosnli)
            base = spec_from_label_config(config, guidelines=guidelines, **Settings.from_env().spec_options())
            true = [r["true"] for r in rows]
            given = plant(true, base.labels, rate=PLANTED_RATE, seed=args.seed)
            items = [Item(id=r["id"], original=g, fields=r["fields"]) for r, g in zip(rows, given)]
            print(f"\n== {data_set}: {len(items)} items, {sum(g != t for g, t in zip(given, true))} planted errors; "
                  f"classes {', '.join(base.labels)} ==")
            combos = [[replace(parse_member_arg(m), prompts=tuple(args.prompt) if args.prompt else None)]
                      for m in args.member or default_members()]
            if args.confident:
                combos = [[CONFIDENT]] + combos + [[CONFIDENT, *c] for c in combos]
            for n_orders in orders:
                for mode in modes:
                    spec = with_calibration(with_option_orders(base, n_orders), mode)
                    for entries in combos:
                        results, priors = run(spec, entries, items, cache)
                        name = " + ".join(f"{e.provider}:{Path(e.model).name}" for e in entries)
                        figures = summarise(results, spec, true, given, n_orders)
                        print_table(f"{data_set} · {name} · {n_orders} option order(s) · calibration {mode}", figures)
                        report["runs"].append({"data_set": data_set, "members": name, "items": len(items),
                                               "calibration": mode, "priors": priors, **figures})
    finally:
        cache.close()
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, sort_keys=True), "utf-8")
    return report


if __name__ == "__main__":
    main()
