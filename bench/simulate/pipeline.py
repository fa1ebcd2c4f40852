"""One replicate end to end: planted project → ledger rows → review store → the report's sources → sections → JSON.

Everything after the draw of the planted project is the product's code: the ledger stores and returns the
verdicts (:class:`backend.ledger.Ledger`), the review is read back by the report's own adapter
(:func:`stats_cli.sources.audit_sources.review_state`), :class:`~stats_cli.sources.audit_data.AuditData` is
filled as :func:`stats_cli.sources.audit_pull.pull_audit` fills it (the Label Studio pull aside: the crowd's
answers are given, as the pull would have read them), the report is built and rendered to JSON, and the JSON
is parsed back. Replicates share one SQLite file, each under its own project key.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Collection

from backend.labelstudio.projectspec import spec_from_label_config
from backend.ledger import Ledger
from backend.review.source import SourceProject
from backend.task.spec import TaskSpec
from stats_cli.report.build import build_report
from stats_cli.report.render import render
from stats_cli.sources.audit_data import AuditData
from stats_cli.sources.audit_sources import review_state

from .designs import Design, run_review
from .judges import Judges, judge
from .projects import Case, PlantedItem, plant

__all__ = ["Replicate", "Runner"]

MODEL_VERSION = "simulated-v1"
#: The sections whose figures the harness checks (the others cost seconds per replicate: the calibration
#: section's stacking bootstrap, the crowd's Dawid-Skene fits); ``sections=None`` builds the whole report.
CHECKED = ("audit", "errors", "crowd", "confidence", "triage", "spans")


@dataclass(frozen=True)
class Replicate:
    """One replicate's planted items, the stored verdicts, what the report read and its JSON."""

    spec: TaskSpec
    planted: tuple[PlantedItem, ...]
    results: tuple[Any, ...]
    report: dict[str, Any]
    data: AuditData | None = None


@lru_cache(maxsize=None)
def _spec(config: str) -> TaskSpec:
    return spec_from_label_config(config)


class Runner:
    """Runs replicates against one audit database (``db_url``: an SQLite file of the run's own).

    ``sections``: the report sections built (:data:`CHECKED` by default, None: all of them).
    """

    def __init__(self, db_url: str, *, judges: Judges | None = None, sections: Collection[str] | None = CHECKED) -> None:
        self.ledger = Ledger(db_url)
        self.sections = None if sections is None else frozenset(sections)
        self.judges = judges or Judges()
        self._keys = itertools.count(1)

    def run(self, case: Case, design: Design, *, seed: int) -> Replicate:
        rng = random.Random(f"{case.family}:{design.name}:{seed}")
        spec = _spec(case.config)
        planted = plant(case, spec, rng)
        key = str(next(self._keys))
        self.ledger.set_project(key, label_config=case.config)
        self.ledger.record_many(key, MODEL_VERSION, judge(spec, planted, self.judges, rng))
        items = self.ledger.results(key)
        run_review(self.ledger, key, spec, planted, items, design, rng, seed=seed)
        source = SourceProject(int(key), case.config, spec, spec.label_field)
        review = review_state(self.ledger, source, items)
        crowd = {p.id: dict(p.crowd) for p in planted if p.crowd}
        data = AuditData(project=key, spec=spec, items=tuple(items), routed=review.routed, reviews=review.reviews,
                         experts=review.experts, gold_labels=review.gold_labels, sampled=review.sampled,
                         sample=review.sample, ignored_answers=review.ignored, crowd=crowd)
        report = json.loads(render(build_report(data, seed=seed, only=self.sections), fmt="json"))
        return Replicate(spec, tuple(planted), tuple(items), report, data)
