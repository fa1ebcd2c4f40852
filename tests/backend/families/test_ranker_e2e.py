"""The gallery's *LLM Ranker* template audited out of the box: real Label Studio, a real rq worker, the embedded model.

Three tasks of three responses each, ranked by a person's shape (docs/controls.md). The embedded model has no
judging signal (shapes only, never verdicts): every pair of ranked responses is asked in both orders (3 pairs,
6 questions per member and task), each member's answer is the mean of its two orders, and every task gets one
prediction in the ranker's measured shape holding the ensemble's ranking, flagged ones in the suspects tab.
"""

from __future__ import annotations

import json

import pytest

from backend.families.ranking import ranked_ids
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.modelname import version_key
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.scoreview import suspect_marker
from backend.ledger import Ledger
from tests.support.audit_loop import audit_environment, run_audit
from tests.support.ls_templates import template_config

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis, pytest.mark.llm]

ITEMS = [{"id": "seven", "title": "A", "body": "Seven is a prime number."},
         {"id": "nine", "title": "B", "body": "Nine is a prime number."},
         {"id": "two", "title": "C", "body": "Two is the only even prime number."}]


@pytest.fixture(scope="module")
def env(label_studio, redis_url, tmp_path_factory):
    home = tmp_path_factory.mktemp("ranker-e2e")
    members = home / "members.yaml"
    members.write_text("- provider: local\n  model: smollm2\n  prompts: [generic-question]\n")
    with audit_environment(label_studio, redis_url, home, queue_prefix="ranker",
                           members={"LABEL_AUDIT_MEMBERS_FILE": str(members)}) as env:
        yield env


def test_the_llm_ranker_template_is_audited_pair_by_pair_in_both_orders(label_studio, env):
    config = template_config("generative-ai/llm-ranker")
    spec = spec_from_label_config(config)
    family = spec.task_family
    rankings = [{"relevant_results": ["seven", "two"], "biased_results": ["nine"]},
                {"relevant_results": ["nine", "seven", "two"]},  # the false claim ranked first
                {"relevant_results": ["two", "seven"], "biased_results": ["nine"], "_": []}]
    tasks = [{"data": {"task": "Rank the answers by correctness.", "prompt": "Name a prime number.", "items": ITEMS},
              "annotations": [{"result": family.write_result(spec, json.dumps(r))}]} for r in rankings]
    project, _ = label_studio.create_project(config, tasks, title="ranker e2e")
    summary = run_audit(env, project, timeout=1500)
    assert summary["scored"] == len(rankings), summary
    ledger = {r.id: r for r in Ledger(env["DATABASE_URL"]).results(str(project),
                                                                    model_version=summary["model_version"])}
    buckets = ("relevant_results", "biased_results")
    flagged = 0
    for task in iter_tasks(label_studio.client, project, with_annotations=True):
        result = ledger[str(task.id)]
        assert [q.id for q in result.questions] == ["r0-1", "r0-2", "r1-2"]
        for pair in result.questions:  # each pair asked in both orders, each member the mean of the two
            assert [o.id for o in pair.questions] == ["ab", "ba"]
            for member in pair.members:
                per_order = [next(m for m in o.members if m.member_id == member.member_id) for o in pair.questions]
                assert member.probs["left"] == pytest.approx(sum(m.probs["left"] for m in per_order) / 2)
        assert sorted(ranked_ids(result.prediction, buckets)) == sorted(ranked_ids(result.original, buckets))
        assert -1.0 <= result.data["ranker_tau"] <= 1.0
        (pred,) = task.predictions
        assert version_key(pred.model_version) == summary["model_version"]
        assert family.read_result(spec, pred.result) == result.prediction  # the measured shape, read back
        marked = [r for r in pred.result if str(r.get("id", "")).startswith(suspect_marker(summary["model_version"]))]
        assert bool(marked) == result.flagged
        flagged += result.flagged
    assert summary["flagged"] == flagged
