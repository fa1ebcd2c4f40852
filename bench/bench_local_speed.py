"""Local calls at the speed of the hardware: calls per second before and after prefix reuse, one run, one machine.

Prompts: the generic templates (``prompts/generic/*.txt``) rendered for ``--items`` items of ChaosNLI
(SNLI part; Nie, Zhou & Bansal, EMNLP 2020; CC BY-NC 4.0; read from ``../shared/data/chaosnli`` beside
the checkout, never committed), every template per item, each in ``--orders`` cyclic option orders
(the labels rotated, as an item asked in several orders is), in the order the engine submits them
(item by item, each item's members together).

Configurations, interleaved prompt by prompt so that each sees the same machine load:

- ``before``: the provider as it was: every prompt evaluated from an empty cache in batches of 512
  (``n_batch=512, prefix_reuse=False``);
- ``after``: the default provider: fixed blocks of ``n_batch`` positions, whole-block prefixes reused;
- ``blocks``: the same fixed blocks without reuse, the prompts in a shuffled order (what the fixed
  split alone costs, and the reference for "probabilities do not depend on call order or reuse");
- ``shuffled``: reuse, the prompts in that shuffled order (the share evaluated when calls interleave).

Printed per model: calls per wall-clock second and per CPU-second (``time.process_time``: every thread of
the process; on a shared machine wall time mostly measures the scheduler, measured here: the same prompt
took 1.8 s of CPU in batches of 512 and 1.6 s in blocks of 32, but 18 s and 6.5 s of wall time), and
each ratio against ``before`` measured in the same run;
the share of prompt tokens evaluated; the largest class-probability difference between ``after``,
``shuffled`` and ``blocks`` (the same blocks: must be <= 1e-6) and, for information, against
``before`` (another batch split). Models: the embedded SmolLM2 and, when ``LABEL_AUDIT_QWEN_GGUF``
names a GGUF file, the real judge (``--real-items`` items: it is ten times slower). Run it under
``nice -n 10`` on a shared machine::

    python bench/bench_local_speed.py [--items 12] [--real-items 4] [--orders 1] [--block 32]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import fields, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from backend.task.generic import generic_spec  # noqa: E402
from backend.providers.local_gguf import LocalGGUFProvider  # noqa: E402
from backend.providers.prefix_kv import DEFAULT_BLOCK, PrefixStats  # noqa: E402
from backend.scoring.prompting import spec_params, templates_for_spec  # noqa: E402
from bench.bench_detection import CLASSES, DEFAULT_DATA, GUIDELINES, load_chaosnli  # noqa: E402

REAL_MODEL_ENV = "LABEL_AUDIT_QWEN_GGUF"
CONFIGS = ("before", "after", "blocks", "shuffled")


def engine_prompts(data: Path, *, items: int, orders: int) -> list[tuple[str, tuple[str, ...]]]:
    """(prompt, option letters) in the engine's order: per item, every option order x every template."""
    rows = load_chaosnli(data)[:items]
    out = []
    for row in rows:
        for k in range(orders):
            labels = list(CLASSES[k:] + CLASSES[:k])  # a cyclic order of the options
            spec = generic_spec(labels=labels, fields=["premise", "hypothesis"], name="chaosnli", guidelines=GUIDELINES)
            params = spec_params(spec)
            for template in templates_for_spec(spec):
                text = template.render({"premise": row["premise"], "hypothesis": row["hypothesis"]}, params=params)
                out.append((text, tuple(spec.tokens)))
    return out


def providers(model: str, *, block: int) -> dict[str, LocalGGUFProvider]:
    """One provider per configuration, each with a context of its own (distinct ``n_ctx``)."""
    return {
        "before": LocalGGUFProvider(model, n_batch=512, prefix_reuse=False, n_ctx=2048),
        "after": LocalGGUFProvider(model, n_batch=block, n_ctx=2048 + 16),
        "blocks": LocalGGUFProvider(model, n_batch=block, prefix_reuse=False, n_ctx=2048 + 32),
        "shuffled": LocalGGUFProvider(model, n_batch=block, n_ctx=2048 + 48),
    }


def run_model(name: str, model: str, prompts, *, block: int, configs, seed: int) -> None:
    provs = {c: p for c, p in providers(model, block=block).items() if c in configs}
    shuffled = list(range(len(prompts)))
    random.Random(seed).shuffle(shuffled)
    engine = list(range(len(prompts)))
    orders = {c: shuffled if c in ("blocks", "shuffled") else engine for c in provs}
    for prov in provs.values():  # load the weights and warm up outside the timing
        prov.classify("Warm-up.\nAnswer: ", ["A", "B"], timeout=3600)
    start = {c: replace(prov._loaded.prefixes.stats) for c, prov in provs.items()}
    seconds = dict.fromkeys(provs, 0.0)
    cpu = dict.fromkeys(provs, 0.0)
    probs: dict[str, dict[int, dict[str, float]]] = {c: {} for c in provs}
    for step in range(len(prompts)):
        for c, prov in provs.items():
            i = orders[c][step]
            text, letters = prompts[i]
            began, began_cpu = time.perf_counter(), time.process_time()
            dist = prov.classify(text, list(letters), timeout=3600)
            seconds[c] += time.perf_counter() - began
            cpu[c] += time.process_time() - began_cpu
            probs[c][i] = dist.probs
        print(f"  {name}: {step + 1}/{len(prompts)} prompts", end="\r", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    n = len(prompts)
    print(f"{name}: {n} prompts, block {block}")
    for c, prov in provs.items():
        now, was = prov._loaded.prefixes.stats, start[c]
        st = PrefixStats(*(getattr(now, f.name) - getattr(was, f.name) for f in fields(PrefixStats)))
        ratio = (f"  vs before: {seconds['before'] / seconds[c]:.2f}x wall, {cpu['before'] / cpu[c]:.2f}x CPU"
                 if "before" in provs else "")
        print(f"  {c:9s} {n / seconds[c]:6.3f} calls/s wall ({seconds[c] / n * 1000:6.0f} ms), "
              f"{n / cpu[c]:6.3f} per CPU-second ({cpu[c] / n * 1000:6.0f} ms)  "
              f"prompt tokens evaluated {st.evaluated_tokens}/{st.prompt_tokens} = {st.evaluated_share:.3f}"
              f"  restored {st.restored}{ratio}")

    def diff(a: str, b: str) -> float:
        return max(abs(probs[a][i][k] - probs[b][i][k]) for i in range(n) for k in probs[a][i])

    same_split = [c for c in ("after", "shuffled", "blocks") if c in provs]
    pairs = [(a, b) for j, a in enumerate(same_split) for b in same_split[j + 1:]]
    for a, b in pairs:
        print(f"  largest class-probability difference {a} vs {b} (same blocks, other order/reuse): {diff(a, b):.2e}")
    if "before" in provs and "after" in provs:
        print(f"  largest class-probability difference after vs before (batch split {block} vs 512): "
              f"{diff('after', 'before'):.2e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--items", type=int, default=12, help="items for the embedded model")
    parser.add_argument("--real-items", type=int, default=4, help=f"items for the model named by {REAL_MODEL_ENV}")
    parser.add_argument("--orders", type=int, default=1, help="cyclic option orders per item (1-3)")
    parser.add_argument("--block", type=int, default=DEFAULT_BLOCK)
    parser.add_argument("--configs", default=",".join(CONFIGS), help=f"subset of {','.join(CONFIGS)}")
    parser.add_argument("--models", default="smollm2,real", help="smollm2 and/or real")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not args.data.is_file():
        sys.exit(f"ChaosNLI not found at {args.data} (see ../shared/data/README.md)")
    configs = [c for c in args.configs.split(",") if c in CONFIGS]
    models = args.models.split(",")
    if "smollm2" in models:
        run_model("smollm2", "smollm2", engine_prompts(args.data, items=args.items, orders=args.orders),
                  block=args.block, configs=configs, seed=args.seed)
    real = os.environ.get(REAL_MODEL_ENV, "")
    if "real" in models:
        if not real or not Path(real).is_file():
            print(f"real model: PENDING ({REAL_MODEL_ENV} names no GGUF file)")
        else:
            run_model(Path(real).name, real, engine_prompts(args.data, items=args.real_items, orders=args.orders),
                      block=args.block, configs=configs, seed=args.seed)


if __name__ == "__main__":
    main()
