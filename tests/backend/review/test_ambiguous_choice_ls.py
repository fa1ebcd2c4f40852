"""``review push --ambiguous-choice`` on the real Label Studio: both rounds offer the choice, the experts' answers
through the API come back as the reserved token, the outcomes follow, and sync-gold writes nothing for them."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from backend.cli import app

from backend.labelstudio.client import iter_tasks
from backend.labelstudio.taskshape import as_dict
from backend.review.ambiguous import AMBIGUOUS_TEXT
from backend.review.gold_store import refresh_review
from backend.review.outcome import AMBIGUOUS_ANSWER, GoldStatus
from backend.review.push import push_review
from backend.review.reconcile import reconcile
from backend.review.review_store import ROUND_REVIEW
from backend.review.source import REF_FIELD, load_source
from backend.scoring.results import ItemResult
from stats_cli.sources.audit_data import AuditData
from stats_cli.sources.gold_export import sync_to_labelstudio
from tests.support.browser import ARTIFACTS, headless_chromium, login
from tests.support.labelstudio import unique_email

pytestmark = pytest.mark.labelstudio

CONFIG = """<View>
  <Text name="passage" value="$passage"/>
  <Choices name="verdict" toName="passage"><Choice value="0"/><Choice value="1"/></Choices>
</View>"""
MULTI = """<View><Text name="passage" value="$passage"/>
  <Choices name="tags" toName="passage" choice="multiple"><Choice value="a"/><Choice value="b"/></Choices></View>"""


def choice(label: str) -> list[dict]:
    return [{"from_name": "verdict", "to_name": "passage", "type": "choices", "value": {"choices": [label]}}]


def scored(ls, record_verdicts, config: str, n: int = 4):
    tasks = [{"passage": f"passage {k}: the river floods most springs", "orig": "1"} for k in range(n)]
    project, ids = ls.create_project(config, tasks)
    results = [ItemResult(id=str(t), original="1" if config == CONFIG else "a", prediction="0" if config == CONFIG
                          else "b", confidence=0.9 - k / 100, probs=None, flagged=True) for k, t in enumerate(ids)]
    ledger, store = record_verdicts(project, results, config=config, label_field="orig")
    return project, ids, ledger, store


def test_refused_for_a_multi_label_project_before_anything_is_sent(label_studio, record_verdicts):
    ls = label_studio
    project, _ids, ledger, store = scored(ls, record_verdicts, MULTI)
    before = {p.id for p in ls.client.projects.list()}
    with pytest.raises(ValueError, match="--ambiguous-choice needs one single-choice"):
        push_review(ls.client, store, ledger, project_id=project, experts=[unique_email("m")], ambiguous_choice=True)
    assert store.items(str(project)) == [] and store.projects(str(project)) == []
    assert {p.id for p in ls.client.projects.list()} == before


def test_the_cli_refuses_it_in_one_line_with_exit_code_2(label_studio, record_verdicts, tmp_path):
    ls = label_studio
    project, _ids, _ledger, store = scored(ls, record_verdicts, MULTI)
    env = {"LABEL_STUDIO_URL": ls.url, "LABEL_STUDIO_API_KEY": ls.token, "LABEL_AUDIT_REVIEW_URL": None,
           "LABEL_AUDIT_REVIEW_API_KEY": None, "LABEL_AUDIT_EXPERT_INSTANCES": None,
           "DATABASE_URL": f"sqlite:///{tmp_path / 'audit.sqlite'}"}
    result = CliRunner().invoke(app, ["review", "push", "--project", str(project), "--experts", unique_email("c"),
                                      "--allow-same-instance", "--ambiguous-choice"], env=env)
    assert result.exit_code == 2, result.output
    assert "--ambiguous-choice needs one single-choice <Choices> control" in result.output
    assert "Traceback" not in result.output and ls.token not in result.output
    assert store.projects(str(project)) == []


def test_both_rounds_offer_it_and_the_outcomes_follow(label_studio, record_verdicts):
    ls = label_studio
    project, ids, ledger, store = scored(ls, record_verdicts, CONFIG)
    experts = [unique_email("amb-a"), unique_email("amb-b")]
    report = push_review(ls.client, store, ledger, project_id=project, experts=experts, ambiguous_choice=True,
                         initial_passwords=True)
    assert report.ambiguous_choice and report.to_json()["ambiguous_choice"] is True
    for pid in report.projects.values():
        assert ls.client.projects.get(id=pid).label_config.count(AMBIGUOUS_ANSWER) == 1
    assert store.ambiguous_choice(str(project)) is True
    # a later push without the flag keeps offering it; one with it on a review made without it is refused
    assert push_review(ls.client, store, ledger, project_id=project, experts=experts).ambiguous_choice

    by_ref = {a.ref: a.task_id for a in store.assignments(str(project))}
    uids = {p.expert: p.expert_user_id for p in store.projects(str(project), round=ROUND_REVIEW)}
    screenshot_task(ls, report, experts[0])
    plan = {str(ids[0]): (AMBIGUOUS_ANSWER, AMBIGUOUS_ANSWER), str(ids[1]): (AMBIGUOUS_ANSWER, "1"),
            str(ids[2]): ("0", "0"), str(ids[3]): ("0", "1")}
    for k, email in enumerate(experts):
        for task in iter_tasks(ls.client, report.projects[email]):
            label = plan[by_ref[task.data[REF_FIELD]]][k]
            ls.client.annotations.create(id=task.id, result=choice(label), completed_by=uids[email])

    source = load_source(ls.client, project, label_field="orig")
    rec = reconcile(ls.client, store, source)
    assert (rec.disagreements, rec.agreed) == (2, 2)
    assert ls.client.projects.get(id=rec.project).label_config.count(AMBIGUOUS_ANSWER) == 1
    by_ref = {a.ref: a.task_id for a in store.assignments(str(project))}  # round 2's refs too
    shown = {by_ref[t.data[REF_FIELD]]: t.data["expert_a"] for t in iter_tasks(ls.client, rec.project)}
    assert shown[str(ids[1])] == f"Expert A: {AMBIGUOUS_TEXT}"
    round2 = {str(ids[1]): AMBIGUOUS_ANSWER, str(ids[3]): "1"}
    for task in iter_tasks(ls.client, rec.project):
        for email in experts:
            ls.client.annotations.create(id=task.id, result=choice(round2[by_ref[task.data[REF_FIELD]]]),
                                         completed_by=uids[email])

    results = ledger.results(str(project))
    refresh_review(ls.client, store, source, results)
    got = {g.task_id: (g.gold, g.status) for g in store.gold_labels(str(project))}
    assert got == {str(ids[0]): (None, GoldStatus.EXPERTS_AMBIGUOUS), str(ids[1]): (None, GoldStatus.EXPERTS_AMBIGUOUS),
                   str(ids[2]): ("0", GoldStatus.EXPERTS_AGREE), str(ids[3]): ("1", GoldStatus.RECONCILED)}
    round1 = store.answers_by_task(str(project), round=ROUND_REVIEW)
    assert round1[str(ids[0])] == {e: AMBIGUOUS_ANSWER for e in experts}

    data = AuditData(project=str(project), spec=source.spec, items=tuple(results),
                     gold_labels={g.task_id: g for g in store.gold_labels(str(project))})
    listed = [as_dict(t) for t in iter_tasks(ls.client, project, with_annotations=True)]
    synced = sync_to_labelstudio(ls.client, data, listed, label_config=CONFIG)
    assert (synced.created, synced.updated) == (2, 0)
    annotated = {str(t.id) for t in iter_tasks(ls.client, project, with_annotations=True)
                 if as_dict(t).get("annotations")}
    assert annotated == {str(ids[2]), str(ids[3])}  # nothing written for the two ambiguous items


def test_adding_it_to_a_review_made_without_it_is_refused(label_studio, record_verdicts):
    ls = label_studio
    project, _ids, ledger, store = scored(ls, record_verdicts, CONFIG, n=2)
    experts = [unique_email("plain")]
    push_review(ls.client, store, ledger, project_id=project, experts=experts)
    with pytest.raises(ValueError, match="made without --ambiguous-choice"):
        push_review(ls.client, store, ledger, project_id=project, experts=experts, ambiguous_choice=True)
    assert store.ambiguous_choice(str(project)) is False


def screenshot_task(ls, report, email: str) -> None:
    """Expert A logged in, on their first review task: the extra choice is on screen (artifacts/, not committed)."""
    if email not in report.passwords:
        pytest.skip("no initial password for the expert on this instance")
    task = next(iter(iter_tasks(ls.client, report.projects[email])))
    with headless_chromium() as browser:
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        page.set_default_timeout(120_000)
        login(page, ls.url, email, report.passwords[email])
        page.goto(f"{ls.url}/projects/{report.projects[email]}/data?task={task.id}")
        page.wait_for_selector(f"text={AMBIGUOUS_TEXT}")
        page.wait_for_timeout(2000)
        page.screenshot(path=str(ARTIFACTS / "ambiguous-choice-expert-task.png"))
        assert AMBIGUOUS_TEXT in page.inner_text("body")
