"""The backend under a read-only ledger, with Redis down, and against hostile bodies (real `label-audit serve`,
real PostgreSQL and Redis)."""

from __future__ import annotations

import psycopg
import pytest

from backend.ledger import Ledger
from backend.scoring.results import ItemResult
from backend.worker.ensemble_config import EnsembleConfig
from tests.backend.security.test_backend_http import GOOD, LABEL_CONFIG, USER, PASSWORD, _base_env, _request
from tests.backend.server.backend_process import BackendProcess
from tests.backend.worker.conftest import make_tasks

pytestmark = [pytest.mark.redis]


def _serve(tmp_path, redis_url: str, **env: str) -> BackendProcess:
    proc = BackendProcess({**_base_env(tmp_path, redis_url), "BASIC_AUTH_USER": USER, "BASIC_AUTH_PASS": PASSWORD,
                           **env})
    return proc.start()


def _version() -> str:
    config = EnsembleConfig(members=({"provider": "openai", "model": "smol", "base_url": "http://127.0.0.1:9/v1"},))
    return config.model_version(config.spec(LABEL_CONFIG))


def _scored(ledger: Ledger, tasks: list[dict]) -> None:
    from backend.labelstudio.tasks import tasks_to_items
    from backend.scoring.results import input_hash

    config = EnsembleConfig(members=({"provider": "openai", "model": "smol", "base_url": "http://127.0.0.1:9/v1"},))
    items = tasks_to_items(tasks, config.spec(LABEL_CONFIG)).items
    ledger.record_many("7", _version(), [ItemResult.from_json({
        "id": it.id, "original": "0", "prediction": "1", "confidence": 0.8, "probs": {"0": 0.2, "1": 0.8},
        "flagged": True, "input_hash": input_hash(it.fields)}) for it in items])
    ledger.set_project("7", label_config=LABEL_CONFIG)


def test_scored_tasks_are_answered_from_a_read_only_ledger_and_health_says_so(tmp_path, redis_url,
                                                                              postgres_url) -> None:
    tasks = make_tasks(3)
    _scored(Ledger(postgres_url), tasks)
    name = postgres_url.rsplit("/", 1)[1]
    with psycopg.connect(postgres_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    proc = _serve(tmp_path, redis_url, DATABASE_URL=postgres_url)  # a read-only start
    try:
        for _ in range(2):  # before: 500 (recording "imported" is a write), and it stayed 500
            status, body, _ = _request(f"{proc.url}/predict", headers=GOOD,
                                       body={"project": "7.1", "tasks": tasks, "label_config": LABEL_CONFIG})
            assert status == 200, proc.log_tail()
            assert [r["score"] for r in body["results"]] == [0.8, 0.8, 0.8]
        status, body, _ = _request(f"{proc.url}/health", headers=GOOD)
        assert status == 200 and body["status"] == "DEGRADED"  # before: "UP"
        assert body["checks"]["ledger"] == "read-only" and body["checks"]["redis"] == "ok"
    finally:
        proc.stop()


def test_a_webhook_that_cannot_enqueue_says_so(tmp_path, redis_url) -> None:
    proc = _serve(tmp_path, redis_url, REDIS_URL="redis://127.0.0.1:9/0")  # nothing listens there
    try:
        status, body, _ = _request(f"{proc.url}/webhook", headers=GOOD, body={
            "action": "TASKS_CREATED", "project": {"id": 7, "label_config": LABEL_CONFIG}, "tasks": make_tasks(2)})
        # before: 200 {"status": "queued", "jobs": []}: the work was lost without a word
        assert status == 503 and body["status"] == "not_queued" and "Redis" in body["reason"]
        status, body, _ = _request(f"{proc.url}/predict", headers=GOOD,
                                   body={"project": "7.1", "tasks": make_tasks(2), "label_config": LABEL_CONFIG})
        assert status == 200 and body["results"] == [[], []] and body["queue_status"] == "not_queued"
        status, body, _ = _request(f"{proc.url}/health", headers=GOOD)
        assert body["status"] == "DEGRADED" and body["checks"]["redis"].startswith("unavailable")
        assert body["checks"]["ledger"] == "ok"
    finally:
        proc.stop()


def test_a_body_nested_200000_deep_is_a_bad_request(tmp_path, redis_url) -> None:
    proc = _serve(tmp_path, redis_url)
    try:
        nested = b'{"tasks": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
        import urllib.error
        import urllib.request

        req = urllib.request.Request(f"{proc.url}/predict", data=nested,
                                     headers={"Content-Type": "application/json", **GOOD})
        try:
            with urllib.request.urlopen(req, timeout=20) as resp:
                status = resp.status
        except urllib.error.HTTPError as err:
            status = err.code
        assert status == 400, proc.log_tail()  # before: 500 (RecursionError in the JSON parser)
    finally:
        proc.stop()


def test_a_label_config_with_an_entity_bomb_is_refused(tmp_path, redis_url) -> None:
    entity = "x" * 100_000
    bomb = (f'<!DOCTYPE View [<!ENTITY big "{entity}">]>'
            + LABEL_CONFIG.replace("<View>", "<View><Header value=\"" + "&big;" * 90 + "\"/>", 1))
    assert "&big;" in bomb
    proc = _serve(tmp_path, redis_url)
    try:
        status, body, _ = _request(f"{proc.url}/setup", headers=GOOD, body={"project": "7.1", "schema": bomb})
        # before: accepted (~9 MB expanded in memory, stored as the project's config)
        assert status == 400 and "entities" in body["error"], body
        status, body, _ = _request(f"{proc.url}/setup", headers=GOOD, body={"project": "7.1", "schema": LABEL_CONFIG})
        assert status == 200 and body["model_version"]
    finally:
        proc.stop()
