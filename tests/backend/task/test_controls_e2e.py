"""Label Studio's LLM-evaluation templates audited with only the members set: every control of a project.

Real Label Studio, a real rq worker, the embedded local model (it has no judging signal: shapes only, never
verdicts). Three projects, each on its template's own config as Label Studio 1.23.2 ships it (read from the
installed package): *LLM Response Grading* (``<Rating>``), *Human Preference collection for RLHF*
(``<Pairwise>`` over two answers), and a SummEval-style project with one 1-5 ``<Choices>`` per dimension
(coherence, consistency, fluency, relevance; SummEval has no template of its own). Each task gets one
prediction holding every control's answer with the ensemble's score, flagged ones land in the suspects tab,
and the pairwise judges were asked in both orders.
"""

from __future__ import annotations

import json

import pytest

from backend.labelstudio.client import iter_tasks
from backend.labelstudio.modelname import version_key
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.scoreview import SUSPECTS_TITLE, suspect_marker
from backend.ledger import Ledger
from tests.support.audit_loop import audit_environment, run_audit
from tests.support.browser import screenshot_suspects_tab
from tests.support.ls_templates import template_config

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis, pytest.mark.llm]


SUMMEVAL = """<View>
  <Header value="Source"/>
  <Text name="document" value="$document"/>
  <Header value="Summary"/>
  <Text name="summary" value="$summary"/>
""" + "".join(f"""  <Header value="{dim.title()}: rate the summary from 1 (worst) to 5 (best)"/>
  <Choices name="{dim}" toName="summary" choice="single-radio" showInline="true">
    <Choice value="1"/><Choice value="2"/><Choice value="3"/><Choice value="4"/><Choice value="5"/>
  </Choices>
""" for dim in ("coherence", "consistency", "fluency", "relevance")) + "</View>"

DOCS = [("The council approved the new park on Monday after a long debate about its cost.",
         "The council approved a new park.", {"coherence": "5", "consistency": "5", "fluency": "5", "relevance": "4"}),
        ("Heavy rain flooded three streets in the old town; no one was hurt.",
         "Nobody was hurt when a fire destroyed the town hall.",
         {"coherence": "4", "consistency": "1", "fluency": "5", "relevance": "2"})]


def _regions(values: dict[str, str], kind: str = "choices") -> list[dict]:
    return [{"from_name": k, "to_name": "summary", "type": kind, "value": {"choices": [v]}} for k, v in values.items()]


@pytest.fixture(scope="module")
def env(label_studio, redis_url, tmp_path_factory):
    home = tmp_path_factory.mktemp("controls-e2e")
    members = home / "members.yaml"  # two prompts of the embedded model: the only setting
    members.write_text("- provider: local\n  model: smollm2\n  prompts: [generic-annotator, generic-question]\n")
    with audit_environment(label_studio, redis_url, home, queue_prefix="controls",
                           members={"LABEL_AUDIT_MEMBERS_FILE": str(members)}) as env:
        yield env


def _predictions_hold_every_control(ls, project: int, summary: dict, spec) -> dict:
    ledger = {r.id: r for r in Ledger(summary["_db"]).results(str(project), model_version=summary["model_version"])}
    flagged = 0
    for task in iter_tasks(ls.client, project, with_annotations=True):
        result = ledger[str(task.id)]
        (pred,) = task.predictions
        assert version_key(pred.model_version) == summary["model_version"]
        assert pred.score == pytest.approx(result.confidence)
        assert spec.task_family.read_result(spec, pred.result) == result.prediction
        marked = [r for r in pred.result if str(r.get("id", "")).startswith(suspect_marker(summary["model_version"]))]
        assert bool(marked) == result.flagged
        flagged += result.flagged
    resp = ls.client._client_wrapper.httpx_client.request("api/dm/views", method="GET", params={"project": project})
    assert SUSPECTS_TITLE in [v["data"]["title"] for v in resp.json()]
    assert summary["flagged"] == flagged
    return ledger


def test_response_grading_rating_is_audited_on_its_template(label_studio, env):
    config = template_config("generative-ai/response-grading")
    spec = spec_from_label_config(config)
    assert spec.family == "rating" and spec.prompt.question == "Rate the Document Summary"
    tasks = [{"data": {"document": d, "summary": s},
              "annotations": [{"result": [{"from_name": "rating", "to_name": "summary", "type": "rating",
                                           "value": {"rating": int(v["consistency"])}}]}]} for d, s, v in DOCS]
    project, _ = label_studio.create_project(config, tasks, title="response grading e2e")
    summary = run_audit(env, project, timeout=1500) | {"_db": env["DATABASE_URL"]}
    assert summary["scored"] == len(DOCS), summary
    ledger = _predictions_hold_every_control(label_studio, project, summary, spec)
    assert {r.original for r in ledger.values()} == {"5", "1"}
    assert all(set(r.probs) == set(spec.labels) for r in ledger.values())


def test_preference_pairwise_is_asked_in_both_orders(label_studio, env):
    config = template_config("generative-ai/human-feedback-collection")
    spec = spec_from_label_config(config)
    assert spec.family == "pairwise" and spec.binding.from_name == "comparison"
    pairs = [("What is the capital of France?", "Paris.", "Lyon, I think.", "left"),
             ("How many legs does a spider have?", "Six.", "Eight.", "left")]  # the second original is wrong
    tasks = [{"data": {"prompt": p, "answer1": a, "answer2": b},
              "annotations": [{"result": [{"from_name": "comparison", "to_name": "comparison", "type": "pairwise",
                                           "value": {"selected": sel}}]}]} for p, a, b, sel in pairs]
    project, _ = label_studio.create_project(config, tasks, title="preference e2e")
    summary = run_audit(env, project, timeout=1500) | {"_db": env["DATABASE_URL"]}
    assert summary["scored"] == len(pairs), summary
    ledger = _predictions_hold_every_control(label_studio, project, summary, spec)
    for result in ledger.values():
        assert result.original == "left" and [q.id for q in result.questions] == ["ab", "ba"]
        # every member answered in both orders, and its averaged answer is the mean of the two
        for member in result.members:
            per_order = [next(m for m in q.members if m.member_id == member.member_id) for q in result.questions]
            assert member.probs["left"] == pytest.approx(sum(m.probs["left"] for m in per_order) / 2)


def test_summeval_four_dimensions_are_audited_in_one_run(label_studio, env):
    spec = spec_from_label_config(SUMMEVAL)
    assert [c.name for c in spec.controls] == ["coherence", "consistency", "fluency", "relevance"]
    tasks = [{"data": {"document": d, "summary": s}, "annotations": [{"result": _regions(v)}]} for d, s, v in DOCS]
    project, _ = label_studio.create_project(SUMMEVAL, tasks, title="summeval e2e")
    summary = run_audit(env, project, timeout=1500) | {"_db": env["DATABASE_URL"]}
    assert summary["scored"] == len(DOCS), summary
    ledger = _predictions_hold_every_control(label_studio, project, summary, spec)
    screenshot_suspects_tab(label_studio, project, "controls-summeval-lead-data-manager.png",
                            then_task=next(iter(iter_tasks(label_studio.client, project))).id)
    for (_, _, original), result in zip(DOCS, sorted(ledger.values(), key=lambda r: int(r.id))):
        assert json.loads(result.original) == original
        assert [q.id for q in result.questions] == list(original)
        assert {m.member_id.rsplit("#", 1)[1] for m in result.members} == set(original)
        # no dimension's prompt carries another dimension's answer: the members saw the inputs and one question
        assert result.flagged == any(q.flagged for q in result.questions)

