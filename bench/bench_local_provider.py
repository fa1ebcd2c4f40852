"""The embedded judge, measured: class-token mass per chat formatting, and per-call latency vs bare llama.cpp.

For each prompt format of the local GGUF provider, every bundled sample item is rendered with every
template of its task family and classified; the script prints the mean/min class-token mass
(``raw_mass``: how much of the next-token distribution falls on the labels) and the median call
latency. The baseline, measured in the same run on the same token lists, is a bare ``Llama.eval`` of
the prompt; the ratio is the provider's overhead (tokenising, softmax, label lookup, locking).

    python bench/bench_local_provider.py [--model smollm2] [--items 4] [--sets ...] [--formats ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backend.task.dataset import Item, read_items  # noqa: E402
from backend.scoring.prompting import spec_params, templates_for_spec  # noqa: E402
from backend.providers.chatml import PROMPT_FORMATS  # noqa: E402
from backend.providers.local_gguf import LocalGGUFProvider  # noqa: E402
from backend.task.spec import load_spec  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "backend" / "data"
SETS = {"factual-consistency": "sample_factual_consistency.jsonl", "relevance": "sample_relevance.jsonl"}


def prompts_for(spec_name: str, limit: int) -> tuple[list[str], list[str]]:
    spec = load_spec(spec_name)
    items = [i for i in read_items(DATA / SETS[spec_name], spec) if isinstance(i, Item)][:limit]
    params = spec_params(spec)
    prompts = [t.render(item.fields, params=params) for item in items for t in templates_for_spec(spec)]
    return prompts, list(spec.labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--items", type=int, default=4, help="items per bundled dataset")
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--formats", nargs="+", default=list(PROMPT_FORMATS), choices=list(PROMPT_FORMATS))
    args = parser.parse_args()

    for spec_name in args.sets:
        prompts, labels = prompts_for(spec_name, args.items)
        print(f"\n{spec_name}: {len(prompts)} prompts, labels {labels}")
        for fmt in args.formats:
            for system in (None, ""):
                prov = LocalGGUFProvider(args.model, prompt_format=fmt, system=system)
                prov.classify(prompts[0], labels, timeout=600)  # warm-up
                masses, calls, bare, ntok = [], [], [], []
                for prompt in prompts:
                    start = time.perf_counter()
                    dist = prov.classify(prompt, labels, timeout=600)
                    calls.append(time.perf_counter() - start)
                    masses.append(dist.raw_mass)
                    ntok.append(dist.usage["prompt_tokens"])
                    tokens = prov._tokenize(prompt)
                    start = time.perf_counter()
                    prov._loaded.llm.reset()
                    prov._loaded.llm.eval(tokens)
                    bare.append(time.perf_counter() - start)
                sys_name = "template-default" if system is None else "none"
                ratio = statistics.median(calls) / statistics.median(bare)
                print(f"  format={fmt:15s} system={sys_name:16s} mass mean={statistics.mean(masses):.3f} "
                      f"min={min(masses):.3f}  tokens median={statistics.median(ntok):.0f}  latency median={statistics.median(calls) * 1000:6.0f} ms "
                      f"(bare eval {statistics.median(bare) * 1000:6.0f} ms, ratio {ratio:.2f})", flush=True)


if __name__ == "__main__":
    main()
