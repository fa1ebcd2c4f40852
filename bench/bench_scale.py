"""Scale: cost per 1k tasks as a project grows, and throughput as workers are added.

The judges are ``tests/support/latency_judge.py``: a real OpenAI-compatible HTTP server answering valid
logprobs after a set latency. It is not a model: this measures the orchestration (queue, workers,
ledger, Label Studio), not judging. Label Studio 1.23.2 runs on PostgreSQL (as a large deployment runs
it) behind a counting proxy; the ledger is a PostgreSQL database per size; Redis is a private server
per size, so its memory figures are the audit's own.

**Sizes** (``--sizes 1000,10000``): per size a new project, ``--workers`` workers, then three stages
timed as their CLI runs: ``label-audit audit --wait`` (returns once the last prediction is in Label
Studio), ``label-audit review push`` of the flagged items (same instance, ``--allow-same-instance``: the
cost is the same, the blindness is not what is measured) and ``audit-stats report --no-cache``.
Printed per size: seconds and Label Studio requests per 1k tasks per stage, peak RSS of Label Studio,
the workers and each CLI, Redis peak memory and ledger size, with ratios against the first size.

**Scale-out** (``--counts 1,2,4,8``): N workers score ``N x --jobs-per-worker`` jobs of 16 tasks (4
prompts each; no Label Studio: scoring throughput alone), against a bare ``openai`` client loop with
the same total concurrency (N x 8) and the same calls, in the same run. ``1 (fork)`` is rq's forking
model (``label-audit worker --fork``), to show the per-job start-up the in-process worker saves.

    python bench/bench_scale.py [--sizes 1000,10000] [--workers 4] [--counts 1,2,4,8]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_support import (  # noqa: E402
    PrivateRedis, child_env, cpu_seconds, create_database, database_mb, drop_database, get_json, run_stage,
    start_http_service, start_workers, tree_peak_mb, wait_until, wait_workers, peak_rss_mb,
)

from backend.labelstudio.client import create_project, import_tasks  # noqa: E402
from backend.labelstudio.labelconfig import label_config_for_spec  # noqa: E402
from backend.labelstudio.local import PostgresSettings  # noqa: E402
from backend.task.spec import load_spec  # noqa: E402

SPEC = load_spec("factual-consistency")
LABEL_CONFIG = label_config_for_spec(SPEC)
MODEL = "bench-judge"
CLI = [sys.executable, "-m", "backend.cli"]
STATS = [sys.executable, "-m", "stats_cli.cli"]


def make_tasks(n: int, *, start: int = 0, with_ids: bool = False) -> list[dict]:
    """Tasks whose grounding names the judge's answer; 1 in 20 carries the other label (a planted error)."""
    out = []
    for i in range(start, start + n):
        truth = str(i % 2)
        label = str(1 - int(truth)) if i % 20 == 7 else truth
        task = {"data": {"grounding": f"Document {i}: the report on case {i} says {truth} [truth:{truth}].",
                         "generated_text": f"Claim {i}: case {i} is as reported."},
                "annotations": [{"result": [{"from_name": "label", "to_name": "generated_text", "type": "choices",
                                             "value": {"choices": [label]}}]}]}
        if with_ids:
            task = {"id": i + 1, **task, "annotations": [{"id": 10**7 + i, "completed_by": 1, "was_cancelled": False,
                                                          **task["annotations"][0]}]}
        out.append(task)
    return out


def ls_requests(proxy: str) -> dict:
    return get_json(f"{proxy}/_proxy/stats")


def run_size(n: int, args, ls, proxy: str, judge: str) -> dict:
    """One project of ``n`` tasks through the three stages; returns its measurements."""
    db_name, db_url = create_database("la_bench_ledger")
    redis = PrivateRedis()
    queue = f"bench-scale-{uuid.uuid4().hex[:8]}"
    project = create_project(ls.client, title=f"bench scale {n}", label_config=LABEL_CONFIG)
    started = time.perf_counter()
    import_tasks(ls.client, project, make_tasks(n))
    print(f"  {n} tasks imported into project {project} in {time.perf_counter() - started:.0f} s", flush=True)
    env = {"DATABASE_URL": db_url, "REDIS_URL": redis.url, "LABEL_AUDIT_QUEUE": queue,
           "LABEL_AUDIT_MEMBERS": f"openai:{MODEL}@{judge}/v1", "LABEL_AUDIT_HOME": tempfile.mkdtemp(),
           "LABEL_STUDIO_URL": proxy, "LABEL_STUDIO_API_KEY": ls.token}
    workers = start_workers(args.workers, env)
    out: dict = {"n": n}
    try:
        wait_workers(redis.url, queue, args.workers)
        calls0 = get_json(f"{judge}/_stats")["calls"]
        get_json(f"{proxy}/_proxy/reset", method="POST")
        audit = run_stage([*CLI, "audit", "--project", str(project), "--wait", "--json", "--timeout", "14400"],
                          child_env(env))
        if audit.returncode != 0:
            raise RuntimeError(f"audit failed: {audit.stderr}")
        out["audit"] = _stage(audit, ls_requests(proxy))
        out["llm_calls"] = get_json(f"{judge}/_stats")["calls"] - calls0
        summary = json.loads(audit.stdout)
        out["scored"], out["flagged"] = summary["scored"], summary["flagged"]
        out["predictions_in_ls"] = int(ls.client.projects.get(id=project).total_predictions_number or 0)
        out["worker_mb"] = max(peak_rss_mb(w.pid) or 0.0 for w in workers)
    finally:
        for w in workers:
            w.stop()
    out["redis_mb"] = redis.peak_memory_mb()
    redis.stop()
    get_json(f"{proxy}/_proxy/reset", method="POST")
    experts = ",".join(f"expert{k}-{uuid.uuid4().hex[:6]}@bench.local" for k in (1, 2))
    push = run_stage([*CLI, "review", "push", "--project", str(project), "--experts", experts,
                      "--allow-same-instance", "--db", db_url, "--json"], child_env(env))
    if push.returncode != 0:
        raise RuntimeError(f"review push failed: {push.stderr}")
    out["push"] = _stage(push, ls_requests(proxy))
    get_json(f"{proxy}/_proxy/reset", method="POST")
    report_file = Path(tempfile.mkdtemp()) / "report.json"
    report = run_stage([*STATS, "report", "--project", str(project), "--db", db_url, "--format", "json",
                        "--out", str(report_file), "--no-cache", "--no-progress"], child_env(env))
    if report.returncode != 0:
        raise RuntimeError(f"report failed: {report.stderr}")
    out["report"] = _stage(report, ls_requests(proxy))
    out["ledger_mb"] = database_mb(db_name)
    out["ls_mb"] = tree_peak_mb(ls.process.pid)
    drop_database(db_name)
    return out


def _stage(run, requests: dict) -> dict:
    return {"seconds": run.seconds, "peak_mb": run.peak_mb, "requests": requests["total"],
            "routes": requests["by_route"]}


def print_sizes(rows: list[dict]) -> None:
    base = rows[0]
    k = lambda r: r["n"] / 1000  # noqa: E731
    print(f"\n== sizes (baseline: {base['n']} tasks, same run) ==")
    print(f"{'tasks':>7} {'stage':<12} {'s/1k':>8} {'ratio':>6} {'LS req/1k':>10} {'ratio':>6} {'peak MB':>8}")
    for r in rows:
        for stage in ("audit", "push", "report"):
            s, b = r[stage], base[stage]
            spk, bpk = s["seconds"] / k(r), b["seconds"] / k(base)
            rpk, brk = s["requests"] / k(r), b["requests"] / k(base)
            print(f"{r['n']:>7} {stage:<12} {spk:>8.2f} {spk / bpk:>6.2f} {rpk:>10.1f} "
                  f"{(rpk / brk) if brk else float('nan'):>6.2f} {s['peak_mb']:>8.0f}")
    print(f"\n{'tasks':>7} {'scored':>7} {'flagged':>7} {'LLM calls/task':>14} {'LS preds':>8} {'worker MB':>9} "
          f"{'LS MB':>7} {'Redis MB':>8} {'ledger MB':>9} {'ledger/1k':>9}")
    for r in rows:
        print(f"{r['n']:>7} {r['scored']:>7} {r['flagged']:>7} {r['llm_calls'] / r['n']:>14.2f} "
              f"{r['predictions_in_ls']:>8} {r['worker_mb']:>9.0f} {r['ls_mb']:>7.0f} {r['redis_mb']:>8.1f} "
              f"{r['ledger_mb']:>9.1f} {r['ledger_mb'] / k(r):>9.2f}")
    for r in rows:
        imports = {k_: v for k_, v in r["audit"]["routes"].items() if "import/predictions" in k_}
        print(f"{r['n']:>7} tasks: audit LS calls by route {json.dumps(dict(sorted(r['audit']['routes'].items())))}")
        print(f"{r['n']:>7} tasks: prediction import calls {sum(imports.values())}")
    print("Label Studio's peak RSS is its largest process's since it started (cumulative over the sizes).")


def scale_out(count: int, args, judge: str, *, fork: bool = False) -> dict:
    """N workers vs a bare loop of N x 8 concurrent calls, same calls, same server."""
    from redis import Redis

    from backend.scoring.engine import Engine
    from backend.labelstudio.tasks import tasks_to_items
    from backend.ledger import Ledger
    from backend.scoring.members import members_from_args
    from backend.config.settings import Settings
    from backend.worker.ensemble_config import EnsembleConfig
    from backend.worker.queueing import enqueue_scoring
    from backend.worker.safety import scoring_queue

    db_name, db_url = create_database("la_bench_scaleout")
    redis = PrivateRedis()
    queue_name = f"bench-out-{uuid.uuid4().hex[:8]}"
    member = f"openai:{MODEL}@{args.judge_out}/v1"
    env = {"DATABASE_URL": db_url, "REDIS_URL": redis.url, "LABEL_AUDIT_QUEUE": queue_name,
           "LABEL_AUDIT_MEMBERS": member, "LABEL_AUDIT_HOME": tempfile.mkdtemp()}
    n = count * args.jobs_per_worker * 16
    tasks = make_tasks(n, with_ids=True)
    config = EnsembleConfig(Settings.from_env(child_env(env)))
    spec = config.spec(LABEL_CONFIG)
    ledger = Ledger(db_url)
    workers = start_workers(count, env, fork=fork)
    try:
        wait_workers(redis.url, queue_name, count)
        cpu0 = sum(cpu_seconds(w.pid) for w in workers)
        sampler = CallSampler(args.judge_out)
        started = time.perf_counter()
        enqueue_scoring(scoring_queue(queue_name, Redis.from_url(redis.url)), ledger, "1", tasks,
                        label_config=LABEL_CONFIG, config=config, model_version=config.model_version(spec))
        version = config.model_version(spec)
        wait_until(lambda: ledger.count_done("1", version) >= n, timeout=3600, interval=0.2, what="scale-out jobs")
        worker_s = time.perf_counter() - started
        worker_steady = sampler.stop()
        worker_cpu = sum(cpu_seconds(w.pid) for w in workers) - cpu0
    finally:
        for w in workers:
            w.stop()
    redis.stop()
    ledger.db_engine.dispose()
    drop_database(db_name)
    members = members_from_args([member], spec)
    engine = Engine(spec, members, cache=None)
    prompts = [engine.prompt_for(m, it) for it in tasks_to_items(tasks, spec).items for m in members]
    sampler = CallSampler(args.judge_out)
    cpu0 = time.process_time()
    bare_s = bare_loop(args.judge_out, prompts, count * 8)
    bare_cpu = time.process_time() - cpu0
    bare_steady = sampler.stop()
    return {"workers": f"{count}{' (fork)' if fork else ''}", "calls": len(prompts), "worker_s": worker_s,
            "bare_s": bare_s, "worker_steady": worker_steady, "bare_steady": bare_steady,
            "worker_cpu_ms": 1000 * worker_cpu / len(prompts), "bare_cpu_ms": 1000 * bare_cpu / len(prompts)}


class CallSampler:
    """Samples the judge's call counter; ``stop()`` gives calls/s between 20 % and 80 % of the calls made.

    The middle of a run is its steady state: a long audit (6,250 jobs at 100k tasks) is almost all
    middle, while a 30 s bench run also has a ramp (enqueueing, first dequeue) and a tail (the last job
    of each worker ends at a different time), which the whole-run ratio includes.
    """

    def __init__(self, judge: str, *, every: float = 0.25) -> None:
        import threading

        self.judge, self.every, self.samples = judge, every, []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.is_set():
            self.samples.append((time.perf_counter(), get_json(f"{self.judge}/_stats")["calls"]))
            self._done.wait(self.every)

    def stop(self) -> float:
        self._done.set()
        self._thread.join()
        (t0, c0), (_, c1) = self.samples[0], self.samples[-1]
        lo, hi = c0 + 0.2 * (c1 - c0), c0 + 0.8 * (c1 - c0)
        t_lo = next(t for t, c in self.samples if c >= lo)
        t_hi = next(t for t, c in self.samples if c >= hi)
        return (hi - lo) / max(t_hi - t_lo, 1e-9)


def bare_loop(judge: str, prompts: list[str], concurrency: int) -> float:
    import openai

    client = openai.OpenAI(api_key="bench", base_url=f"{judge}/v1", max_retries=0)

    def call(prompt: str):
        return client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": prompt}],
                                              logprobs=True, top_logprobs=20, max_tokens=2, temperature=0.0,
                                              timeout=120)

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        assert all(r.choices for r in pool.map(call, prompts))
    return time.perf_counter() - started


def print_scale_out(rows: list[dict], latency: float) -> None:
    print(f"\n== scale-out (judge latency {latency} s, 8 calls in flight per worker; bare loop in the same run) ==")
    print(f"{'':>16} {'whole run (ramp and tail included)':^36} {'steady state (20-80 % of calls)':^36}")
    print(f"{'workers':>9} {'calls':>6} {'workers/s':>11} {'bare/s':>11} {'ratio':>10} "
          f"{'workers/s':>11} {'bare/s':>11} {'ratio':>10} {'CPU ms/call w':>14} {'bare':>6}   goal >= 0.9")
    for r in rows:
        w, b = r["calls"] / r["worker_s"], r["calls"] / r["bare_s"]
        ws, bs = r["worker_steady"], r["bare_steady"]
        print(f"{r['workers']:>9} {r['calls']:>6} {w:>11.1f} {b:>11.1f} {w / b:>10.2f} "
              f"{ws:>11.1f} {bs:>11.1f} {ws / bs:>10.2f} {r['worker_cpu_ms']:>14.1f} {r['bare_cpu_ms']:>6.1f}")
    print("CPU ms/call: the workers' processes (scoring jobs, ledger and call-cache writes) vs the bare loop's "
          "process (its sampler thread included); the judge server's CPU is in neither.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--workers", type=int, default=4, help="workers for the sizes")
    parser.add_argument("--latency", type=float, default=0.2, help="judge latency for the sizes, s")
    parser.add_argument("--counts", default="1,2,4,8", help="worker counts for the scale-out ('' skips it)")
    parser.add_argument("--out-latency", type=float, default=0.5, help="judge latency for the scale-out, s")
    parser.add_argument("--jobs-per-worker", type=int, default=8)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    counts = [int(c) for c in args.counts.split(",") if c]
    services = []
    try:
        if counts:
            judge_out, url = start_http_service("tests.support.latency_judge", ["--latency", str(args.out_latency)],
                                                name="judge-out")
            services.append(judge_out)
            args.judge_out = url
            rows = [scale_out(c, args, url) for c in counts]
            rows.append(scale_out(1, args, url, fork=True))
            print_scale_out(rows, args.out_latency)
        if sizes:
            print_sizes(run_sizes(sizes, args, services))
    finally:
        for s in services:
            s.stop()


def run_sizes(sizes: list[int], args, services: list) -> list[dict]:
    from tests.support.labelstudio import start_label_studio

    ls_db, _ = create_database("la_bench_ls")
    data_dir = Path(tempfile.mkdtemp(prefix="bench-scale-ls-"))
    ls = start_label_studio(data_dir, postgres=PostgresSettings(name=ls_db))
    try:
        proxy_service, proxy = start_http_service("tests.support.counting_proxy", ["--target", ls.url], name="proxy")
        judge_service, judge = start_http_service("tests.support.latency_judge", ["--latency", str(args.latency)],
                                                  name="judge")
        services.extend([proxy_service, judge_service])
        rows = []
        for n in sizes:
            print(f"size {n}:", flush=True)
            rows.append(run_size(n, args, ls, proxy, judge))
            print(f"  audit {rows[-1]['audit']['seconds']:.0f} s, push {rows[-1]['push']['seconds']:.0f} s, "
                  f"report {rows[-1]['report']['seconds']:.0f} s", flush=True)
        return rows
    finally:
        ls.process.stop()
        drop_database(ls_db)


if __name__ == "__main__":
    main()
