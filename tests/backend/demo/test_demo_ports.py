"""The reconciliation instance's port: chosen at the first run, used only when round 2 begins.

A CI run failed when another program held the saved port by then ("busy, not this demo's Label Studio");
a real listening socket stands in for that program here.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from backend.demo.home import RECONCILE_INSTANCE, DemoHome, load_state, save_state
from backend.demo.run import reconcile_port
from tests.support.services import free_port


@pytest.fixture()
def held_port() -> Iterator[int]:
    """A port another program listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", free_port()))
        sock.listen()
        yield sock.getsockname()[1]


def _home(tmp_path, ports: dict[str, int]) -> tuple[DemoHome, dict]:
    home = DemoHome.at(tmp_path)
    home.root.mkdir(parents=True)
    state = {"ports": dict(ports)}
    save_state(home, state)
    return home, state


def test_a_busy_port_moves_up_before_the_first_start_and_is_saved(tmp_path, held_port: int) -> None:
    home, state = _home(tmp_path, {"source": held_port + 1, RECONCILE_INSTANCE: held_port})
    port = reconcile_port(home, state)
    assert port not in (held_port, held_port + 1) and port > held_port
    assert load_state(home)["ports"][RECONCILE_INSTANCE] == port  # the next run reuses the moved port


def test_a_free_port_is_kept(tmp_path) -> None:
    port = free_port()
    home, state = _home(tmp_path, {RECONCILE_INSTANCE: port})
    assert reconcile_port(home, state) == port


def test_an_instance_started_before_keeps_its_port(tmp_path, held_port: int) -> None:
    """Once started, its port is its own (a busy port then is its own server, or a clear error later)."""
    home, state = _home(tmp_path, {RECONCILE_INSTANCE: held_port})
    home.ls_data(RECONCILE_INSTANCE).mkdir()
    assert reconcile_port(home, state) == held_port
