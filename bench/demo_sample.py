"""Build the demo's sample project from real data: SNLI pairs whose label a 100-vote crowd confirms, some flipped.

The demo needs errors it knows, on a task a real local judge can judge, in data nobody here wrote. SNLI
(Bowman et al., EMNLP 2015; CC BY-SA 4.0) pairs a premise with a hypothesis; ChaosNLI (Nie, Zhou & Bansal,
EMNLP 2020) re-labelled 1,514 of them with 100 votes each. An item enters the sample only when at least
``--agreement`` of those votes and SNLI's own gold label agree, so the original label is right and the
planted flips are the sample's only errors. Each pair becomes a factual-consistency item: the premise is
the document, the hypothesis the statement, ``1`` (supported) when SNLI says entailment, ``0`` (not
supported) for neutral or contradiction. Then ``--planted`` labels are flipped with a fixed seed.

Only SNLI's fields are written (premise, hypothesis, its gold label, its pair id); ChaosNLI's votes choose
the items and are not copied. Run once; the output is committed as ``backend/data/sample_snli.jsonl``:

    python bench/demo_sample.py --chaosnli ../shared/data/chaosnli/chaosNLI_snli.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "backend" / "data" / "sample_snli.jsonl"
SNLI_NAMES = {"e": "entailment", "n": "neutral", "c": "contradiction"}


def eligible(rows: Sequence[dict[str, Any]], *, agreement: int, max_chars: int) -> dict[str, list[dict[str, Any]]]:
    """Items whose SNLI label the crowd confirms (``agreement`` of 100 votes), short enough to read, by SNLI label."""
    by_label: dict[str, list[dict[str, Any]]] = {"e": [], "n": [], "c": []}
    for raw in rows:
        votes = dict(zip("enc", raw["label_count"]))
        label = raw["old_label"]
        text = raw["example"]
        if label in by_label and votes[label] >= agreement and len(text["premise"]) <= max_chars:
            by_label[label].append(raw)
    return by_label


def build(rows: Sequence[dict[str, Any]], *, n: int = 32, planted: int = 6, seed: int = 0, agreement: int = 80,
          max_chars: int = 160) -> list[dict[str, Any]]:
    """``n`` items, half entailment (``1``), a quarter each neutral and contradiction (``0``); ``planted`` flipped."""
    if n % 4 or not 0 < planted < n:
        raise ValueError("n must be a multiple of 4 and 0 < planted < n")
    rng = random.Random(seed)
    pools = eligible(rows, agreement=agreement, max_chars=max_chars)
    chosen = [*rng.sample(pools["e"], n // 2), *rng.sample(pools["n"], n // 4), *rng.sample(pools["c"], n // 4)]
    rng.shuffle(chosen)
    flipped = set(rng.sample(range(n), planted))
    items = []
    for k, raw in enumerate(chosen):
        true = 1 if raw["old_label"] == "e" else 0
        items.append({"id": f"snli-{k + 1:02d}", "grounding": raw["example"]["premise"],
                      "generated_text": raw["example"]["hypothesis"],
                      "label": 1 - true if k in flipped else true, "planted": k in flipped,
                      "snli_label": SNLI_NAMES[raw["old_label"]], "snli_pair": raw["uid"]})
    return items


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chaosnli", type=Path, required=True, help="ChaosNLI's SNLI part (chaosNLI_snli.jsonl)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--n", type=int, default=32)
    parser.add_argument("--planted", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.chaosnli.read_text("utf-8").splitlines() if line.strip()]
    items = build(rows, n=args.n, planted=args.planted, seed=args.seed)
    args.out.write_text("".join(json.dumps(item) + "\n" for item in items), "utf-8")
    print(f"{len(items)} items, {sum(i['planted'] for i in items)} planted -> {args.out}")
    return items


if __name__ == "__main__":
    main()
