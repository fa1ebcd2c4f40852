"""The census identity through Label Studio: when the experts review every item, every per-control figure is exact.

Real Label Studio, a real rq worker (`label-audit audit`), `review push --sample N` with N the whole project (every
item drawn, so nothing is estimated), both experts' answers posted through the API, `audit-stats report --format
json`. The project has a 3-way ``<Choices>``, a ``<Choices>`` shown only when the first says "harmful"
(``visibleWhen``) and a ``<Rating>``; its 30 items carry planted true values and original labels with planted
slips. The judge is the TEST-ONLY :class:`tests.support.hash_judge_server.HashJudgeServer` (its verdicts mean
nothing; the identity holds whatever they are). Each control's figures are compared with the values counted here
from the planted truth over the items that show the control (:func:`bench.simulate.figures.control_truths`, the
simulation bench's own definitions): errors, the error rate, errors in the project, precision, recall, errors
left, and the floor.
"""

from __future__ import annotations

import json
import uuid

import pytest
from typer.testing import CliRunner

from backend.cli import app as label_audit
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.projectspec import spec_from_label_config
from backend.ledger import Ledger
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from bench.simulate.figures import control_truths, figures, truth_of
from bench.simulate.pipeline import Replicate
from bench.simulate.projects import PlantedItem
from stats_cli.cli import app as audit_stats
from tests.support.audit_loop import audit_environment, run_audit
from tests.support.hash_judge_server import HashJudgeServer

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis]

CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Header value="Is the answer acceptable?"/>
  <Choices name="verdict" toName="text" choice="single-radio">
    <Choice value="good"/><Choice value="poor"/><Choice value="harmful"/>
  </Choices>
  <View visibleWhen="choice-selected" whenTagName="verdict" whenChoiceValue="harmful">
    <Choices name="harm" toName="text" choice="single-radio"><Choice value="mild"/><Choice value="severe"/></Choices>
  </View>
  <Rating name="quality" toName="text" maxRating="5"/>
</View>"""
N = 30
VERDICTS = ("good", "poor", "harmful")


def planted(k: int) -> tuple[dict[str, str], dict[str, str]]:
    """Item ``k``'s true values and its annotator's: slips on the verdict (never across "harmful", so both
    show the conditional control on the same items), on the harm, and on the rating by one or two steps."""
    truth = {"verdict": VERDICTS[k % 3], "quality": str(1 + (k * 7) % 5)}
    if truth["verdict"] == "harmful":
        truth["harm"] = ("mild", "severe")[(k // 3) % 2]
    original = dict(truth)
    if k % 7 == 0 and truth["verdict"] != "harmful":
        original["verdict"] = "poor" if truth["verdict"] == "good" else "good"
    if "harm" in truth and k % 4 == 2:
        original["harm"] = "severe" if truth["harm"] == "mild" else "mild"
    grade = int(truth["quality"])
    if k % 5 == 1:
        original["quality"] = str(grade + 1 if grade < 5 else grade - 1)
    elif k % 6 == 3:
        original["quality"] = str(grade + 2 if grade <= 3 else grade - 2)
    return truth, original


@pytest.fixture(scope="module")
def census(label_studio, redis_url, tmp_path_factory):
    spec = spec_from_label_config(CONFIG)
    family = spec.task_family
    pairs = [planted(k) for k in range(N)]
    tasks = [{"data": {"text": f"Answer {k}: the council met on Monday and approved the park."},
              "annotations": [{"result": family.write_result(spec, family.encode_controls(spec, original))}]}
             for k, (_, original) in enumerate(pairs)]
    source, ids = label_studio.create_project(CONFIG, tasks, title="census identity")
    home = tmp_path_factory.mktemp("census")
    with HashJudgeServer() as judge:
        members = home / "members.yaml"
        members.write_text(f"- provider: openai\n  model: hash-judge\n  base_url: {judge.url}\n"
                           "  prompts: [generic-annotator, generic-question]\n")
        with audit_environment(label_studio, redis_url, home, queue_prefix="census",
                               members={"LABEL_AUDIT_MEMBERS_FILE": str(members), "OPENAI_API_KEY": "test-only"}) as env:
            run_audit(env, source, timeout=600)
    results = tuple(Ledger(env["DATABASE_URL"]).results(str(source)))
    assert len(results) == N and all(r.prediction is not None for r in results), [r.error for r in results]
    experts = [f"census-a{uuid.uuid4().hex[:5]}@la.test", f"census-b{uuid.uuid4().hex[:5]}@la.test"]
    push = CliRunner().invoke(label_audit, ["review", "push", "--project", str(source), "--experts", ",".join(experts),
                                            "--sample", str(N), "--design", "random", "--allow-same-instance",
                                            "--json"], env=env, catch_exceptions=False)
    assert push.exit_code == 0, push.output
    truth_of_task = {str(t): family.encode_controls(spec, truth) for t, (truth, _) in zip(ids, pairs)}
    by_text = {task["data"]["text"]: str(t) for t, task in zip(ids, tasks)}
    projects = ReviewStore(env["DATABASE_URL"]).projects(str(source), round=ROUND_REVIEW)
    answered = 0
    for project in projects:  # each expert answers the truth on every item, through the API
        for t in iter_tasks(label_studio.client, project.ls_project_id):
            value = truth_of_task[by_text[t.data["text"]]]
            label_studio.client.annotations.create(id=t.id, result=family.write_result(spec, value),
                                                   completed_by=project.expert_user_id)
            answered += 1
    assert answered == 2 * N  # every item went to both experts
    out = home / "report.json"
    report = CliRunner().invoke(audit_stats, ["report", "--project", str(source), "--format", "json", "--out", str(out),
                                              "--no-progress"], env=env, catch_exceptions=False)
    assert report.exit_code == 0, report.output
    rep = Replicate(spec, tuple(PlantedItem(str(t), family.encode_controls(spec, truth),
                                            family.encode_controls(spec, original), {}, {})
                                for t, (truth, original) in zip(ids, pairs)),
                    results, json.loads(out.read_text()))
    return rep


def _checked(rep: Replicate, control: str) -> list[tuple[str, float | None, float | None, float | None, float]]:
    """(figure, printed value, low, high, exact value) of ``control``'s error figures (the ones a census makes exact)."""
    truths = control_truths(rep)
    out = []
    for figure in figures(rep.report):
        known, exact = truth_of(figure, truths)
        if known and figure.control == control and figure.section == "errors":
            out.append((figure.path, figure.value, figure.low, figure.high, exact))
    return out


def _assert_exact(rep: Replicate, control: str) -> None:
    rows = _checked(rep, control)
    printed = {path for path, *_ in rows}
    assert {"estimate.rate", "estimate.errors_estimate", "estimate.precision", "estimate.recall",
            "estimate.errors_left", "floor.confirmed_errors", "floor.rate"} <= printed, printed
    wrong = [(path, value, low, high, exact) for path, value, low, high, exact in rows
             if exact is not None and not (value == pytest.approx(exact, abs=1e-9)
                                           and (low is None or low == pytest.approx(exact, abs=1e-9))
                                           and (high is None or high == pytest.approx(exact, abs=1e-9)))]
    assert not wrong, f"{control}: printed (value, low, high) vs exact: {wrong}"


def test_every_item_was_reviewed_and_the_controls_overview_counts_are_exact(census):
    truths = control_truths(census)
    controls = next(s for s in census.report["sections"] if s["key"] == "controls")
    rows = {row[0]: row for row in controls["tables"][0]["rows"]}
    assert len(rows) == 3
    assert truths["verdict"].population == N and truths["quality"].population == N
    assert truths["harm"].population == sum(1 for k in range(N) if VERDICTS[k % 3] == "harmful")
    errors = {s["control"]: s for s in census.report["sections"] if s["key"] == "errors"}
    for name in ("verdict", "harm", "quality"):
        assert errors[name]["sizes"]["settled by experts"] >= truths[name].population
    assert truths["verdict"].errors > 0 and truths["harm"].errors > 0 and truths["quality"].errors > 0


def test_the_three_way_choices_figures_are_exact(census):
    _assert_exact(census, "verdict")


def test_the_conditional_controls_figures_are_exact(census):
    _assert_exact(census, "harm")


def test_the_ratings_figures_are_exact(census):
    _assert_exact(census, "quality")
