"""`label-audit review instances start|status|stop` with real Label Studio 1.23.2 processes.

Two experts get an instance each: the map file is 0600, sign-up is refused on each, each expert logs in
through the form with the password ``start`` printed once, ``review push`` accepts the map and puts each
expert's project on their own instance (its URL printed), and ``stop`` leaves no process behind.
"""

from __future__ import annotations

import re
import stat

import pytest
from typer.testing import CliRunner

from backend.cli import app
from backend.demo.processes import ProcessTable, descendants
from backend.labelstudio.expert_instances import load_expert_instances
from backend.labelstudio.expert_servers import ExpertServers, check_experts
from backend.labelstudio.signup import signup_open
from backend.ledger import Ledger
from backend.results import ItemResult
from tests.support.labelstudio import login_session, unique_email
from backend.demo.services import port_open
from tests.support.services import free_port

CONFIG = ('<View><Text name="t" value="$t"/><Choices name="label" toName="t">'
          '<Choice value="0"/><Choice value="1"/></Choices></View>')


def cli(*args: str, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(app, list(args), env=env or {}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_expert_emails_are_checked():
    assert check_experts([" Ann@X.org", "ann@x.org", "bob@x.org", ""]) == ["ann@x.org", "bob@x.org"]
    with pytest.raises(ValueError, match="not an email: nobody"):
        check_experts(["nobody"])
    with pytest.raises(ValueError, match="at least one"):
        check_experts([" "])


def test_status_of_an_empty_folder(tmp_path):
    assert "no expert instances here" in cli("review", "instances", "status", "--home", str(tmp_path))
    assert "nothing was running" in cli("review", "instances", "stop", "--home", str(tmp_path))


@pytest.mark.labelstudio
def test_start_push_stop_for_two_experts(label_studio, tmp_path):
    ann, bob = unique_email("ann"), unique_email("bob")
    home = tmp_path / "home"
    servers = ExpertServers(home)
    try:
        out = cli("review", "instances", "start", "--experts", f"{ann},{bob}", "--port", str(free_port()),
                  "--home", str(home))
        urls = dict(re.findall(r"^  (\S+@\S+): (http://127\.0\.0\.1:\d+)/ ", out, re.M))
        passwords = dict(re.findall(r"^  (\S+@\S+): \S+   login \S+, password (\S+) \(shown once", out, re.M))
        assert set(urls) == set(passwords) == {ann, bob} and urls[ann] != urls[bob]
        assert f"export LABEL_AUDIT_EXPERT_INSTANCES={servers.map_path}" in out

        for secret_file in (servers.map_path, servers.secrets_path):
            assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
        mapped = load_expert_instances(servers.map_path)  # refuses a file others can read
        assert {e: c.url for e, c in mapped.items()} == urls
        assert mapped[ann].token not in out and mapped[bob].token not in out
        for email, url in urls.items():
            assert signup_open(url) is False  # a stranger's sign-up is refused (403)
            session = login_session(url, email, passwords[email])
            assert session is not None, f"{email} cannot log in with the printed password"
            session.close()

        status = cli("review", "instances", "status", "--home", str(home))
        assert status.count("running, sign-up closed") == 2

        again = cli("review", "instances", "start", "--experts", f"{ann},{bob}", "--home", str(home))
        assert "shown once" not in again and again.count(f"password in {servers.secrets_path}") == 2
        assert dict(re.findall(r"^  (\S+@\S+): (http://127\.0\.0\.1:\d+)/ ", again, re.M)) == urls  # reused

        _push(label_studio, tmp_path, servers.map_path, [ann, bob], urls)
        table = ProcessTable(servers.root / "pids")
        processes = [(r, descendants(r.pid)) for r in table.records()]
        assert len(processes) == 2
    finally:
        stopped = cli("review", "instances", "stop", "--home", str(home))
    assert ann in stopped and bob in stopped
    for record, children in processes:
        assert not record.alive() and not any(_alive(pid) for pid in children)
    assert not any(port_open(int(url.rsplit(":", 1)[1])) for url in urls.values())
    assert cli("review", "instances", "status", "--home", str(home)).count("stopped") == 2


def _alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _push(source, tmp_path, map_path, experts: list[str], urls: dict[str, str]) -> None:
    """``review push`` with the map: each expert's review project on their own instance, its URL printed."""
    choice = [{"from_name": "label", "to_name": "t", "type": "choices", "value": {"choices": ["0"]}}]
    project, ids = source.create_project(CONFIG, [{"data": {"t": f"claim {k}"}, "annotations": [{"result": choice}]}
                                                  for k in range(3)])
    db = f"sqlite:///{tmp_path / 'audit.sqlite'}"
    Ledger(db).record_many(str(project), "label-audit-0123456789ab", [
        ItemResult(id=str(t), original="0", prediction="1", confidence=0.9, probs=None, flagged=True) for t in ids])
    env = {"LABEL_STUDIO_URL": source.url, "LABEL_STUDIO_API_KEY": source.token, "DATABASE_URL": db,
           "LABEL_AUDIT_EXPERT_INSTANCES": str(map_path), "LABEL_AUDIT_REVIEW_URL": "",
           "LABEL_AUDIT_REVIEW_API_KEY": ""}
    out = cli("review", "push", "--project", str(project), "--experts", ",".join(experts), env=env)
    assert "3 items under review" in out, out
    for email in experts:
        assert re.search(rf"{re.escape(email)}: review project \d+ \(\+3 tasks\) {re.escape(urls[email])}/projects/\d+/",
                         out), out
