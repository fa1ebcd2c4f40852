"""Load and enqueue race against `label-audit serve`, for one code tree; run it for main and for a branch.

Two measurements per ledger (SQLite file, PostgreSQL database), each against the real CLI
(``label-audit serve`` under gunicorn), real Redis and real ``rq worker`` processes:

1. **Race**: ``--clients`` simultaneous ``/predict`` calls for the same ``--tasks`` new tasks; then the
   queue entries per job id are counted (1 = no duplicate) and two workers score everything against a
   latency-bound OpenAI-protocol server (this script's, ``--latency`` s a call, fixed logprobs), which
   counts the LLM calls per unique prompt (1.0 = every (member, prompt, item) paid once).
2. **Load**: ``--clients`` clients call ``/predict`` for the (now scored) tasks for ``--seconds``:
   p50/p95 latency, errors (non-200 or no answer), and the resident memory of the serve process tree.

Nothing here judges anything: the server's answer is fixed. Ratios are printed against the other code
tree only when both are run in the same invocation (``--baseline PATH``: a checkout of main, e.g.
``git archive b50f3f5 backend prompts stats_cli | tar -x -C /tmp/old``).

Run: ``python bench/bench_load.py [--baseline /tmp/old] [--seconds 60] [--ledgers sqlite,postgresql]``.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
from tests.backend.reliability.llm_server import LLMServer  # noqa: E402  (test-only, counts the calls)

BIN = Path(sys.executable).parent
AUTH = {"Authorization": "Basic " + base64.b64encode(b"bench:bench-pass").decode()}
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
def _post(url: str, body: dict, timeout: float = 30.0) -> tuple[int, dict | None]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **AUTH})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, None
    except OSError:
        return 0, None


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _rss_kb(pid: int) -> int:
    """Resident memory of ``pid`` and its descendants (kB, from /proc)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            for child in Path(f"/proc/{current}/task/{current}/children").read_text().split():
                todo.append(int(child))
        except OSError:
            continue
    return total


def _tasks(n: int) -> list[dict]:
    return [{"id": i, "data": {"grounding": f"Document {i}: the cat sat on the mat in Paris.",
                               "generated_text": f"Claim {i}: the cat sat."},
             "annotations": [{"id": 10_000 + i, "completed_by": 1, "result": [
                 {"from_name": "label", "to_name": "generated_text", "type": "choices",
                  "value": {"choices": [str(i % 2)]}}]}]} for i in range(1, n + 1)]


def _database(kind: str, tmp: Path) -> tuple[str, callable]:
    if kind == "sqlite":
        return f"sqlite:///{tmp / f'ledger-{uuid.uuid4().hex[:6]}.sqlite'}", lambda: None
    import psycopg

    name = f"la_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return f"postgresql://postgres@127.0.0.1:5432/{name}", drop


def run_one(code: Path, kind: str, args, llm: LLMServer, tmp: Path) -> dict:
    """Race then load, for one code tree and one ledger kind."""
    from redis import Redis

    url, drop = _database(kind, tmp)
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PYTHONPATH": str(code), "DATABASE_URL": url, "LABEL_AUDIT_HOME": str(tmp),
           "LABEL_AUDIT_QUEUE": queue, "REDIS_URL": args.redis, "BASIC_AUTH_USER": "bench",
           "BASIC_AUTH_PASS": "bench-pass", "LABEL_AUDIT_MEMBERS": f"openai:bench@{llm.url}",
           "OPENAI_API_KEY": "bench-not-a-key", "LABEL_STUDIO_URL": "", "LABEL_STUDIO_API_KEY": ""}
    port = _free_port()
    log = open(tmp / f"serve-{kind}-{code.name}.log", "wb")
    serve = subprocess.Popen([str(BIN / "label-audit"), "serve", "--port", str(port)], cwd=code, env=env,
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    workers: list[subprocess.Popen] = []
    try:
        deadline = time.monotonic() + 120
        while _post(f"{base}/setup", {"project": "1.1", "schema": args.label_config})[0] != 200:
            if time.monotonic() > deadline or serve.poll() is not None:
                raise RuntimeError(f"serve did not start; see {log.name}")
            time.sleep(0.5)
        tasks = _tasks(args.tasks)
        body = {"project": "1.1", "label_config": args.label_config, "tasks": tasks}
        barrier = threading.Barrier(args.clients)

        def burst() -> None:
            barrier.wait()
            _post(f"{base}/predict", body)

        threads = [threading.Thread(target=burst) for _ in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        redis = Redis.from_url(args.redis)
        entries = Counter(x.decode() for x in redis.lrange(f"rq:queue:{queue}", 0, -1))
        llm.calls.clear()
        for _ in range(2):
            workers.append(subprocess.Popen([str(BIN / "rq"), "worker", "--url", args.redis, "--burst",
                                             "-w", "backend.worker.recovery.AuditWorker", queue], cwd=code,
                                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True))
        for w in workers:
            w.wait(timeout=600)
        calls = dict(llm.calls)
        scored = sum(1 for r in _post(f"{base}/predict", body)[1]["results"] if r)
        latencies, errors = _load(base, body, args)
        rss = _rss_kb(serve.pid)
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
        serve.terminate()
        serve.wait(timeout=30)
        drop()
    return {"jobs": len(entries), "entries": sum(entries.values()), "max_copies": max(entries.values() or [0]),
            "llm_calls": sum(calls.values()), "unique_prompts": len(calls), "scored": scored,
            "requests": len(latencies) + errors, "errors": errors, "rss_mb": rss / 1024,
            "p50_ms": statistics.median(latencies) * 1000 if latencies else float("nan"),
            "p95_ms": statistics.quantiles(latencies, n=20)[18] * 1000 if len(latencies) > 20 else float("nan")}


def _load(base: str, body: dict, args) -> tuple[list[float], int]:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    stop = time.monotonic() + args.seconds

    def client() -> None:
        nonlocal errors
        while time.monotonic() < stop:
            start = time.perf_counter()
            status, answer = _post(f"{base}/predict", body)
            took = time.perf_counter() - start
            with lock:
                if status == 200 and answer and len(answer["results"]) == len(body["tasks"]):
                    latencies.append(took)
                else:
                    errors += 1

    threads = [threading.Thread(target=client) for _ in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="a checkout of the code to compare with (e.g. main)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per LLM call")
    parser.add_argument("--ledgers", default="sqlite,postgresql")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    from backend.labelstudio.labelconfig import label_config_for_spec
    from backend.task.spec import load_spec

    args.label_config = label_config_for_spec(load_spec("factual-consistency"))
    llm = LLMServer(args.latency)
    codes = ([("baseline", args.baseline.resolve())] if args.baseline else []) + [("this tree", HERE)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.ledgers.split(","):
            for name, code in codes:
                rows.append((name, kind, run_one(code, kind, args, llm, Path(tmp))))
    print(f"{args.clients} clients, {args.tasks} tasks (race), {args.seconds:.0f} s of /predict (load), "
          f"LLM latency {args.latency * 1000:.0f} ms, 2 rq workers")
    print(f"{'code':10} {'ledger':10} {'jobs':>4} {'queue entries':>13} {'max copies':>10} {'LLM calls':>9} "
          f"{'per unique':>10} {'requests':>8} {'errors':>6} {'p50 ms':>7} {'p95 ms':>7} {'RSS MB':>7}")
    for name, kind, r in rows:
        per = r["llm_calls"] / r["unique_prompts"] if r["unique_prompts"] else float("nan")
        print(f"{name:10} {kind:10} {r['jobs']:>4} {r['entries']:>13} {r['max_copies']:>10} {r['llm_calls']:>9} "
              f"{per:>10.2f} {r['requests']:>8} {r['errors']:>6} {r['p50_ms']:>7.1f} {r['p95_ms']:>7.1f} "
              f"{r['rss_mb']:>7.0f}")
    if args.baseline:
        for kind in args.ledgers.split(","):
            old, new = [r for _, k, r in rows if k == kind]
            print(f"{kind}: p50 ratio this/baseline {new['p50_ms'] / old['p50_ms']:.2f}, "
                  f"LLM calls ratio {new['llm_calls'] / max(old['llm_calls'], 1):.2f} (n = {args.tasks} items)")


if __name__ == "__main__":
    main()
