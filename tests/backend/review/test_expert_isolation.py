"""Independent experts (issue 23): closed sign-up, one review instance per expert, strict attribution.

Real Label Studio 1.23.2 servers: ``label_studio`` holds the source project, ``review_ls`` is a shared
review instance (push must refuse to put both experts there), and two fresh ones started here are
expert A's and expert B's own. B's first runs with sign-up *open* (the only instance in the suite that
does), so ``review push`` must refuse it; it is then restarted closed on the same data. Each expert logs in through the login form (API session and headless
Chromium) with the initial password push printed, and must reach exactly their own items.
"""

from __future__ import annotations

import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from backend.cli import app
from backend.labelstudio.client import find_user, iter_tasks
from backend.labelstudio.local import find_label_studio_bin
from backend.labelstudio.predictions import import_predictions, prediction_requests
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.signup import SignupRefused, invite_token, invite_user, signup_open, signup_user
from backend.ledger import Ledger
from backend.scoring.results import ItemResult
from backend.review.source import REF_FIELD
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from stats_cli.cli import app as audit_stats
from tests.support.browser import ARTIFACTS, headless_chromium, login
from tests.support.labelstudio import login_session, start_label_studio, unique_email

# Three Label Studio first starts (source, A, B) and a restart happen in the first test's setup.
pytestmark = [pytest.mark.labelstudio, pytest.mark.timeout(1800)]

CONFIG = """<View>
  <Text name="claim" value="$claim"/>
  <Choices name="verdict" toName="claim" choice="single-radio">
    <Choice value="0"/>
    <Choice value="1"/>
  </Choices>
</View>"""
CLAIMS = ["The river floods every spring.", "Bees make honey.", "Ice is hot.", "Cats bark.", "Rain is wet."]
# (original, ensemble, confidence): items 0, 2 and 3 are flagged.
VERDICTS = [("0", "1", 0.93), ("1", "1", 0.9), ("1", "0", 0.81), ("0", "1", 0.74), ("1", "1", 0.7)]
VERSION = "label-audit-51de0a1e"


def choice(label: str) -> list[dict[str, Any]]:
    return [{"from_name": "verdict", "to_name": "claim", "type": "choices", "value": {"choices": [label]}}]


@dataclass
class Scene:
    source: Any
    a: Any  # expert A's instance (LabelStudioServer)
    b: Any  # expert B's instance (LabelStudioServer, restarted closed)
    project: int
    ids: list[int]
    experts: list[str]
    env: dict[str, str]
    db: str
    results: list[ItemResult]
    refusals: dict[str, str] = field(default_factory=dict)
    open_probe: bool | None = None
    push: dict = field(default_factory=dict)

    @property
    def flagged(self) -> list[int]:
        return [int(r.id) for r in sorted(self.results, key=lambda r: -(r.confidence or 0)) if r.flagged]

    def instance(self, email: str) -> Any:
        return self.a if email == self.experts[0] else self.b


def invoke(env: dict[str, str], *args: str):
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


def ok(env: dict[str, str], *args: str) -> Any:
    result = invoke(env, *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if "--json" in args else result.output


def _restart(ls: Any, *, closed: bool) -> None:
    """Stop ``ls`` and start it again on its data and port with sign-up closed or open."""
    ls.process.stop()
    ls.process.signup_closed = closed
    ls.process.start()


@pytest.fixture(scope="module")
def expert_instances() -> Any:
    """Experts A's and B's own Label Studio (started in parallel); B's runs with sign-up open at first."""
    if find_label_studio_bin(os.environ.get("LABEL_STUDIO_BIN")) is None:
        pytest.skip("Label Studio 1.23.2 not installed")
    with tempfile.TemporaryDirectory(prefix="la-experts-") as tmp, ThreadPoolExecutor(2) as pool:
        started = list(pool.map(lambda n: start_label_studio(Path(tmp) / n), ("a", "b")))
        try:
            _restart(started[1], closed=False)
            yield started
        finally:
            for server in started:
                server.process.stop()


def _write_map(path: Path, scene_experts: list[str], a: Any, b: Any) -> Path:
    path.write_text(json.dumps({scene_experts[0]: {"url": a.url, "token": a.token},
                                scene_experts[1]: {"url": b.url, "token": b.token}}))
    os.chmod(path, 0o600)
    return path


@pytest.fixture(scope="module")
def scene(label_studio, review_ls, expert_instances, tmp_path_factory) -> Scene:
    expert_a_ls, expert_b_ls = expert_instances
    tasks = [{"data": {"claim": c}, "annotations": [{"result": choice(v[0])}]} for c, v in zip(CLAIMS, VERDICTS)]
    project, ids = label_studio.create_project(CONFIG, tasks, title="isolation source")
    folder = tmp_path_factory.mktemp("iso")
    db = f"sqlite:///{folder / 'audit.sqlite'}"
    results = [ItemResult(id=str(t), original=o, prediction=p, confidence=c, probs=None, flagged=(o != p))
               for t, (o, p, c) in zip(ids, VERDICTS)]
    Ledger(db).record_many(str(project), VERSION, results)
    import_predictions(label_studio.client, str(project), prediction_requests(results, spec_from_label_config(CONFIG), VERSION))
    experts = [unique_email("iso-a"), unique_email("iso-b")]
    env = {"DATABASE_URL": db, "LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token,
           "LABEL_AUDIT_HOME": str(folder / "home")}
    scene = Scene(label_studio, expert_a_ls, expert_b_ls, project, ids, experts, env, db, results)
    push = ["review", "push", "--project", str(project), "--experts", ",".join(experts), "--initial-passwords",
            "--json"]
    shared = {**env, "LABEL_AUDIT_REVIEW_URL": review_ls.url, "LABEL_AUDIT_REVIEW_API_KEY": review_ls.token}
    scene.refusals["shared"] = _refusal(invoke(shared, *push))
    mapped = {**env, "LABEL_AUDIT_EXPERT_INSTANCES": str(_write_map(folder / "experts.json", experts, expert_a_ls,
                                                                    expert_b_ls))}
    scene.open_probe = signup_open(expert_b_ls.url)
    scene.refusals["open"] = _refusal(invoke(mapped, *push))
    loose = folder / "loose.json"
    loose.write_text((folder / "experts.json").read_text())
    os.chmod(loose, 0o644)
    scene.refusals["loose"] = _refusal(invoke({**env, "LABEL_AUDIT_EXPERT_INSTANCES": str(loose)}, *push))
    scene.refusals["projects"] = str(len(ReviewStore(db).projects(str(project))))
    _restart(expert_b_ls, closed=True)
    scene.env = mapped
    scene.push = ok(mapped, *push)
    return scene


def _refusal(result) -> str:
    return f"{result.exit_code}:{' '.join(result.output.split())}"


def test_signup_is_refused_on_every_instance_the_tool_starts(scene):
    for ls in (scene.source, scene.a, scene.b):
        assert signup_open(ls.url) is False, ls.url
        with pytest.raises(SignupRefused, match="HTTP 403"):
            signup_user(ls.url, unique_email("stranger"), "pw-0123456789")
        page = login_session(ls.url, "nobody@label-audit.test", "wrong-password")
        assert page is None
    # The tool's own sign-up goes through a one-use invite link: the token it used is dead afterwards.
    # (On the source instance, so that the experts' own instances hold nobody but them and the lead.)
    old = invite_token(scene.source.client)
    invite_user(scene.source.client, unique_email("invited"), "pw-0123456789")
    with pytest.raises(SignupRefused, match="HTTP 403"):
        signup_user(scene.source.url, unique_email("late"), "pw-0123456789", invite=old)


def test_push_refuses_shared_open_or_readable_setups_before_creating_anything(scene):
    assert scene.refusals["shared"].startswith("2:") and "--allow-shared-review" in scene.refusals["shared"]
    assert "see each other's projects" in scene.refusals["shared"]
    assert scene.open_probe is True  # the probe saw the open form (the instance was started open)
    assert scene.refusals["open"].startswith("2:") and "sign-up is open" in scene.refusals["open"]
    assert scene.b.url in scene.refusals["open"] and "--allow-open-signup" in scene.refusals["open"]
    assert scene.refusals["loose"].startswith("2:") and "chmod 600" in scene.refusals["loose"]
    assert scene.refusals["projects"] == "0"  # nothing was created by a refused push


def test_each_expert_has_a_project_on_their_own_instance_only(scene):
    store = ReviewStore(scene.db)
    projects = {p.expert: p for p in store.projects(str(scene.project), round=ROUND_REVIEW)}
    for email in scene.experts:
        own = scene.instance(email)
        assert projects[email].instance == own.url
        assert scene.push["urls"][email] == f"{own.url}/projects/{projects[email].ls_project_id}/data"
        assert find_user(own.client, email) is not None and find_user(scene.source.client, email) is None
        other = scene.b if own is scene.a else scene.a
        assert find_user(other.client, email) is None  # no account where the other expert works


def test_each_expert_logged_in_reaches_exactly_their_own_items(scene):
    store = ReviewStore(scene.db)
    for email in scene.experts:
        own = scene.instance(email)
        other = scene.b if own is scene.a else scene.a
        password = scene.push["passwords"][email]
        assert login_session(other.url, email, password) is None
        assert login_session(scene.source.url, email, password) is None
        session = login_session(own.url, email, password)
        assert session is not None
        try:
            listed = session.get("/api/projects", params={"page_size": 100}).json()["results"]
            assert [p["id"] for p in listed] == [scene.push["projects"][email]]
            tasks = session.get("/api/tasks", params={"project": listed[0]["id"], "fields": "all"}).json()["tasks"]
            mine = {a.ref for a in store.assignments(str(scene.project), round=ROUND_REVIEW, expert=email)}
            assert {t["data"][REF_FIELD] for t in tasks} == mine and len(mine) == len(scene.flagged)
            users = {u["email"] for u in session.get("/api/users").json()}
            assert email in users and not (set(scene.experts) - {email}) & users
        finally:
            session.close()


def test_browser_each_expert_sees_only_their_own_project(scene):
    with headless_chromium() as browser:
        for letter, email in zip("ab", scene.experts):
            own = scene.instance(email)
            page = browser.new_context(viewport={"width": 1400, "height": 800}).new_page()
            page.set_default_timeout(120_000)
            login(page, own.url, email, scene.push["passwords"][email])
            page.goto(f"{own.url}/projects/")
            page.wait_for_selector("text=Review Expert")
            page.wait_for_timeout(1500)
            listing = page.inner_text("body")
            page.screenshot(path=str(ARTIFACTS / f"isolation-expert-{letter}-projects.png"))
            other = scene.experts[1] if email == scene.experts[0] else scene.experts[0]
            assert listing.count("Review Expert") == 1 and other not in listing
            assert "isolation source" not in listing
            page.goto(f"{own.url}/projects/{scene.push['projects'][email]}/data")
            page.wait_for_selector("text=claim")
            page.wait_for_timeout(2000)
            page.screenshot(path=str(ARTIFACTS / f"isolation-expert-{letter}-data.png"))
            text = page.inner_text("body")
            shown = [c for c in CLAIMS if c in text]
            flagged = {CLAIMS[scene.ids.index(t)] for t in scene.flagged}
            assert set(shown) == flagged and other not in text
            page.goto(f"{own.url}/organization/")
            page.wait_for_timeout(2500)
            page.screenshot(path=str(ARTIFACTS / f"isolation-expert-{letter}-people.png"))
            people = page.inner_text("body")
            assert other not in people and people.count("@label-audit.") == 2  # the lead's admin and this expert


def test_only_the_projects_own_expert_counts_and_others_are_reported(scene, tmp_path):
    store = ReviewStore(scene.db)
    projects = {p.expert: p for p in store.projects(str(scene.project), round=ROUND_REVIEW)}
    a, b = scene.experts
    intruder = unique_email("intruder")
    intruder_id = scene.a.create_user(intruder).id
    tasks = list(iter_tasks(scene.a.client, projects[a].ls_project_id))
    by_ref = {x.ref: x.task_id for x in store.assignments(str(scene.project))}
    # The intruder answers the first task of A's project; A answers the second one only.
    scene.a.client.annotations.create(id=tasks[0].id, result=choice("1"), completed_by=intruder_id)
    scene.a.client.annotations.create(id=tasks[1].id, result=choice("0"), completed_by=projects[a].expert_user_id)
    status = ok(scene.env, "review", "status", "--project", str(scene.project), "--json")
    answered = {p["expert"]: p["answered"] for p in status["progress"]}
    assert answered == {a: 1, b: 0}
    (ignored,) = status["ignored"]
    assert ignored["annotator"] == intruder and ignored["task_id"] == by_ref[tasks[0].data[REF_FIELD]]
    assert ignored["ls_project_id"] == projects[a].ls_project_id and ignored["instance"] == scene.a.url
    counted = store.answers_by_task(str(scene.project), round=ROUND_REVIEW)
    assert by_ref[tasks[0].data[REF_FIELD]] not in counted
    text = ok(scene.env, "review", "status", "--project", str(scene.project))
    assert intruder in " ".join(text.split()) and "not counted" in text
    assert f"Expert A: {scene.a.url}/projects/{projects[a].ls_project_id}/data" in text
    report = tmp_path / "report.json"
    result = CliRunner().invoke(audit_stats, ["report", "--project", str(scene.project), "--format", "json",
                                              "--out", str(report), "--no-progress"], env=scene.env)
    assert result.exit_code == 0, result.output
    assert intruder in report.read_text() and "not counted" in report.read_text()
