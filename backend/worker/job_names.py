"""The dotted names of the functions a worker runs, and the keyword arguments each takes.

Kept below :mod:`backend.worker.safety`, :mod:`backend.worker.jobs` and :mod:`backend.worker.importer`:
rq names a job's function by this string and imports it only when a worker runs the job, so the
queueing side (the importer scheduling itself, the backend enqueueing scoring jobs) and the checking side
(:class:`backend.worker.safety.ScoringJob`) share the names without importing each other.
"""

from __future__ import annotations

__all__ = ["ALLOWED", "FLUSH_FUNC", "FLUSH_KWARGS", "JOB_FUNC", "JOB_KWARGS"]

JOB_FUNC = "backend.worker.jobs.score_tasks"
JOB_KWARGS = frozenset({"project", "tasks", "label_config", "model_version", "job_key"})
FLUSH_FUNC = "backend.worker.importer.flush_predictions"
FLUSH_KWARGS = frozenset({"project", "model_version", "label_config"})
#: every function a worker runs, with the exact keyword arguments a job may give it
ALLOWED = {JOB_FUNC: JOB_KWARGS, FLUSH_FUNC: FLUSH_KWARGS}
