"""Job status in the ledger, so progress and failures outlive Redis (``result_ttl``, restarts).

A job key is derived from (project, task ids, model_version); the same work always maps to the
same row, and ``attempts`` counts how often a worker started it (a retry after SIGKILL shows as 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import Engine, select, update

from backend.ledger import schema
from backend.ledger.upsert import upsert

#: ``refused``: the job was queued for another ensemble (model version) and this worker will not run it.
STATUSES = ("queued", "started", "retrying", "finished", "failed", "refused")


@dataclass(frozen=True)
class JobRecord:
    """One job's durable status."""

    job_key: str
    project: str
    model_version: str
    n_tasks: int
    status: str
    attempts: int
    n_scored: int
    n_errors: int
    error: str | None


class JobLog:
    """Read and write job status rows (``audit_jobs``)."""

    def __init__(self, db_engine: Engine) -> None:
        self.db_engine = db_engine

    def queued(self, job_key: str, *, project: str, model_version: str, n_tasks: int) -> None:
        """Create or reset a job row to ``queued`` (keeps its attempt count)."""
        row = {
            "job_key": job_key,
            "project": str(project),
            "model_version": model_version,
            "n_tasks": int(n_tasks),
            "status": "queued",
            "updated_at": datetime.now(timezone.utc),
        }
        with self.db_engine.begin() as conn:
            upsert(conn, schema.jobs, [row], keys=("job_key",))

    def started(self, job_key: str, *, project: str, model_version: str, n_tasks: int) -> int:
        """Mark a job started, count the attempt, and return the attempt number."""
        record = self.get(job_key)
        if record is None:
            self.queued(job_key, project=project, model_version=model_version, n_tasks=n_tasks)
        cols = schema.jobs.c
        with self.db_engine.begin() as conn:
            conn.execute(
                update(schema.jobs)
                .where(cols.job_key == job_key)
                .values(status="started", attempts=cols.attempts + 1, error=None,
                        updated_at=datetime.now(timezone.utc))
            )
            return int(conn.execute(select(cols.attempts).where(cols.job_key == job_key)).scalar_one())

    def finish(self, job_key: str, *, status: str, n_scored: int = 0, n_errors: int = 0,
               error: str | None = None) -> None:
        """Record a job's outcome (``finished``, ``failed``, or ``retrying`` after a transient error)."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        with self.db_engine.begin() as conn:
            conn.execute(
                update(schema.jobs)
                .where(schema.jobs.c.job_key == job_key)
                .values(status=status, n_scored=n_scored, n_errors=n_errors, error=error,
                        updated_at=datetime.now(timezone.utc))
            )

    def failed_by_queue(self, job_key: str, error: str) -> None:
        """rq gave up on the job (retries used up, timeout, crash): a row still ``started`` or
        ``retrying`` says ``failed``; a recorded outcome (finished, refused, failed) is kept."""
        cols = schema.jobs.c
        with self.db_engine.begin() as conn:
            conn.execute(
                update(schema.jobs)
                .where(cols.job_key == job_key, cols.status.in_(("queued", "started", "retrying")))
                .values(status="failed", error=error[:2000], updated_at=datetime.now(timezone.utc))
            )

    def get(self, job_key: str) -> JobRecord | None:
        """The job's row, or None."""
        c = schema.jobs.c
        query = select(c.job_key, c.project, c.model_version, c.n_tasks, c.status, c.attempts,
                       c.n_scored, c.n_errors, c.error).where(c.job_key == job_key)
        with self.db_engine.connect() as conn:
            row = conn.execute(query).first()
        return None if row is None else JobRecord(*row)

    def for_project(self, project: str) -> list[JobRecord]:
        """All jobs of a project, oldest first."""
        c = schema.jobs.c
        query = select(c.job_key, c.project, c.model_version, c.n_tasks, c.status, c.attempts,
                       c.n_scored, c.n_errors, c.error).where(c.project == str(project)).order_by(c.updated_at)
        with self.db_engine.connect() as conn:
            return [JobRecord(*row) for row in conn.execute(query)]
