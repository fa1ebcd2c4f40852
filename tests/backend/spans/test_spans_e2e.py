"""A Label Studio NER project audited end to end with only the members set.

Real Label Studio, a real rq worker, the embedded local model: ``label-audit audit`` derives the span
spec from the NER template (``<Labels>`` over ``<Text>``), proposes, asks and judges; the predictions
land as ``labels`` regions whose offsets select exactly their text (read back through the API), each
with its score; flagged tasks fill the suspects tab, surest first. Shapes only, never verdicts.
"""

from __future__ import annotations

import pytest

from backend.labelstudio.client import iter_tasks
from backend.labelstudio.modelname import version_key
from backend.ledger import Ledger
from backend.spans.lsresult import read_spans
from tests.support.audit_loop import audit_environment, run_audit
from tests.backend.spans.ls_pages import suspects_tab

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis, pytest.mark.llm]

NER = """<View>
  <Labels name="label" toName="text">
    <Label value="PER" background="red" hint="a named person"/>
    <Label value="LOC" background="darkorange" hint="a named place"/>
    <Label value="ORG" background="orange"/>
  </Labels>
  <Text name="text" value="$text"/>
</View>"""
# (text, the annotator's spans as (word, occurrence, label)): emoji, CJK, a combining mark, repeated words.
MARKS = [
    ("Meet 😀 Anna in 東京 today", [("Anna", 0, "PER"), ("東京", 0, "LOC")]),
    ("Ann met Ann and 👍🏽 Zoe\u0308 in Paris", [("Ann", 1, "PER"), ("Paris", 0, "PER")]),  # Paris typed PER
    ("Apple hired Tim Cook in Cupertino", [("Apple", 0, "ORG"), ("Tim", 0, "PER")]),  # boundary: Tim (Cook)
]


def place(text: str, word: str, nth: int) -> tuple[int, int]:
    """Code-point offsets of the nth occurrence of ``word``."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(word, start + 1)
    return start, start + len(word)


TASKS = [(text, [(*place(text, w, n), lab) for w, n, lab in marks]) for text, marks in MARKS]


def regions(text: str, spans) -> list[dict]:
    return [{"from_name": "label", "to_name": "text", "type": "labels",
             "value": {"start": s, "end": e, "text": text[s:e], "labels": [lab]}} for s, e, lab in spans]


@pytest.fixture(scope="module")
def env(label_studio, redis_url, tmp_path_factory):
    home = tmp_path_factory.mktemp("spans-e2e")
    with audit_environment(label_studio, redis_url, home, queue_prefix="spans",
                           members={"LABEL_AUDIT_MEMBERS": "local:smollm2"}) as env:
        yield env


def audit(env: dict[str, str], project: int) -> dict:
    return run_audit(env, project, timeout=1200)


@pytest.fixture(scope="module")
def audited(label_studio, env):
    tasks = [{"data": {"text": t}, "annotations": [{"result": regions(t, spans)}]} for t, spans in TASKS]
    project, ids = label_studio.create_project(NER, tasks)
    summary = audit(env, project)
    return project, ids, summary


def test_ner_project_predictions_select_their_text(label_studio, env, audited):
    project, ids, summary = audited
    assert summary["model_version"].startswith("label-audit-")
    results = {r.id: r for r in Ledger(env["DATABASE_URL"]).results(str(project), model_version=summary["model_version"])}
    assert set(results) == {str(i) for i in ids}
    for t in iter_tasks(label_studio.client, project, with_annotations=True):
        res = results[str(t.id)]
        assert res.error is None, res.error
        assert res.data["span_questions"]["type"] == 2  # one question per original span
        assert not [p for p in res.data["span_problems"] if "is not in the text" in p]  # every offset placed
        (pred,) = t.predictions
        # Label Studio holds the readable name (judges · rule · key); the key is what the ledger uses
        assert version_key(pred.model_version) == summary["model_version"] != pred.model_version
        assert pred.score == pytest.approx(res.confidence)
        read = read_spans(pred.result, t.data["text"], control="label", labels=("PER", "LOC", "ORG"))
        assert read.problems == () and read.converted_utf16 == 0
        assert all("score" in r for r in pred.result)
        assert all(r["id"].startswith(summary["model_version"]) for r in pred.result)
    flagged = sorted((r for r in results.values() if r.flagged), key=lambda r: -float(r.confidence))
    _, listed = suspects_tab(label_studio, project)
    assert listed == [int(r.id) for r in flagged]
