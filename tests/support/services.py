"""Real Redis and PostgreSQL for the tests.

Locally a missing service skips its tests with the reason; under CI (``CI=true``) it fails them,
so a green CI run can never mean "the Redis/PostgreSQL tests silently did not run".
"""

from __future__ import annotations

import os
import random
import socket
import uuid
from typing import Iterator

import pytest

REDIS_URL = os.environ.get("LABEL_AUDIT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
PG_ADMIN_URL = os.environ.get("LABEL_AUDIT_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


#: Ports handed to servers the tests start: below Linux's ephemeral range (32768-60999), so no outgoing
#: connection of a busy machine takes one as its local port between the check and the server's bind
#: (seen: a demo's Label Studio failing with "That port is already in use").
TEST_PORTS = range(20000, 32000)


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(*, span: int = 1) -> int:
    """A TCP port nothing listens on now, with the ``span - 1`` ports above it free too (a demo puts each
    expert's instance above the review port)."""
    rng = random.Random()
    for _ in range(500):
        port = rng.randrange(TEST_PORTS.start, TEST_PORTS.stop - span)
        if all(_bindable(port + k) for k in range(span)):
            return port
    raise RuntimeError(f"no free run of {span} port(s) in {TEST_PORTS}")


def missing_service(what: str) -> None:
    """Skip locally, fail in CI: CI machines start Redis and PostgreSQL, so absence is a bug there."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{what} is not reachable, and CI requires it")
    pytest.skip(f"{what} is not reachable on loopback")


@pytest.fixture(scope="session")
def redis_url() -> str:
    """URL of a real Redis; each test should use its own key prefix or queue name."""
    if not port_open("127.0.0.1", 6379):
        missing_service("Redis at 127.0.0.1:6379")
    return REDIS_URL


@pytest.fixture()
def postgres_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    if not port_open("127.0.0.1", 5432):
        missing_service("PostgreSQL at 127.0.0.1:5432")
    import psycopg

    name = f"la_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
