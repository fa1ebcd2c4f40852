"""The audit ledger: scored tasks per (project, task id, model_version), idempotent by key.

Why a SQL ledger and not RQ results: RQ keeps results for ``result_ttl`` only, and the report, the
review loop and ``/predict`` all need every member's probabilities and the ensemble verdict long
after the job ended. Writes are upserts keyed by (project, task_id, model_version[, member_id]), so
a retried or re-run job leaves exactly one row per key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Iterator, Mapping, Sequence

from sqlalchemy import Engine, Integer, and_, func, select

from backend.sqlstore.connection import make_db_engine
from backend.sqlstore.key_fit import fit_key
from backend.sqlstore.tables import ensure_schema
from backend.ledger import schema
from backend.ledger.jobs import JobLog
from backend.ledger.upsert import upsert
from backend.scoring.results import ItemResult


@dataclass(frozen=True)
class CrowdLabel:
    """One annotator's label on one task, kept for crowd statistics (majority, p_d, agreement)."""

    task_id: str
    annotation_id: str
    label: str | None
    annotator: str | None = None


def _now() -> datetime:
    return datetime.now(timezone.utc)


class Ledger:
    """Durable store of ensemble results, crowd labels, job status and project settings.

    Parameters
    ----------
    url : str, optional
        SQLAlchemy/DB URL; default ``DATABASE_URL`` or the SQLite file of :func:`backend.sqlstore.connection.default_url`.
    db_engine : Engine, optional
        An existing db_engine to share (then ``url`` must be None).

    Examples
    --------
    >>> ledger = Ledger("sqlite:///:memory:")
    >>> ledger.pending("7", ["1", "2"], "v1")
    ['1', '2']
    """

    def __init__(self, url: str | None = None, *, db_engine: Engine | None = None) -> None:
        if url is not None and db_engine is not None:
            raise ValueError("give either url or db_engine, not both")
        self.db_engine: Engine = db_engine if db_engine is not None else make_db_engine(url)
        ensure_schema(self.db_engine)
        self.jobs = JobLog(self.db_engine)

    # ---- results ---------------------------------------------------------------------------
    def record(self, project: str, model_version: str, result: ItemResult) -> None:
        """Store one item's ensemble result and its members, replacing any earlier row for its key."""
        self.record_many(project, model_version, [result])

    def record_many(self, project: str, model_version: str, results: Iterable[ItemResult]) -> int:
        """Store many results in one transaction; returns how many were written."""
        _check_key(project, model_version)
        now = _now()
        rows, member_rows, stale = [], [], []
        for res in results:
            rows.append(_result_row(str(project), model_version, res, now))
            member_rows.extend(_member_rows(str(project), model_version, res, now))
            stale.append((str(res.id), [fit_key(m.member_id) for m in res.members]))
        with self.db_engine.begin() as conn:
            upsert(conn, schema.results, rows, keys=("project", "task_id", "model_version"))
            for task_id, member_ids in stale:  # a re-run with fewer members drops the old extras
                conn.execute(
                    schema.members.delete().where(
                        and_(
                            schema.members.c.project == str(project),
                            schema.members.c.task_id == task_id,
                            schema.members.c.model_version == model_version,
                            schema.members.c.member_id.not_in(member_ids),
                        )
                    )
                )
            upsert(conn, schema.members, member_rows, keys=("project", "task_id", "model_version", "member_id"))
        return len(rows)

    def results(self, project: str, *, model_version: str | None = None) -> list[ItemResult]:
        """All results of a project for ``model_version`` (default: the most recently written one)."""
        version = model_version or self.latest_version(project)
        if version is None:
            return []
        query = (
            select(schema.results.c.result_json)
            .where(schema.results.c.project == str(project), schema.results.c.model_version == version)
            .order_by(schema.results.c.id)
        )
        with self.db_engine.connect() as conn:
            return [ItemResult.from_json(json.loads(row[0])) for row in conn.execute(query)]

    def iter_results(self, project: str, model_version: str, *, page: int = 2000) -> Iterator[ItemResult]:
        """Every result of a project for ``model_version``, read in pages (memory does not grow with the
        project: a 100k-task audit's summary reads it once, page by page, in insertion order)."""
        return (ItemResult.from_json(data) for data in self.iter_payloads(project, model_version, page=page))

    def iter_payloads(self, project: str, model_version: str, *, page: int = 2000) -> Iterator[dict]:
        """Every stored result's JSON as written (:mod:`backend.ledger.reread` reads what it keeps beside the
        verdict), page by page in insertion order."""
        cols = schema.results.c
        last = 0
        while True:
            query = (select(cols.id, cols.result_json)
                     .where(cols.project == str(project), cols.model_version == model_version, cols.id > last)
                     .order_by(cols.id).limit(int(page)))
            with self.db_engine.connect() as conn:
                rows = conn.execute(query).all()
            for _, payload in rows:
                yield json.loads(payload)
            if len(rows) < page:
                return
            last = rows[-1][0]

    def first_value(self, project: str, model_version: str) -> str | None:
        """The first stored row's label value that has one (its prediction, else its original), or None.

        Error rows hold neither (workers record errors first), so "the first row" says nothing of how the
        project's values are written; the first row *with* a value does.
        """
        cols = schema.results.c
        query = (select(func.coalesce(cols.prediction, cols.original))
                 .where(cols.project == str(project), cols.model_version == model_version,
                        (cols.prediction.is_not(None)) | (cols.original.is_not(None)))
                 .order_by(cols.id).limit(1))
        with self.db_engine.connect() as conn:
            return conn.execute(query).scalar()

    def without_result(self, project: str, task_ids: Sequence[str], model_version: str) -> list[str]:
        """The task ids (in the given order) with no stored row for ``model_version``, reading ids only
        (:meth:`pending` parses every stored result: too much to hold for a whole large project)."""
        ids = [str(t) for t in task_ids]
        cols = schema.results.c
        done: set[str] = set()
        with self.db_engine.connect() as conn:
            for chunk in _chunks(ids, 500):
                done.update(conn.execute(select(cols.task_id).where(
                    cols.project == str(project), cols.model_version == model_version,
                    cols.task_id.in_(chunk))).scalars())
        return [t for t in ids if t not in done]

    def count_done(self, project: str, model_version: str) -> int:
        """How many tasks of a project have a result for ``model_version`` (one indexed count)."""
        cols = schema.results.c
        query = select(func.count()).where(cols.project == str(project), cols.model_version == model_version)
        with self.db_engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def results_for(self, project: str, task_ids: Sequence[str], model_version: str, *,
                    input_hashes: Mapping[str, str] | None = None) -> dict[str, ItemResult]:
        """Results of the given tasks that exist for ``model_version``, by task id.

        With ``input_hashes`` (task id -> :func:`backend.scoring.results.input_hash` of its current inputs), a result
        scored on other inputs is left out: edited or planted task data is re-scored, never served stale.
        """
        hashes = input_hashes or {}
        ids = [str(t) for t in task_ids]
        out: dict[str, ItemResult] = {}
        cols = schema.results.c
        with self.db_engine.connect() as conn:
            for chunk in _chunks(ids, 500):
                query = select(cols.task_id, cols.input_hash, cols.result_json).where(
                    cols.project == str(project), cols.model_version == model_version, cols.task_id.in_(chunk)
                )
                for task_id, stored_hash, payload in conn.execute(query):
                    if task_id in hashes and stored_hash != hashes[task_id]:
                        continue  # scored on other inputs (or stored without a hash): re-score it
                    out[task_id] = ItemResult.from_json(json.loads(payload))
        return out

    def pending(self, project: str, task_ids: Sequence[str], model_version: str, *,
                input_hashes: Mapping[str, str] | None = None) -> list[str]:
        """The task ids (in the given order) with no valid stored result for ``model_version`` (see
        :meth:`results_for` for ``input_hashes``)."""
        done = self.results_for(project, task_ids, model_version, input_hashes=input_hashes)
        return [str(t) for t in task_ids if str(t) not in done]

    def flagged(
        self, project: str, *, threshold: float | None = None, model_version: str | None = None
    ) -> list[ItemResult]:
        """Flagged items, highest confidence first; ``threshold`` keeps confidence >= threshold."""
        version = model_version or self.latest_version(project)
        if version is None:
            return []
        cols = schema.results.c
        query = select(cols.result_json).where(
            cols.project == str(project), cols.model_version == version, cols.flagged.is_(True)
        )
        if threshold is not None:
            query = query.where(cols.confidence >= float(threshold))
        query = query.order_by(cols.confidence.desc(), cols.id)
        with self.db_engine.connect() as conn:
            return [ItemResult.from_json(json.loads(row[0])) for row in conn.execute(query)]

    def unimported(self, project: str, model_version: str, *, limit: int | None = None) -> list[ItemResult]:
        """Results with a prediction that has not been imported into Label Studio yet (the outbox of
        :mod:`backend.worker.importer`), oldest first; at most ``limit`` of them."""
        cols = schema.results.c
        query = select(cols.result_json).where(
            cols.project == str(project), cols.model_version == model_version,
            cols.imported_at.is_(None), cols.prediction.is_not(None),
        ).order_by(cols.id)
        if limit is not None:
            query = query.limit(int(limit))
        with self.db_engine.connect() as conn:
            return [ItemResult.from_json(json.loads(row[0])) for row in conn.execute(query)]

    def mark_imported(self, project: str, model_version: str, task_ids: Sequence[str]) -> None:
        """Remember that these tasks' predictions are in Label Studio (so none is imported twice)."""
        cols = schema.results.c
        now = _now()
        with self.db_engine.begin() as conn:
            for chunk in _chunks([str(t) for t in task_ids], 500):
                conn.execute(
                    schema.results.update()
                    .where(cols.project == str(project), cols.model_version == model_version,
                           cols.task_id.in_(chunk))
                    .values(imported_at=now)
                )

    def latest_version(self, project: str) -> str | None:
        """The model_version most recently written for a project, or None."""
        cols = schema.results.c
        query = (
            select(cols.model_version)
            .where(cols.project == str(project))
            .group_by(cols.model_version)
            .order_by(func.max(cols.updated_at).desc())
            .limit(1)
        )
        with self.db_engine.connect() as conn:
            return conn.execute(query).scalar()

    def count(self, project: str, model_version: str) -> dict[str, int]:
        """``{"scored": n, "errors": n, "flagged": n}`` for a project and version."""
        cols = schema.results.c
        query = select(
            func.count(), func.count(cols.error), func.coalesce(func.sum(cols.flagged.cast(Integer)), 0)
        ).where(cols.project == str(project), cols.model_version == model_version)
        with self.db_engine.connect() as conn:
            total, errors, flagged = conn.execute(query).one()
        return {"scored": int(total), "errors": int(errors), "flagged": int(flagged)}

    # ---- crowd labels ----------------------------------------------------------------------
    def record_crowd(self, project: str, labels: Iterable[CrowdLabel]) -> None:
        """Keep every annotator's label (idempotent by annotation id)."""
        now = _now()
        rows = [
            {
                "project": str(project),
                "task_id": str(lab.task_id),
                "annotation_id": str(lab.annotation_id),
                "annotator": lab.annotator,
                "label": lab.label,
                "updated_at": now,
            }
            for lab in labels
        ]
        with self.db_engine.begin() as conn:
            upsert(conn, schema.crowd_labels, rows, keys=("project", "task_id", "annotation_id"))

    def crowd_labels(self, project: str) -> dict[str, list[CrowdLabel]]:
        """Every stored annotator label of a project, grouped by task id."""
        cols = schema.crowd_labels.c
        query = select(cols.task_id, cols.annotation_id, cols.label, cols.annotator).where(
            cols.project == str(project)
        ).order_by(cols.id)
        out: dict[str, list[CrowdLabel]] = {}
        with self.db_engine.connect() as conn:
            for task_id, ann_id, label, annotator in conn.execute(query):
                out.setdefault(task_id, []).append(CrowdLabel(task_id, ann_id, label, annotator))
        return out

    # ---- project settings ------------------------------------------------------------------
    def set_project(self, project: str, *, label_config: str | None, label_field: str | None = None,
                    control: str | None = None) -> None:
        """Remember a project's label config (from /setup or a webhook) to re-derive its task spec.

        ``control`` is the control the audit was narrowed to (``LABEL_AUDIT_CONTROL``): the review, the
        report and ``sync-gold`` derive their spec from the config *and* it, so a config with several
        controls audited one at a time reads back as the spec it was scored with.
        """
        row = {"project": str(project), "label_config": label_config, "label_field": label_field,
               "control": control or None, "updated_at": _now()}
        with self.db_engine.begin() as conn:
            upsert(conn, schema.projects, [row], keys=("project",))

    def project(self, project: str) -> dict[str, str | None] | None:
        """``{"label_config": ..., "label_field": ..., "control": ...}`` of a known project, else None."""
        cols = schema.projects.c
        with self.db_engine.connect() as conn:
            row = conn.execute(
                select(cols.label_config, cols.label_field, cols.control).where(cols.project == str(project))
            ).first()
        return None if row is None else {"label_config": row[0], "label_field": row[1], "control": row[2]}


def _check_key(project: str, model_version: str) -> None:
    if not str(project) or not model_version:
        raise ValueError("project and model_version must be non-empty")


def _result_row(project: str, version: str, res: ItemResult, now: datetime) -> dict:
    return {
        "project": project,
        "task_id": str(res.id),
        "model_version": version,
        "original": res.original,
        "prediction": res.prediction,
        "confidence": res.confidence,
        "flagged": bool(res.flagged),
        "error": None if res.error is None else str(res.error),
        "suspicious_text": bool(res.suspicious_text),
        "result_json": json.dumps(res.to_json(), default=str),
        "input_hash": res.input_hash,
        "updated_at": now,
    }


def _member_rows(project: str, version: str, res: ItemResult, now: datetime) -> list[dict]:
    return [
        {
            "project": project,
            "task_id": str(res.id),
            "model_version": version,
            "member_id": fit_key(m.member_id),  # the full id is in the result's JSON
            "probs_json": None if m.probs is None else json.dumps(dict(m.probs)),
            "raw_mass": m.raw_mass,
            "method": m.method,
            "error": None if m.reason is None else fit_key(m.reason),
            "error_detail": None if m.error is None else m.error.detail,
            "cached": bool(m.cached),
            "latency_s": m.latency_s,
            "cost_usd": getattr(m, "cost_usd", None),
            "updated_at": now,
        }
        for m in res.members
    ]


def _chunks(items: Sequence[str], size: int) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]

