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
from backend.demo.expert_servers import ExpertServers, check_experts
from backend.labelstudio.signup import signup_open
from backend.ledger import Ledger
from backend.scoring.results import ItemResult
from tests.support.labelstudio import login_session, unique_email
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
def test_start_push_stop_for_two_experts(label_studio, review_ls, tmp_path):
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

        _review(label_studio, review_ls, tmp_path, servers.map_path, [ann, bob], urls)
        table = ProcessTable(servers.root / "pids")
        processes = [(r, descendants(r.pid)) for r in table.records()]
        assert len(processes) == 2
    finally:
        stopped = cli("review", "instances", "stop", "--home", str(home))
    assert ann in stopped and bob in stopped
    for record, children in processes:
        assert not record.alive() and not any(_alive(pid) for pid in children)
    for conn in load_expert_instances(servers.map_path).values():  # nothing answers with their tokens any more
        assert not _answers(conn.url, conn.token)
    assert cli("review", "instances", "status", "--home", str(home)).count("stopped") == 2


def _answers(url: str, token: str) -> bool:
    """True when a Label Studio on ``url`` accepts ``token`` (another server on a reused port cannot)."""
    import httpx

    try:
        return httpx.get(f"{url}/api/current-user/whoami", headers={"Authorization": f"Token {token}"},
                         timeout=3.0).status_code == 200
    except httpx.HTTPError:
        return False


def _alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _review(source, review_ls, tmp_path, map_path, experts: list[str], urls: dict[str, str]) -> None:
    """``review push`` accepts the map: each expert's project on their own instance. Every command that
    creates or reads review projects prints each project's URL on its own instance."""
    from backend.labelstudio.client import connect, iter_tasks
    from backend.review.review_store import ROUND_RECONCILE, ROUND_REVIEW, ReviewStore
    from stats_cli.cli import app as audit_stats

    choice = [{"from_name": "label", "to_name": "t", "type": "choices", "value": {"choices": ["0"]}}]
    project, ids = source.create_project(CONFIG, [{"data": {"t": f"claim {k}"}, "annotations": [{"result": choice}]}
                                                  for k in range(3)])
    db = f"sqlite:///{tmp_path / 'audit.sqlite'}"
    Ledger(db).record_many(str(project), "label-audit-0123456789ab", [
        ItemResult(id=str(t), original="0", prediction="1", confidence=0.9, probs=None, flagged=True) for t in ids])
    env = {"LABEL_STUDIO_URL": source.url, "LABEL_STUDIO_API_KEY": source.token, "DATABASE_URL": db,
           "LABEL_AUDIT_EXPERT_INSTANCES": str(map_path), "LABEL_AUDIT_REVIEW_URL": review_ls.url,
           "LABEL_AUDIT_REVIEW_API_KEY": review_ls.token}
    calm, calm_ids = source.create_project(CONFIG, [{"data": {"t": "claim 9"}, "annotations": [{"result": choice}]}])
    Ledger(db).record_many(str(calm), "label-audit-0123456789ab", [
        ItemResult(id=str(calm_ids[0]), original="0", prediction="0", confidence=0.9, probs=None, flagged=False)])
    out = cli("review", "push", "--project", str(calm), "--experts", ",".join(experts), env=env)
    assert "0 items under review" in out and "nothing was flagged" in out and "no review project was made" in out
    assert not ReviewStore(db).projects(str(calm), round=ROUND_REVIEW)
    out = cli("review", "push", "--project", str(project), "--experts", ",".join(experts), "--threshold", "0.95",
              env=env)
    assert "no flagged item reaches --threshold 0.95, so no review project was made" in out, out
    out = cli("review", "push", "--project", str(project), "--experts", ",".join(experts), env=env)
    assert "3 items under review" in out, out
    own = {p.expert: p for p in ReviewStore(db).projects(str(project), round=ROUND_REVIEW)}
    links = {e: f"{urls[e]}/projects/{own[e].ls_project_id}/data" for e in experts}
    for email in experts:
        assert f"{email}: review project {own[email].ls_project_id} (+3 tasks) {links[email]}" in out, out
    # the experts disagree on every item (answers attributed to each project's own expert)
    mapped = load_expert_instances(map_path)
    for email, label in zip(experts, ("1", "0")):
        client = connect(mapped[email].url, mapped[email].token)
        for task in iter_tasks(client, own[email].ls_project_id):
            client.annotations.create(id=task.id, completed_by=own[email].expert_user_id,
                                      result=[{**choice[0], "value": {"choices": [label]}}])
    status = cli("review", "status", "--project", str(project), env=env)
    gold = cli("review", "gold", "--project", str(project), env=env)
    rec = cli("review", "reconcile", "--project", str(project), env=env)
    result = CliRunner().invoke(audit_stats, ["sync-gold", "--project", str(project), "--out",
                                              str(tmp_path / "gold.jsonl")], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for text in (status, gold, result.output):
        assert all(links[e] in text for e in experts), text
    (reconciliation,) = ReviewStore(db).projects(str(project), round=ROUND_RECONCILE)
    review_ls.client.projects.delete(id=reconciliation.ls_project_id)  # the session's shared review instance:
    # its users see every project there, so a later test's experts must not find this one
    assert f"reconciliation project {reconciliation.ls_project_id} (+3 tasks) " \
           f"{review_ls.url}/projects/{reconciliation.ls_project_id}/data" in rec, rec
    assert f"source project {project}: {source.url}/projects/{project}/data" in result.output
    for token in [source.token, review_ls.token, *(c.token for c in mapped.values())]:
        assert all(token not in text for text in (out, status, gold, rec, result.output))
