"""The Label Studio demo's second project: support tickets with planted errors, audited by confident learning.

The embedded judge is at chance, so the first project's flags show the plumbing only. This project has
enough labelled items for the ``cleanlab:tfidf-logreg`` member (150 self-written tickets,
:mod:`backend.demo.tickets`, 15 labels planted wrong), so its suspects are found with real signal. It is
scored through the same queue machinery by a second worker whose only member is that one (a worker's
members are its deployment's: a queue of its own keeps the two ensembles apart), which fits once on the
whole project and serves every job from the call cache. The planted errors are known, so the demo says
how many the member found and with what precision.
"""

from __future__ import annotations

from typing import Any, Sequence

from label_studio_sdk import LabelStudio

from backend.demo.planted_report import planted_rows
from backend.demo.tickets import LABELS, ticket_records
from backend.families.single import NominalFamily
from backend.labelstudio.client import create_project, import_tasks
from backend.scoring.results import ItemResult

TITLE = "label-audit demo: support tickets"  # Label Studio allows 50 characters
MEMBER = "cleanlab:tfidf-logreg"
LABEL_CONFIG = ("<View>\n  <Header value=\"Customer message\"/>\n  <Text name=\"text\" value=\"$text\"/>\n"
                "  <Header value=\"Which support queue does it belong to?\"/>\n"
                "  <Choices name=\"queue\" toName=\"text\" choice=\"single-radio\" showInLine=\"true\">\n"
                + "".join(f"    <Choice value=\"{label}\"/>\n" for label in LABELS) + "  </Choices>\n</View>")
DESCRIPTION = ("150 support tickets (self-written) with their queue; 15 queues are planted wrong (the data "
               "column 'planted' says which). Audited by the confident-learning member only.")


def ticket_tasks() -> list[dict[str, Any]]:
    """The tickets as Label Studio tasks, the (possibly planted) queue as the original annotation."""
    return [{"data": {"item": r["id"], "text": r["text"], "planted": r["planted"]},
             "annotations": [{"result": [{"from_name": "queue", "to_name": "text", "type": "choices",
                                          "value": {"choices": [r["label"]]}}]}]}
            for r in ticket_records()]


def ensure_tickets_project(client: LabelStudio, *, known_id: int | None) -> tuple[int, bool]:
    """(project id, created now), found again by id or title on a second run."""
    if known_id is not None:
        try:
            return int(client.projects.get(id=known_id).id), False
        except Exception:  # deleted by the user: look it up or create it again
            pass
    for project in client.projects.list(title=TITLE):
        if project.title == TITLE:
            return int(project.id), False
    project_id = create_project(client, title=TITLE, label_config=LABEL_CONFIG, description=DESCRIPTION)
    import_tasks(client, project_id, ticket_tasks())
    return project_id, True


def worker_env(env: dict[str, str], queue: str) -> dict[str, str]:
    """The second worker's environment: the confident-learning member only, on its own queue (none of the judge's
    left-out prompts: they name a model this ensemble does not have)."""
    return {**env, "LABEL_AUDIT_MEMBERS": MEMBER, "LABEL_AUDIT_QUEUE": queue, "LABEL_AUDIT_BATCH": "50",
            "LABEL_AUDIT_EXCLUDE_MEMBERS": ""}


def planted_found(results: Sequence[ItemResult]) -> list[dict[str, Any]]:
    """Per member and for the ensemble: flagged items, planted errors among them, precision, recall (``results``:
    the audit's verdicts, as Label Studio holds them)."""
    members = sorted({m.member_id for r in results for m in r.members})
    return planted_rows([r.to_json() for r in results], members=members,
                        threshold=NominalFamily.default_threshold)  # the tickets' queues: a nominal task
