"""Faults around the workers: the LLM server down then back, Redis restarted under a running worker."""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid

import pytest
from redis import Redis
from rq import Queue

from backend.ledger import Ledger
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.queueing import enqueue_scoring
from tests.backend.server.conftest import LABEL_CONFIG
from tests.backend.worker.conftest import local_config, make_tasks, members_env
from tests.backend.worker.rq_process import wait_until
from tests.support.services import free_port, missing_service, port_open

pytestmark = [pytest.mark.redis, pytest.mark.llm]


def test_llm_server_down_then_back(env, queue, workers, private_llama_server, tmp_path):
    server = private_llama_server
    member = {"provider": "openai", "model": server.model, "base_url": server.base_url,
              "prompts": ["fc-premise-hypothesis"], "options": {}}
    config = EnsembleConfig(members=(member,), batch_size=4)
    spec = config.spec(LABEL_CONFIG)
    version = config.model_version(spec)
    ledger = Ledger(env["DATABASE_URL"])
    tasks = make_tasks(4)
    ids = [str(t["id"]) for t in tasks]
    server.stop()
    (job_id,) = enqueue_scoring(queue, ledger, "7", tasks, label_config=LABEL_CONFIG, config=config,
                                model_version=version)
    workers(extra_env=members_env(tmp_path, config))
    wait_until(lambda: (ledger.jobs.get(job_id).status == "retrying"), timeout=180,
               what="the first attempt to give up on the unreachable server")
    job = ledger.jobs.get(job_id)
    assert "deferred" in job.error
    assert ledger.pending("7", ids, version) == ids  # a connection error is not a verdict: nothing stored
    server.start()
    wait_until(lambda: not ledger.pending("7", ids, version), timeout=240, what="scoring after the server came back")
    results = ledger.results("7", model_version=version)
    # the verdicts are the model's (SmolLM2 behind the server often answers no class token at all);
    # what matters is that none of them is the outage
    assert len(results) == 4
    assert all(m.error is None or not m.error.retryable for r in results for m in r.members)
    assert all(r.prediction in ("0", "1") or r.reason == "no_member_answered" for r in results)
    wait_until(lambda: ledger.jobs.get(job_id).status == "finished", timeout=30, what="job finished")
    assert ledger.jobs.get(job_id).attempts >= 2


class PrivateRedis:
    """A redis-server of this test's own (never the shared one on 6379), with an append-only file."""

    def __init__(self, data_dir) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            missing_service("redis-server executable")
        self.binary = binary
        self.port = free_port()
        self.data_dir = data_dir
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "PrivateRedis":
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir),
             "--appendonly", "yes", "--appendfsync", "always", "--save", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: port_open("127.0.0.1", self.port), timeout=20, what="private redis-server")
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None


@pytest.fixture()
def private_redis(tmp_path):
    server = PrivateRedis(tmp_path).start()
    yield server
    server.stop()


class RedisScene:
    """One project's scoring on a private Redis with one worker: enqueue batches, wait for their verdicts."""

    def __init__(self, env, workers, redis_server: PrivateRedis, *, batch_size: int) -> None:
        self.ledger = Ledger(env["DATABASE_URL"])
        self.config = local_config(prompts=["fc-premise-hypothesis"], batch_size=batch_size)
        self.version = self.config.model_version(self.config.spec(LABEL_CONFIG))
        self.redis = redis_server
        self.queue_name = f"test-{uuid.uuid4().hex[:10]}"
        self.worker = workers(url=redis_server.url, queue_name=self.queue_name)

    def enqueue(self, tasks: list[dict]) -> list[str]:
        queue = Queue(self.queue_name, connection=Redis.from_url(self.redis.url))  # a new one after a restart
        return enqueue_scoring(queue, self.ledger, "7", tasks, label_config=LABEL_CONFIG, config=self.config,
                               model_version=self.version)

    def wait_scored(self, tasks: list[dict], *, what: str, timeout: float = 240) -> None:
        ids = [str(t["id"]) for t in tasks]
        try:
            wait_until(lambda: not self.ledger.pending("7", ids, self.version), timeout=timeout, what=what)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self.worker.log_tail()}") from None

    def stored(self) -> int:
        return len(self.ledger.results("7", model_version=self.version))


def test_worker_survives_a_redis_restart(env, workers, private_redis):
    scene = RedisScene(env, workers, private_redis, batch_size=3)
    scene.enqueue(make_tasks(3))
    scene.wait_scored(make_tasks(3), what="first batch", timeout=180)
    private_redis.stop()  # SIGKILL: the worker loses its connection
    private_redis.start()  # same port, same append-only file
    assert scene.worker.proc.poll() is None, scene.worker.log_tail()
    second = make_tasks(3, start=10)
    scene.enqueue(second)
    scene.wait_scored(second, what="the worker to reconnect and score the second batch")
    assert scene.worker.proc.poll() is None
    assert scene.stored() == 6  # the ledger, not Redis, kept the first batch


def test_worker_survives_redis_down_while_a_job_ends(env, workers, private_redis):
    """Redis gone while a job runs and still gone when it ends: rq cannot record the job's end.

    rq's work loop quits on any Redis error outside its dequeue wait (the job's success or failure
    bookkeeping, the heartbeat after a job, the suspension check). The worker must instead wait for
    Redis, keep the verdicts the job stored in the ledger, and take new jobs once Redis is back.
    """
    scene = RedisScene(env, workers, private_redis, batch_size=6)
    first, second = make_tasks(6), make_tasks(3, start=10)
    (job_id,) = scene.enqueue(first)
    wait_until(lambda: scene.ledger.jobs.get(job_id).status == "started", timeout=180, what="the job to start")
    private_redis.stop()
    scene.wait_scored(first, what="the job to store its verdicts with Redis down", timeout=180)
    time.sleep(3)  # the job's end is recorded (or not) while Redis is still away
    assert scene.worker.proc.poll() is None, scene.worker.log_tail()
    private_redis.start()
    scene.enqueue(second)
    scene.wait_scored(second, what="the worker to take a new job after Redis came back")
    assert scene.worker.proc.poll() is None, scene.worker.log_tail()
    assert scene.stored() == 9
