"""The ML backend over real HTTP (``label-audit serve`` = gunicorn, and the WSGI module under gunicorn):
no start without credentials, auth before any body is read, a request size limit, /setup validates a
label config before storing it."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from redis import Redis

from backend.labelstudio.labelconfig import label_config_for_spec
from backend.ledger import Ledger
from backend.task.spec import load_spec
from tests.backend.server.backend_process import REPO, BackendProcess
from tests.support.services import free_port

LABEL_CONFIG = label_config_for_spec(load_spec("factual-consistency"))
USER, PASSWORD = "ls", "backend-secret-7"
GOOD = {"Authorization": "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()}
WRONG = {"Authorization": "Basic " + base64.b64encode(b"ls:wrong").decode()}
LIMIT = 1_000_000


def _base_env(tmp_path: Path, redis_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("BASIC_AUTH_USER", "BASIC_AUTH_PASS",
                                                            "LABEL_AUDIT_INSECURE_NO_AUTH")}
    return {**env, "DATABASE_URL": f"sqlite:///{tmp_path / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(tmp_path),
            "REDIS_URL": redis_url, "LABEL_AUDIT_QUEUE": f"sec-{uuid.uuid4().hex[:10]}",
            # an OpenAI-protocol member on a closed port: nothing is loaded, nothing is called
            "LABEL_AUDIT_MEMBERS": "openai:smol@http://127.0.0.1:9/v1",
            "LABEL_AUDIT_MAX_REQUEST_BYTES": str(LIMIT), "PYTHONPATH": str(REPO)}


@pytest.fixture()
def backend(tmp_path, redis_url):
    env = {**_base_env(tmp_path, redis_url), "BASIC_AUTH_USER": USER, "BASIC_AUTH_PASS": PASSWORD}
    proc = BackendProcess(env)
    proc.env = env
    proc.start()
    yield proc
    proc.stop()


def _request(url: str, *, body: dict | None = None, headers: dict | None = None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status, json.loads(resp.read() or b"null"), dict(resp.headers)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null"), dict(err.headers)


def test_serve_refuses_to_start_without_credentials(tmp_path, redis_url) -> None:
    cli = Path(sys.executable).with_name("label-audit")
    done = subprocess.run([str(cli), "serve", "--port", str(free_port())], env=_base_env(tmp_path, redis_url),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "BASIC_AUTH_USER" in done.stderr and "--insecure-no-auth" in done.stderr


def test_wsgi_app_refuses_to_load_without_credentials(tmp_path, redis_url) -> None:
    gunicorn = Path(sys.executable).with_name("gunicorn")
    done = subprocess.run([str(gunicorn), "--bind", f"127.0.0.1:{free_port()}", "backend.server.wsgi:app"],
                          env=_base_env(tmp_path, redis_url), capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode != 0
    assert "BASIC_AUTH_USER" in done.stderr


def test_insecure_mode_must_be_asked_for_and_warns(tmp_path, redis_url) -> None:
    proc = BackendProcess(_base_env(tmp_path, redis_url))
    cli = Path(sys.executable).with_name("label-audit")
    proc.proc = subprocess.Popen([str(cli), "serve", "--port", str(proc.port), "--insecure-no-auth"], env=proc.env,
                                 stdout=proc.log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                status, body, _ = _request(f"{proc.url}/health")
                break
            except OSError:
                time.sleep(0.3)
        assert status == 200 and body["status"] == "UP"
        assert "WITHOUT authentication" in proc.log_tail()
    finally:
        proc.stop()


def test_serve_runs_gunicorn_not_the_development_server(backend) -> None:
    status, _, headers = _request(f"{backend.url}/health", headers=GOOD)
    assert status == 200
    assert "gunicorn" in headers.get("Server", "").lower() and "werkzeug" not in headers.get("Server", "").lower()


def test_unauthenticated_tasks_created_webhook_queues_nothing(backend, redis_url) -> None:
    created = {"action": "TASKS_CREATED", "project": {"id": 7, "label_config": LABEL_CONFIG},
               "tasks": [{"id": 1, "data": {"grounding": "planted", "generated_text": "planted"}}]}
    status, body, _ = _request(f"{backend.url}/webhook", body=created)
    assert status == 200 and body["status"] == "ignored"
    assert _request(f"{backend.url}/webhook", body=created, headers=WRONG)[0] == 401
    assert Redis.from_url(redis_url).llen(f"rq:queue:{backend.env['LABEL_AUDIT_QUEUE']}") == 0
    assert Ledger(backend.env["DATABASE_URL"]).project("7") is None


def _partial_post(url: str, path: str, headers: dict, *, declared: int, sent: int) -> str:
    """Send headers declaring ``declared`` body bytes but only ``sent`` of them; return the status line."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        head = [f"POST {path} HTTP/1.1", f"Host: {host}", "Content-Type: application/json",
                f"Content-Length: {declared}", *[f"{k}: {v}" for k, v in headers.items()], "", ""]
        sock.sendall("\r\n".join(head).encode() + b"{" + b" " * (sent - 1))
        sock.settimeout(8)
        return sock.recv(200).decode("latin-1").split("\r\n", 1)[0]


def test_auth_is_checked_before_the_body_is_read(backend) -> None:
    # 16 MB announced, 64 KB sent: an answer now proves the body was never waited for, let alone parsed
    line = _partial_post(backend.url, "/webhook", WRONG, declared=16 * 1024 * 1024, sent=64 * 1024)
    assert " 401 " in line
    line = _partial_post(backend.url, "/predict", {}, declared=16 * 1024 * 1024, sent=64 * 1024)
    assert " 401 " in line


def test_request_size_is_limited(backend) -> None:
    line = _partial_post(backend.url, "/predict", GOOD, declared=LIMIT + 1, sent=1024)
    assert " 413 " in line


def test_setup_validates_a_label_config_before_storing_it(backend) -> None:
    status, body, _ = _request(f"{backend.url}/setup", body={"project": "7.1", "schema": LABEL_CONFIG}, headers=GOOD)
    assert status == 200
    version = body["model_version"]
    status, body, _ = _request(f"{backend.url}/setup", headers=GOOD,
                               body={"project": "7.2", "schema": "<View><Text name='t' value='$t'/></View>"})
    assert status == 400
    assert Ledger(backend.env["DATABASE_URL"]).project("7")["label_config"] == LABEL_CONFIG
    status, body, _ = _request(f"{backend.url}/versions?project=7", headers=GOOD)
    assert status == 200 and body == {"versions": [version]}
