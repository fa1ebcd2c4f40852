"""The project pass's verdicts in the ledger, with the workers' own verdict kept beside each one it changed.

Why: the workers store each task's verdict as its batch is scored; the audit's last pass (health gate, then the
prior correction: :mod:`backend.worker.audit_pass`) re-reads every verdict over the whole project and rewrites the
predictions in Label Studio. Whatever reads the ledger afterwards — ``review push`` and its triage, the control
sample, ``/predict``, the report — must read the verdicts the lead sees in the *Suspected label errors* tab, so the
pass writes them here too (:func:`record_reread`). The pass itself must start from the verdicts as the workers
scored them, or a second audit would gate or correct an already re-read verdict (a gate that now leaves nobody
out would keep the old gate's verdicts): so each changed row keeps the workers' verdict under ``as_scored`` in its
JSON, and :func:`iter_scored` restores it. Member rows are never rewritten: they hold the judges' own answers.

No new column: a release that does not know ``as_scored`` reads the row as the re-read verdict it is. What the pass
decided (the judges the gate left out, the reading ``auto`` chose and on what) is kept beside, one row per project
and version (:func:`record_pass`), so the report can say what the verdicts it reads rest on.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from sqlalchemy import bindparam, select

from backend.ledger import schema
from backend.ledger.upsert import upsert
from backend.scoring.results import ItemResult

if TYPE_CHECKING:
    from backend.ledger.store import Ledger

__all__ = ["AS_SCORED", "VERDICT_FIELDS", "iter_scored", "pass_blocks", "read_with_scored_flags", "record_pass",
           "record_reread", "same_verdict"]

AS_SCORED = "as_scored"  # key of the workers' verdict in a row whose verdict the project pass changed
#: What the project pass re-reads of a result (members, errors, inputs stay as scored).
VERDICT_FIELDS = ("prediction", "confidence", "probs", "flagged", "insufficient")


def same_verdict(a: ItemResult, b: ItemResult) -> bool:
    """Whether two results of one item carry the same verdict (every field the project pass may change)."""
    return all(_plain(getattr(a, f)) == _plain(getattr(b, f)) for f in VERDICT_FIELDS)


def _plain(value: Any) -> Any:
    return dict(value) if value is not None and hasattr(value, "items") else value


def iter_scored(ledger: "Ledger", project: str, model_version: str, *,
                page: int = 2000) -> Iterator[tuple[ItemResult, bool]]:
    """Every stored result as the workers scored it, with whether its row holds a re-read verdict (the ledger's
    order, page by page: memory stays flat on a large project)."""
    for data in ledger.iter_payloads(project, model_version, page=page):
        scored = data.pop(AS_SCORED, None)
        yield ItemResult.from_json({**data, **scored} if scored else data), scored is not None


def read_with_scored_flags(ledger: "Ledger", project: str, model_version: str, *,
                           page: int = 2000) -> tuple[list[ItemResult], frozenset[str] | None]:
    """The stored results (the verdicts the lead sees) and the ids the workers had flagged — ``None`` where no row
    was re-read — in one read of the ledger: a report needs both (what the audit's last pass took back and added).
    """
    stored: list[ItemResult] = []
    flags: set[str] = set()
    reread = False
    for data in ledger.iter_payloads(project, model_version, page=page):
        scored = data.pop(AS_SCORED, None)
        item = ItemResult.from_json(data)
        stored.append(item)
        reread = reread or scored is not None
        if (scored or {}).get("flagged", item.flagged):
            flags.add(str(item.id))
    return stored, frozenset(flags) if reread else None


def record_reread(ledger: "Ledger", project: str, model_version: str,
                  pairs: Iterable[tuple[ItemResult, ItemResult]]) -> int:
    """Write each ``(as scored, re-read)`` pair's verdict over its row; return how many rows were written.

    A pair whose verdicts are the same writes the row as scored (undoing an earlier pass's verdict); members and
    the import bookkeeping (``imported_at``) are left as they are. Callers pass only the rows that change.
    """
    updates = []
    for scored, reread in pairs:
        changed = not same_verdict(scored, reread)
        held = replace(reread, members=scored.members) if changed else scored  # the judges' own answers stay
        payload = held.to_json()
        if changed:
            payload[AS_SCORED] = {f: _plain(getattr(scored, f)) for f in VERDICT_FIELDS}
        updates.append({"key_task": str(scored.id), "prediction": held.prediction, "confidence": held.confidence,
                        "flagged": bool(held.flagged), "result_json": json.dumps(payload, default=str)})
    if not updates:
        return 0
    cols = schema.results.c
    statement = (schema.results.update()
                 .where(cols.project == str(project), cols.model_version == model_version,
                        cols.task_id == bindparam("key_task"))
                 .values(prediction=bindparam("prediction"), confidence=bindparam("confidence"),
                         flagged=bindparam("flagged"), result_json=bindparam("result_json")))
    with ledger.db_engine.begin() as conn:
        conn.execute(statement, updates)
    return len(updates)


def record_pass(ledger: "Ledger", project: str, model_version: str, blocks: dict[str, Any]) -> None:
    """Keep what the pass decided over ``project`` (the summary's ``health_gate`` and ``prior_correction`` blocks),
    over the previous pass's."""
    row = {"project": str(project), "model_version": model_version,
           "blocks_json": json.dumps(blocks, default=str, sort_keys=True), "updated_at": datetime.now(timezone.utc)}
    with ledger.db_engine.begin() as conn:
        upsert(conn, schema.passes, [row], keys=("project", "model_version"))


def pass_blocks(ledger: "Ledger", project: str, model_version: str) -> dict[str, Any] | None:
    """What the last pass over ``project`` at ``model_version`` decided, or None (no audit pass ran on it: a ``score``
    run, or an audit by a release before the record)."""
    cols = schema.passes.c
    query = select(cols.blocks_json).where(cols.project == str(project), cols.model_version == model_version)
    with ledger.db_engine.connect() as conn:
        raw = conn.execute(query).scalar()
    return None if raw is None else json.loads(raw)
