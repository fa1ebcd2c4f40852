"""`label-audit audit`'s summary, rebuilt from the ledger, carries the bare-codes warning as `score`'s does.

A real SQLite ledger holds two stored results of a project whose ``<Choices>`` are bare codes with no question;
the same project with readable values (the codes as alias) and a ``<Header>`` question gets none. (What the command says before the first job,
``start_audit``'s ``on_presentation``, needs Label Studio and Redis: not run here.)
"""

from __future__ import annotations

from backend.config.settings import Settings
from backend.ledger import Ledger
from backend.scoring.results import ItemResult, MemberResult
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.project_audit import AuditRun, summary_from_ledger
from tests.support.readable_choices import readable

CONFIG = ('<View><Text name="t" value="$text"/>{header}<Choices name="nli" toName="t"><Choice value="e"/>'
          '<Choice value="n"/><Choice value="c"/></Choices></View>')


def _summary(tmp_path, header: str = "", *, config_text: str = CONFIG) -> dict:
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.sqlite'}")
    config = EnsembleConfig.from_settings(Settings.from_env({}))
    label_config = config_text.format(header=header)
    probs = {"e": 0.8, "n": 0.1, "c": 0.1}
    stored = [ItemResult(id=str(i), original=orig, prediction="e", confidence=0.8, probs=probs, flagged=orig != "e",
                         members=(MemberResult("local:smollm2/generic-question@v1", probs=probs, raw_mass=0.9),))
              for i, orig in enumerate(("e", "c"))]
    ledger.record_many("7", "v1", stored)
    run = AuditRun(project="7", model_version="v1", task_ids=[r.id for r in stored], jobs=[],
                   label_config=label_config)
    return summary_from_ledger(ledger, run, config)


def test_the_audit_summary_names_a_bare_code_control(tmp_path):
    (warning,) = _summary(tmp_path)["presentation_warnings"]
    assert warning["control"] == "nli" and warning["codes"] == ["e", "n", "c"]
    assert warning["message"].startswith('<Choices name="nli"> shows the judges only bare codes (e, n, c)')


def test_the_audit_summary_of_a_project_with_readable_values_and_a_question_has_no_warning(tmp_path):
    header = '<Header value="Does the text entail the claim?"/>'
    assert _summary(tmp_path, header, config_text=readable(CONFIG))["presentation_warnings"] == []
