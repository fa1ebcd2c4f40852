"""A ledger from before revision 0004 (no control stored), whose first stored row is an error row.

The ledger is built by the real migrations up to 0003 and filled with the rows a worker of that release
wrote: an error row first (workers record errors first; a task that could not be read has no value at
all), then one control's plain values. Opening it upgrades it to the newest revision, with the project's
control NULL. Before: the check read the first row, found no value, passed, and every stored value then
failed to decode (``review push`` crashed, the report counted every value unreadable).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from sqlalchemy import text

from backend.labelstudio.projectspec import spec_from_label_config
from backend.ledger import Ledger
from backend.review.source import SourceProject, check_stored_control
from backend.scoring.results import ErrorInfo, ItemResult
from backend.sqlstore.connection import make_db_engine
from backend.sqlstore.tables import upgrade

TWO_CONTROLS = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text" choice="single"><Choice value="Positive"/><Choice value="Negative"/></Choices>
  <Choices name="topic" toName="text" choice="single"><Choice value="Sports"/><Choice value="Science"/></Choices>
</View>"""
VERSION = "old-v1"


def _pre_0004_ledger(url: str, results: list[ItemResult]) -> None:
    """A store at revision 0003 holding ``results`` in insertion order and the project's config, no control."""
    db_engine = make_db_engine(url)
    upgrade(db_engine, "0003_review_instances")
    now = datetime.now(timezone.utc)
    with db_engine.begin() as conn:
        conn.execute(text("INSERT INTO audit_projects (project, label_config, label_field, updated_at) "
                          "VALUES ('7', :config, NULL, :now)"), {"config": TWO_CONTROLS, "now": now})
        for res in results:
            conn.execute(text(
                "INSERT INTO audit_results (project, task_id, model_version, original, prediction, confidence, "
                "flagged, error, suspicious_text, result_json, updated_at) VALUES ('7', :task, :version, :original, "
                ":prediction, :confidence, :flagged, :error, :suspicious, :payload, :now)"),
                {"task": res.id, "version": VERSION, "original": res.original, "prediction": res.prediction,
                 "confidence": res.confidence, "flagged": bool(res.flagged),
                 "error": None if res.error is None else str(res.error), "suspicious": False,
                 "payload": json.dumps(res.to_json()), "now": now})
    db_engine.dispose()


def _source() -> SourceProject:
    spec = spec_from_label_config(TWO_CONTROLS)
    return SourceProject(project_id=7, label_config=TWO_CONTROLS, spec=spec, label_field=spec.label_field)


UNREADABLE = ItemResult(id="1", original=None, prediction=None, confidence=None, probs=None, flagged=False,
                        error=ErrorInfo("bad_input", False, "missing input field(s): text"))
TOPIC_ONLY = [ItemResult(id=str(n), original="Sports", prediction="Science", confidence=0.9,
                         probs={"Science": 0.9, "Sports": 0.1}, flagged=True) for n in (2, 3)]


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_an_error_row_first_does_not_hide_a_one_control_audit(dialect, tmp_path, request) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite'}" if dialect == "sqlite" else request.getfixturevalue("postgres_url")
    _pre_0004_ledger(url, [UNREADABLE, *TOPIC_ONLY])
    ledger = Ledger(url)  # upgraded to the newest revision: the control is NULL
    assert ledger.project("7")["control"] is None
    with pytest.raises(ValueError, match="before label-audit stored which.*LABEL_AUDIT_CONTROL"):
        check_stored_control(_source(), ledger)  # before: passed, and every value failed to decode downstream
    assert ledger.first_value("7", VERSION) == "Science"


def test_a_project_of_every_control_passes_whatever_its_first_row(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    both = ItemResult(id="2", original='{"sentiment":"Positive","topic":"Sports"}',
                      prediction='{"sentiment":"Positive","topic":"Science"}', confidence=0.9,
                      probs={"sentiment": 0.9, "topic": 0.9}, flagged=True)
    _pre_0004_ledger(url, [UNREADABLE, both])
    check_stored_control(_source(), Ledger(url))  # no error: the values are every control's
    only_errors = f"sqlite:///{tmp_path / 'errors.sqlite'}"
    _pre_0004_ledger(only_errors, [UNREADABLE])
    check_stored_control(_source(), Ledger(only_errors))  # nothing to tell from: nothing to refuse
