"""/predict latency for 100 already-scored tasks, against baselines measured in the same run.

Label Studio calls /predict with a page of tasks and gives up after ``ML_TIMEOUT_PREDICT`` (100 s);
answering scored tasks must stay a ledger read plus JSON. This serves the real Flask app over real
HTTP (werkzeug, loopback), with a SQLite ledger holding 100 scored tasks, and prints the median
latency of /predict for those 100 tasks next to (a) GET /health over the same HTTP path and (b) the
bare ledger read of the same 100 results, with the ratios.

Run: ``python bench/bench_predict.py [--repeat 30]``. No LLM is called (every task is cached).
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rq import Queue  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from backend.labelstudio.labelconfig import label_config_for_spec  # noqa: E402
from backend.ledger import Ledger  # noqa: E402
from backend.scoring.results import ItemResult, MemberResult  # noqa: E402
from backend.server import create_app  # noqa: E402
from backend.server.auth import BasicAuth  # noqa: E402
from backend.task.spec import load_spec  # noqa: E402
from backend.worker.ensemble_config import EnsembleConfig  # noqa: E402
from backend.worker.queueing import redis_connection  # noqa: E402

LABEL_CONFIG = label_config_for_spec(load_spec("factual-consistency"))
# Only the model_version is computed from the members here; no call is made to this address.
MEMBER = {"provider": "openai", "model": "bench", "base_url": "http://127.0.0.1:9/v1", "prompts": None, "options": {}}
N_TASKS = 100


def _post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)


def _time(fn, repeat: int) -> list[float]:
    fn()  # warm-up
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one access line per request would skew timing
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(f"sqlite:///{Path(tmp) / 'bench.sqlite'}")
        config = EnsembleConfig(members=(MEMBER,))
        version = config.model_version(config.spec(LABEL_CONFIG))
        members = tuple(MemberResult(f"openai:bench/p{k}@v1", probs={"0": 0.3, "1": 0.7}, latency_s=0.5)
                        for k in range(4))
        ledger.record_many("1", version, [
            ItemResult(id=str(i), original="0", prediction="1", confidence=0.7, probs={"0": 0.3, "1": 0.7},
                       flagged=True, members=members, data={"grounding": "doc " * 50, "generated_text": "claim"})
            for i in range(1, N_TASKS + 1)])
        queue = Queue("bench-predict-unused", connection=redis_connection("redis://127.0.0.1:9/0"))
        app = create_app(ledger=ledger, queue=queue, config=config, auth=BasicAuth(), insecure_no_auth=True)
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}"
        try:
            _post(f"{url}/setup", {"project": "1.1", "schema": LABEL_CONFIG})
            tasks = [{"id": i, "data": {"grounding": "doc " * 50, "generated_text": "claim"}, "annotations": []}
                     for i in range(1, N_TASKS + 1)]
            body = {"project": "1.1", "label_config": LABEL_CONFIG, "tasks": tasks}
            answer = _post(f"{url}/predict", body)
            assert len(answer["results"]) == N_TASKS and all(r["score"] == 0.7 for r in answer["results"])
            ids = [str(i) for i in range(1, N_TASKS + 1)]
            predict = _time(lambda: _post(f"{url}/predict", body), args.repeat)
            health = _time(lambda: urllib.request.urlopen(f"{url}/health", timeout=30).read(), args.repeat)
            ledger_read = _time(lambda: ledger.results_for("1", ids, version), args.repeat)
        finally:
            server.shutdown()
    p, h, r = (statistics.median(x) * 1000 for x in (predict, health, ledger_read))
    print(f"/predict, {N_TASKS} cached tasks: median {p:.1f} ms (min {min(predict) * 1000:.1f}, "
          f"max {max(predict) * 1000:.1f}) over {args.repeat} runs")
    print(f"GET /health baseline:           median {h:.2f} ms")
    print(f"bare ledger read of {N_TASKS} results: median {r:.1f} ms")
    print(f"ratio /predict : /health       = {p / h:.1f}x")
    print(f"ratio /predict : ledger read   = {p / r:.1f}x")
    print(f"share of LS's 100 s predict timeout used: {p / 100_000:.4%}")


if __name__ == "__main__":
    main()
