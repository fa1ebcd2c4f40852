"""Benchmark: preference judging in both orders — position bias measured, and what averaging the orders buys.

Run: ``python bench/bench_pairwise.py [--member local:smollm2 --member local:/path/model.gguf] [--pairs 40]
[--prompts generic-question,generic-annotator] [--json out.json]``.

Data: ChaosNLI v1.0, SNLI part (Nie, Zhou & Bansal, EMNLP 2020; CC BY-NC 4.0; described in
``../shared/data/README.md``), read from beside the checkout and never committed here. A pair is a premise
(the prompt) with two statements: a hypothesis that 80+ of 100 crowd votes call entailed by it (the better
response) and a hypothesis of another premise (seeded draw). The better one is put left or right at random;
10 % of the pairs get the wrong preference as their "original" label (the planted errors).

The project is Label Studio's *Pairwise classification* layout (``<Pairwise name="pw" toName="a,b">``), read by
the real path (:func:`backend.labelstudio.projectspec.spec_from_label_config`, the engine, the pairwise family).
Per member (model x prompt), and for the ensemble: accuracy against the better response asked in order ab only,
in order ba only, and averaged over both orders (the tool's verdict); the member's position-bias rate (the share
of pairs whose top answer flips with the order) and its first-position share (how often it prefers the response
shown first, 0.5 for no bias); for the ensemble, the share of pairs it reverses against the original, and the
planted errors' ROC AUC and average precision (score = 1 - P(original)), each order alone and averaged.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from backend.config.settings import Settings  # noqa: E402
from backend.task.dataset import Item  # noqa: E402
from backend.labelstudio.projectspec import spec_from_label_config  # noqa: E402
from backend.scoring.cache import CallCache  # noqa: E402
from backend.scoring.engine import EngineConfig  # noqa: E402
from backend.scoring.members import MemberSpec, build_members, parse_member_arg  # noqa: E402
from backend.scoring.question_engine import make_engine  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "chaosnli" / "chaosNLI_snli.jsonl"
CONFIG = """<View>
  <Header value="Which statement is true, given the text?"/>
  <Text name="text" value="$text"/>
  <Pairwise name="pw" toName="a,b"/>
  <Text name="a" value="$a"/>
  <Text name="b" value="$b"/>
</View>"""


def make_pairs(path: Path, n: int, *, seed: int = 7, planted: float = 0.1) -> list[dict]:
    """``n`` pairs (text, a, b, better, original) from ChaosNLI; the better side and the plants are seeded."""
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    entailed = [r for r in rows if r["majority_label"] == "e" and max(r["label_count"]) >= 80]
    rng = random.Random(seed)
    rng.shuffle(entailed)
    pairs = []
    for r in entailed[:n]:
        other = rng.choice([x for x in rows if x["example"]["premise"] != r["example"]["premise"]])
        good, bad = r["example"]["hypothesis"], other["example"]["hypothesis"]
        better = rng.choice(["left", "right"])
        a, b = (good, bad) if better == "left" else (bad, good)
        pairs.append({"id": r["uid"], "text": r["example"]["premise"], "a": a, "b": b, "better": better})
    for i in rng.sample(range(len(pairs)), max(1, round(planted * len(pairs)))):
        pairs[i]["planted"] = True
    for p in pairs:
        p["original"] = ({"left": "right", "right": "left"}[p["better"]]) if p.get("planted") else p["better"]
    return pairs


def _acc(preds: list[str], truth: list[str]) -> float:
    return float(np.mean([p == t for p, t in zip(preds, truth)]))


def run(members_args: list[str], prompts: tuple[str, ...], pairs: list[dict], cache: CallCache) -> dict:
    entries = [MemberSpec(**{**parse_member_arg(m).__dict__, "prompts": prompts}) for m in members_args]
    settings = Settings.from_env(members=tuple(entries))  # what the backend would derive and build with here
    spec = spec_from_label_config(CONFIG, **settings.spec_options())
    team = build_members(entries, spec, providers=settings.provider_settings(), prompts_root=settings.prompts_dir)
    items = [Item(p["id"], p["original"], {"text": p["text"], "a": p["a"], "b": p["b"]}) for p in pairs]
    engine = make_engine(spec, team, cache=cache, config=EngineConfig(concurrency=1))
    started = time.perf_counter()
    results = list(engine.score(items))
    seconds = time.perf_counter() - started
    truth = [p["better"] for p in pairs]
    planted = np.array([bool(p.get("planted")) for p in pairs])
    rows = {}
    for member in team:
        per = {"ab": [], "ba": [], "both": []}
        first = []
        for r in results:
            orders = {q.id: next(m for m in q.members if m.member_id == member.id) for q in r.questions}
            merged = next(m for m in r.members if m.member_id == member.id)
            for key, m in [*orders.items(), ("both", merged)]:
                per[key].append(max(m.probs, key=m.probs.get) if m.probs else "none")
            for key, m in orders.items():  # the response shown first is left in ab, right in ba
                if m.probs:
                    first.append(max(m.probs, key=m.probs.get) == ("left" if key == "ab" else "right"))
        flips = [a != b for a, b in zip(per["ab"], per["ba"])]
        rows[member.id] = {"acc_ab": _acc(per["ab"], truth), "acc_ba": _acc(per["ba"], truth),
                           "acc_both": _acc(per["both"], truth), "position_bias": float(np.mean(flips)),
                           "first_position_share": float(np.mean(first)) if first else None}
    ens = {}
    for key in ("ab", "ba", "both"):
        scores, preds = [], []
        for p, r in zip(pairs, results):
            probs = (next(q for q in r.questions if q.id == key).probs if key != "both" else r.probs) or {}
            scores.append(1.0 - float(probs.get(p["original"], 0.5)))
            preds.append(max(probs, key=probs.get) if probs else "none")
        ens[key] = {"accuracy": _acc(preds, truth), "auroc": float(roc_auc_score(planted, scores)),
                    "ap": float(average_precision_score(planted, scores))}
    reversed_share = float(np.mean([r.prediction not in (None, p["original"]) for p, r in zip(pairs, results)]))
    calls = engine.stats.llm_calls
    return {"members": rows, "ensemble": ens, "reversed_share": reversed_share, "flagged": sum(r.flagged for r in results),
            "planted": int(planted.sum()), "pairs": len(pairs), "calls": calls,
            "seconds_per_call": seconds / calls if calls else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--member", action="append", default=None)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--prompts", default="generic-question,generic-annotator")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache" / "pairwise.sqlite")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    pairs = make_pairs(args.data, args.pairs)
    cache = CallCache(f"sqlite:///{args.cache}")
    out = {}
    for member in args.member or ["local:smollm2"]:
        out[member] = run([member], tuple(args.prompts.split(",")), pairs, cache)
        res = out[member]
        print(f"\n== {member}: {res['pairs']} pairs, {res['planted']} planted errors, {res['calls']} calls"
              + (f", {res['seconds_per_call']:.2f} s per call" if res["seconds_per_call"] else ""))
        print(f"{'member':58} {'acc ab':>7} {'acc ba':>7} {'both':>7} {'flips':>7} {'1st pos':>8}")
        for mid, row in res["members"].items():
            first = f"{row['first_position_share']:.2f}" if row["first_position_share"] is not None else "-"
            print(f"{mid[-58:]:58} {row['acc_ab']:7.2f} {row['acc_ba']:7.2f} {row['acc_both']:7.2f} "
                  f"{row['position_bias']:7.2f} {first:>8}")
        for key, row in res["ensemble"].items():
            print(f"ensemble {key:5}: accuracy {row['accuracy']:.2f}, planted-error AUROC {row['auroc']:.2f}, AP {row['ap']:.2f}")
        print(f"ensemble reverses {res['reversed_share']:.2f} of the pairs; flags {res['flagged']}")
    cache.close()
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
