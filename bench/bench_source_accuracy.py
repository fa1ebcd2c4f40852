"""The sources' accuracy table against a planted truth: interval coverage and the posterior's calibration.

Projects are drawn by :func:`backend.review.source_sim.simulate_project` (named annotators and judge models of
known accuracy, each model answering through several strongly correlated prompts). For every replicate the
truth model is fitted as the triage fits it, and the bench records:

- *coverage*: how often each source's 95 % interval holds its planted top-1 accuracy, annotators and judges
  apart: ``wilson``, Wilson's interval on the triage's (soft) fit, posteriors taken as known (the table before
  this bench, but for the judges' figure, then an expected agreement); ``soft-fit bootstrap`` (with
  ``--with-soft``), the item bootstrap over refits of that fit; ``table``, what the report prints
  (:func:`backend.review.source_accuracy.source_table`: a fit on every source's top label, bootstrapped);
- the *old soft figure*: a judge's expected agreement ``Σ p(c) q_c`` against its planted accuracy (the
  column's other meaning before top-1);
- *calibration*: among unreviewed items whose top posterior lies in [0.9, 0.99), the mean posterior and the
  share whose top label is the truth, with one source per member × prompt and with a model's prompts
  averaged into one source.

Usage: ``python bench/bench_source_accuracy.py [--replicates 200] [--refits 200] [--items 400] [--reviewed 0]
[--unsure-judges] [--with-soft] [--json out]``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from backend.review.source_accuracy import source_accuracies, source_table
from backend.review.source_sim import SourceScenario, simulate_project
from backend.review.triage import observations
from backend.review.truth_model import TruthModel

BAND = (0.9, 0.99)


def expected_agreement(model: TruthModel, obs: dict, source: str) -> tuple[float, int]:
    """The old soft figure: Σ_obs Σ_c p(c) q_c / n (a label drawn from the judge's distribution)."""
    post = model.predict_proba()
    total = [sum(post[item][lab] * q for lab, q in by[source].items()) for item, by in obs.items() if source in by]
    return float(np.mean(total)), len(total)


def band(model: TruthModel, truth: dict, anchors: dict) -> tuple[list[float], list[bool]]:
    """Top posteriors in :data:`BAND` on unreviewed items, and whether their label is the truth."""
    probs, right = [], []
    for item, row in model.predict_proba().items():
        if item in anchors:
            continue
        label = max(row, key=row.get)
        if BAND[0] <= row[label] < BAND[1]:
            probs.append(row[label])
            right.append(label == truth[item])
    return probs, right


def run(scenario: SourceScenario, *, replicates: int, refits: int, seed: int = 0, with_soft: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    hits: dict[str, dict[str, list[bool]]] = {kind: {"annotator": [], "judge": []}
                                              for kind in ("wilson", "soft-fit bootstrap", "table")}
    old_soft_gap, calib = [], {"per prompt": ([], []), "one source per model": ([], [])}
    for r in range(replicates):
        project = simulate_project(scenario, rng)
        labels = list(scenario.labels)
        for name, per_prompt in (("per prompt", True), ("one source per model", False)):
            obs = observations(project.evidence, per_prompt=per_prompt)
            model = TruthModel(labels).fit(obs, anchors=project.anchors)
            probs, right = band(model, project.truth, project.anchors)
            calib[name][0].extend(probs)
            calib[name][1].extend(right)
            if per_prompt:
                continue
            table = source_table(obs, labels=labels, anchors=project.anchors, refits=refits, seed=r)
            kinds = [("wilson", model.source_quality()), ("table", table)]
            if with_soft:
                kinds.append(("soft-fit bootstrap", source_accuracies(model, refits=refits, seed=r)))
            for kind, rows in kinds:
                for q in rows:
                    who = "judge" if q.source.startswith("sim:") else "annotator"
                    hits[kind][who].append(q.low <= project.planted[q.source] <= q.high)
            for source in (s for s in model.sources_ if s.startswith("sim:")):
                value, _n = expected_agreement(model, obs, source)
                old_soft_gap.append(value - project.planted[source])
    out: dict = {"scenario": scenario.__dict__ | {"labels": list(scenario.labels)}, "replicates": replicates,
                 "refits": refits, "coverage": {}, "calibration": {}}
    for kind, by in hits.items():
        for who, seen in by.items():
            if not seen:
                continue
            k, n = int(sum(seen)), len(seen)
            low, high = proportion_confint(k, n, method="wilson")
            out["coverage"][f"{kind} / {who}"] = {"covered": k, "n": n, "rate": k / n, "low": low, "high": high}
    out["old_soft_figure_minus_accuracy"] = float(np.mean(old_soft_gap))
    for name, (probs, right) in calib.items():
        out["calibration"][name] = {"items": len(probs), "mean_posterior": float(np.mean(probs)) if probs else None,
                                    "share_right": float(np.mean(right)) if right else None}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--refits", type=int, default=200)
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--reviewed", type=int, default=0)
    parser.add_argument("--unsure-judges", action="store_true",
                        help="judges that put 0.6-0.95 on their top label when right, 0.5-0.8 when wrong "
                             "(default 0.9-0.99 and 0.8-0.97, as logprob judges)")
    parser.add_argument("--with-soft", action="store_true", help="also bootstrap the soft fit (slower)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    started = time.perf_counter()
    masses = dict(right_mass=(0.6, 0.95), wrong_mass=(0.5, 0.8)) if args.unsure_judges else {}
    result = run(SourceScenario(n_items=args.items, reviewed=args.reviewed, **masses), replicates=args.replicates,
                 refits=args.refits, with_soft=args.with_soft)
    result["seconds"] = round(time.perf_counter() - started, 1)
    for name, row in result["coverage"].items():
        print(f"coverage {name:24s} {row['rate']:.3f} [{row['low']:.3f}, {row['high']:.3f}] (n={row['n']})")
    print(f"old soft figure minus planted accuracy: {result['old_soft_figure_minus_accuracy']:+.3f}")
    for name, row in result["calibration"].items():
        print(f"posterior in [0.9, 0.99), {name:22s}: {row['items']} items, mean {row['mean_posterior']:.3f}, "
              f"right {row['share_right']:.3f}")
    print(f"{result['seconds']} s")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
