"""Blind in the browser too: the review on its own Label Studio, the lead's score column and suspects tab.

Two real Label Studio 1.23.2 servers: ``label_studio`` holds the source project (items, original labels,
the ensemble's predictions), ``review_ls`` the review. Verdicts are written through the ledger and
imported through the worker's own import function (no model needed: what is checked is what reaches
Label Studio). Expert B logs in with the initial password ``review push --initial-passwords`` printed,
expert A with one set by ``label-studio reset_password`` as README says; both through the login form (API
session) and expert A in headless Chromium; screenshots go to ``artifacts/``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from typer.testing import CliRunner

from backend.cli import app
from backend.labelstudio.client import find_user, iter_tasks
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.scoreview import SUSPECTS_TITLE, suspect_marker
from backend.ledger import Ledger
from backend.scoring.results import ItemResult
from backend.review.source import REF_FIELD
from backend.review.review_store import ReviewStore
from backend.labelstudio.predictions import import_predictions, prediction_requests
from stats_cli.cli import app as audit_stats
from tests.backend.review.blindness import blindness_leaks
from tests.support.browser import ARTIFACTS, headless_chromium, login
from tests.support.labelstudio import login_session, unique_email

pytestmark = pytest.mark.labelstudio

CONFIG = """<View>
  <Header value="Is the claim supported by the passage? Read both fully."/>
  <Text name="passage" value="$passage"/>
  <Header value="Claim"/>
  <Text name="claim" value="$claim"/>
  <Choices name="verdict" toName="claim" choice="single-radio" showInline="true">
    <Choice value="0" hint="the passage contradicts the claim or does not mention it"/>
    <Choice value="1"/>
  </Choices>
</View>"""
GUIDELINES = ("<h3>Checking claims</h3><p>Read the passage first, then the claim.</p>"
              "<p>1: every part of the claim is stated in the passage</p>"
              "<p>0: anything else</p>")
VERSION = "label-audit-0123abcd"
PASSAGES = [
    ("The library lends up to five books for three weeks.", "Members may borrow five books.", "1"),
    ("The library lends up to five books for three weeks.", "Loans last one month.", "0"),
    ("The museum is free on the first Sunday of each month.", "Entry costs nothing on some Sundays.", "1"),
    ("The museum is free on the first Sunday of each month.", "The museum is always free.", "0"),
    ("Tom planted twelve apple trees in April.", "Tom planted trees in spring.", "1"),
    ("Tom planted twelve apple trees in April.", "Tom planted twenty pear trees.", "0"),
    ("The bridge opened in 1932 after six years of work.", "The bridge took six years to build.", "1"),
    ("The bridge opened in 1932 after six years of work.", "The bridge opened in 1950.", "0"),
    ("Anna swims every morning before work.", "Anna exercises in the morning.", "1"),
    ("Anna swims every morning before work.", "Anna never swims.", "0"),
]
# Per item: (original label in the project, ensemble prediction, confidence). Flagged = they differ and
# confidence >= 0.6; item 8 disagrees below the threshold, item 9 has no verdict (a provider error).
VERDICTS = [("0", "1", 0.91), ("0", "0", 0.88), ("1", "1", 0.77), ("1", "0", 0.83), ("0", "1", 0.97),
            ("0", "0", 0.66), ("1", "1", 0.95), ("1", "0", 0.72), ("0", "1", 0.55), ("1", None, None)]
THRESHOLD = 0.6


def choice(label: str) -> list[dict[str, Any]]:
    return [{"from_name": "verdict", "to_name": "claim", "type": "choices", "value": {"choices": [label]}}]


@dataclass
class Scene:
    source: Any
    review: Any
    project: int
    ids: list[int]
    env: dict[str, str]
    db: str
    results: list[ItemResult]
    experts: list[str]
    passwords: dict[str, str]
    refused: list[str] = field(default_factory=list)
    projects_after_refusal: int = -1
    push: dict = field(default_factory=dict)
    tab_after_first_batch: list[int] = field(default_factory=list)
    # Projects already on the session's review instance when this module pushed (other test files' reviews):
    # in Label Studio's community edition every member of the organization sees every project in it.
    review_projects_before: set[int] = field(default_factory=set)

    @property
    def flagged(self) -> list[int]:
        """Flagged source task ids, highest confidence first."""
        hits = [(r.confidence, int(r.id)) for r in self.results if r.flagged]
        return [t for _, t in sorted(hits, reverse=True)]


def cli(env: dict[str, str], *args: str) -> Any:
    return cli_app(app, env, *args)


def cli_app(command: Any, env: dict[str, str], *args: str) -> Any:
    result = CliRunner().invoke(command, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if "--json" in args else result.output


def verdicts(ids: list[int]) -> list[ItemResult]:
    out = []
    for task_id, (original, prediction, confidence) in zip(ids, VERDICTS):
        flagged = prediction is not None and prediction != original and confidence >= THRESHOLD
        out.append(ItemResult(id=str(task_id), original=original, prediction=prediction, confidence=confidence,
                              probs=None, flagged=flagged, error=None if prediction else "provider_down"))
    return out


def suspects_tab(ls, project: int) -> tuple[int, list[int]]:
    """The suspects tab's id and the task ids it lists, in its order (read through the Data Manager API)."""
    views = ls.client._client_wrapper.httpx_client.request("api/dm/views", method="GET",
                                                            params={"project": project}).json()
    tabs = [v for v in views if v["data"].get("title") == SUSPECTS_TITLE]
    assert len(tabs) == 1, [v["data"].get("title") for v in views]
    listed = ls.client._client_wrapper.httpx_client.request(
        "api/tasks", method="GET", params={"project": project, "view": tabs[0]["id"], "page_size": 100}).json()
    return tabs[0]["id"], [t["id"] for t in listed["tasks"]]


@pytest.fixture(scope="module")
def scene(label_studio, review_ls, tmp_path_factory) -> Scene:
    tasks = [{"data": {"passage": p, "claim": c}, "annotations": [{"result": choice(v[0])}]}
             for (p, c, _), v in zip(PASSAGES, VERDICTS)]
    project, ids = label_studio.create_project(CONFIG, tasks, title="crowd source", expert_instruction=GUIDELINES)
    db = f"sqlite:///{tmp_path_factory.mktemp('two') / 'audit.sqlite'}"
    ledger = Ledger(db)
    results = verdicts(ids)
    ledger.record_many(str(project), VERSION, results)
    spec = spec_from_label_config(CONFIG)
    # Scores arrive in two batches, as two worker jobs would import them.
    import_predictions(label_studio.client, str(project), prediction_requests(results[:5], spec, VERSION))
    first_tab = suspects_tab(label_studio, project)[1]
    import_predictions(label_studio.client, str(project), prediction_requests(results[5:], spec, VERSION))
    experts = [unique_email("expert-a"), unique_email("expert-b")]
    env = {"DATABASE_URL": db, "LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token,
           "LABEL_AUDIT_HOME": str(tmp_path_factory.mktemp("home"))}
    scene = Scene(label_studio, review_ls, project, ids, env, db, results, experts, {},
                  tab_after_first_batch=first_tab)
    # Both experts on one review instance: accepted explicitly here (test_expert_isolation gives each their own).
    push = ["review", "push", "--project", str(project), "--experts", ",".join(experts), "--initial-passwords",
            "--allow-shared-review", "--json"]
    same_by_another_name = {**env, "LABEL_AUDIT_REVIEW_URL": label_studio.url.replace("127.0.0.1", "localhost"),
                            "LABEL_AUDIT_REVIEW_API_KEY": label_studio.token}
    for attempt_env in (env, same_by_another_name):
        refused = CliRunner().invoke(app, push, env=attempt_env)
        scene.refused.append(f"{refused.exit_code}:{refused.output}")
    scene.projects_after_refusal = len(ReviewStore(db).projects(str(project)))
    review_env = {**env, "LABEL_AUDIT_REVIEW_URL": review_ls.url, "LABEL_AUDIT_REVIEW_API_KEY": review_ls.token}
    scene.env = review_env
    scene.review_projects_before = {p.id for p in review_ls.client.projects.list()}
    scene.push = cli(review_env, *push)
    # Expert B keeps the initial password push printed; expert A's is reset on the server as README says.
    scene.passwords = dict(scene.push["passwords"])
    scene.passwords[experts[0]] = f"expert-pass-{review_ls.token[:6]}"
    review_ls.process.reset_password(experts[0], scene.passwords[experts[0]])
    return scene


def test_push_to_the_source_instance_is_refused(scene):
    for attempt in scene.refused:
        assert attempt.startswith("2:") and "--allow-same-instance" in attempt, attempt
        assert "could open the source project" in " ".join(attempt.split())
    assert all(find_user(scene.source.client, e) is None for e in scene.experts)  # nothing created there
    assert scene.projects_after_refusal == 0  # refused before any project was created


def test_an_expert_with_a_source_account_is_warned_about(scene):
    from backend.review.push import source_accounts

    admin = scene.source.process.username
    assert source_accounts(scene.source.client, [admin, scene.experts[0]]) == [
        f"{admin} has an account on the source instance: they can open the source project there"]


def test_the_same_server_behind_another_name_is_recognised(scene):
    from label_studio_sdk import LabelStudio

    from backend.labelstudio.instances import same_instance

    again = LabelStudio(base_url=scene.source.url, api_key=scene.source.token)
    assert same_instance(scene.source.client, again, source_project=scene.project,
                         source_url="http://ls.example.org", review_url="http://review.example.org")
    assert not same_instance(scene.source.client, scene.review.client, source_project=scene.project,
                             source_url=scene.source.url, review_url=scene.review.url)


def test_review_projects_live_on_the_review_instance_only(scene):
    store = ReviewStore(scene.db)
    flagged = [str(t) for t in scene.flagged]
    assert [i.task_id for i in store.items(str(scene.project))] == flagged
    assert scene.push["warnings"] == [f"experts share a review instance ({', '.join(scene.experts)}): they can "
                                      "see each other's answers"]
    assert scene.push["guidelines_shown"] is True
    assert sorted(scene.push["passwords"]) == sorted(scene.experts)  # new experts: one initial password each
    for email, pid in scene.push["projects"].items():
        info = scene.review.client.projects.get(id=pid)
        assert info.title.startswith("Review Expert") and info.show_instruction and "Checking claims" in info.expert_instruction
        assert len(list(iter_tasks(scene.review.client, pid))) == len(flagged)
    secrets = {r.id: (r.original, r.prediction, r.confidence) for r in scene.results}
    inputs = {str(t.id): {"passage": t.data["passage"], "claim": t.data["claim"]}
              for t in iter_tasks(scene.source.client, scene.project)}
    assert blindness_leaks(scene.review.client, store, str(scene.project), source_inputs=inputs,
                           secrets_by_task=secrets) == []


def test_experts_log_in_on_the_review_instance_and_see_only_review_tasks(scene):
    store = ReviewStore(scene.db)
    refs = {a.ref for a in store.assignments(str(scene.project))}
    for email in scene.experts:
        assert find_user(scene.source.client, email) is None  # no account on the source instance
        assert login_session(scene.source.url, email, scene.passwords[email]) is None
        session = login_session(scene.review.url, email, scene.passwords[email])
        assert session is not None, f"{email} cannot log in on the review instance"
        try:
            listed = session.get("/api/projects", params={"page_size": 100}).json()["results"]
            # The session's review instance is shared with other test files (their order depends on which
            # pytest worker runs them): their projects were there before this push and are not read here.
            projects = [p for p in listed if p["id"] not in scene.review_projects_before]
            assert sorted(p["id"] for p in projects) == sorted(scene.push["projects"].values())
            for project in projects:
                assert project["model_version"] in ("", None) and "crowd source" not in project["title"]
                tasks = session.get("/api/tasks", params={"project": project["id"], "fields": "all"}).json()["tasks"]
                assert tasks and all(set(t["data"]) == {"passage", "claim", REF_FIELD} for t in tasks)
                assert all(t["data"][REF_FIELD] in refs and not t["predictions"] for t in tasks)
                assert all(t.get("predictions_score") is None for t in tasks)
        finally:
            session.close()


def test_every_scored_task_has_a_prediction_score(scene):
    listed = scene.source.client._client_wrapper.httpx_client.request(
        "api/tasks", method="GET", params={"project": scene.project, "fields": "all", "page_size": 100}).json()
    score = {t["id"]: t["predictions_score"] for t in listed["tasks"]}
    for res in scene.results:
        if res.confidence is None:
            assert score[int(res.id)] is None
        else:
            assert score[int(res.id)] == pytest.approx(res.confidence)
    assert scene.source.client.projects.get(id=scene.project).model_version == VERSION


def test_suspects_tab_lists_exactly_the_flagged_tasks_by_confidence(scene):
    _, listed = suspects_tab(scene.source, scene.project)
    assert listed == scene.flagged
    first_batch = {int(r.id) for r in scene.results[:5]}
    assert scene.tab_after_first_batch == [t for t in scene.flagged if t in first_batch]
    # Not the flag column of one run only: unflagged predictions carry no marker.
    preds = [p for t in iter_tasks(scene.source.client, scene.project, with_annotations=True) for p in t.predictions]
    marked = {p.task for p in preds if any((r.get("id") == suspect_marker(VERSION)) for r in p.result)}
    assert marked == set(scene.flagged)


def lead_rows(body: str, scene: Scene) -> list[tuple[str, str]]:
    """(original, ensemble) label per suspects-tab row, read from the two result columns' text."""
    labels = re.findall(r"choices:\s*\[(\w+)\]", body)
    return [(labels[i], labels[i + 1]) for i in range(0, len(labels) - 1, 2)]


def _settle(page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(2500)  # the Data Manager / labelling app renders after its API calls


def test_browser_expert_view_and_lead_view(scene):
    expert = scene.experts[0]
    own = scene.push["projects"][expert]
    confidences = [f"{r.confidence:.2f}" for r in scene.results if r.confidence is not None]
    with headless_chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 820})
        login(page, scene.review.url, expert, scene.passwords[expert])
        _settle(page, f"{scene.review.url}/projects/")
        listing = page.inner_text("body")
        assert "Review Expert A" in listing and "crowd source" not in listing
        _settle(page, f"{scene.review.url}/projects/{own}/data?labeling=1")
        page.screenshot(path=str(ARTIFACTS / "review-expert-labelling.png"))
        text = page.inner_text("body")
        for expected in ("Passage", "Claim", "Your label", "Is the claim supported by the passage?",
                         "0 — the passage contradicts the claim or does not mention it",
                         "1 — every part of the claim is stated in the passage", "Checking claims"):
            assert expected in text, expected
        lowered = text.lower()
        assert not any(w in lowered for w in ("prediction", "score", "original", "confidence", "suspect"))
        assert not any(c in text for c in confidences)
        page.keyboard.press("Escape")
        page.wait_for_timeout(500)
        page.screenshot(path=str(ARTIFACTS / "review-expert-labelling-form.png"))
        page.get_by_text("1 — every part of the claim").click()
        page.get_by_test_id("bottombar-submit-button").click()
        page.wait_for_timeout(1500)

        lead = browser.new_page(viewport={"width": 1400, "height": 700})
        login(lead, scene.source.url, scene.source.process.username, scene.source.process.password)
        tab_id, _ = suspects_tab(scene.source, scene.project)
        _settle(lead, f"{scene.source.url}/projects/{scene.project}/data")
        lead.get_by_text("Default", exact=True).first.click()
        lead.wait_for_timeout(2000)
        lead.screenshot(path=str(ARTIFACTS / "review-lead-data-manager.png"))
        all_tasks = lead.inner_text("body")
        assert "Prediction score" in all_tasks and "0.970" in all_tasks and SUSPECTS_TITLE[:15] in all_tasks
        _settle(lead, f"{scene.source.url}/projects/{scene.project}/data?tab={tab_id}")
        lead.screenshot(path=str(ARTIFACTS / "review-lead-suspects-tab.png"))
        body = lead.inner_text("body")
        shown = [float(x) for x in re.findall(r"\b0\.\d{3}\b", body)]
        expected = sorted((r.confidence for r in scene.results if r.flagged), reverse=True)
        assert shown == pytest.approx(expected)
        # Beside the score: the original label (annotation results) and the ensemble's (prediction results).
        assert "Annotation results" in body and "Prediction results" in body
        assert lead_rows(body, scene) == [(r.original, r.prediction) for r in
                                          sorted((r for r in scene.results if r.flagged), key=lambda r: -r.confidence)]
    status = cli(scene.env, "review", "status", "--project", str(scene.project), "--json")
    answered = {p["expert"]: p["answered"] for p in status["progress"]}
    assert answered[expert] == 1  # the browser answer was read back from the review instance


def test_reconcile_gold_and_report_across_instances(scene, tmp_path):
    store = ReviewStore(scene.db)
    uids = {p.expert: p.expert_user_id for p in store.projects(str(scene.project))}
    by_ref = {a.ref: a.task_id for a in store.assignments(str(scene.project))}
    first = str(scene.flagged[0])
    for email in scene.experts:
        for task in iter_tasks(scene.review.client, scene.push["projects"][email], with_annotations=True):
            if task.annotations:
                continue
            label = "0" if (email == scene.experts[1] and by_ref[task.data[REF_FIELD]] == first) else "1"
            scene.review.client.annotations.create(id=task.id, result=choice(label), completed_by=uids[email])
    rec = cli(scene.env, "review", "reconcile", "--project", str(scene.project), "--json")
    assert rec["disagreements"] == 1 and rec["new_tasks"] == 1
    info = scene.review.client.projects.get(id=rec["project"])
    assert info.title.startswith("Reconciliation")
    rec_task = next(iter(iter_tasks(scene.review.client, rec["project"])))
    assert {rec_task.data["expert_a"], rec_task.data["expert_b"]} == {"Expert A: 1", "Expert B: 0"}
    gold = {g["task_id"]: g for g in cli(scene.env, "review", "gold", "--project", str(scene.project), "--json")}
    for task_id in map(str, scene.flagged[1:]):
        assert (gold[task_id]["gold"], gold[task_id]["decided_by"]) == ("1", "experts_round1")
    assert gold[first]["status"] == "pending"
    # The report re-reads the answers from the review instance too (the source holds other projects).
    answers = len(store.answers(str(scene.project)))
    report = tmp_path / "report.json"
    cli_app(audit_stats, scene.env, "report", "--project", str(scene.project), "--format", "json",
            "--out", str(report), "--no-progress")
    assert len(store.answers(str(scene.project))) == answers == 2 * len(scene.flagged)
    assert json.loads(report.read_text())["sections"]
    again = {g["task_id"]: g for g in cli(scene.env, "review", "gold", "--project", str(scene.project), "--json")}
    assert again == gold
