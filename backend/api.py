"""The backend's public surface: everything ``audit-stats`` (``stats_cli``) may use of the backend.

Why: the statistics read what the backend wrote (ledger, review stores, Label Studio tasks) and share a
few rules with it (labels, the verdict rule, the review outcome), but must not depend on how the backend
is arranged inside (its commands, its engine). ``stats_cli`` imports the backend only from here
(``tests/stats_cli/test_backend_surface.py`` checks it), so a backend module can move without touching
the statistics, and this table says what the two share.

Names load lazily (PEP 562 ``__getattr__``), so ``audit-stats --help`` does not import the SDK, the
ledger or the review code until a command uses them.

>>> from backend.api import TaskSpec, majority_label
>>> majority_label(["1", "0", "1"])
'1'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Public name -> the module that owns it, by concept.
_SURFACE: dict[str, str] = {}


def _expose(module: str, *names: str) -> None:
    for name in names:
        _SURFACE[name] = module


# The task: spec, label values and their order, defaults.
_expose("backend.task.spec", "TaskSpec")
_expose("backend.common.labels", "break_tie", "label_problem", "label_sort_key", "label_value", "labels_are_numeric",
        "majority_label", "median_label", "normalize_label", "sort_labels")
_expose("backend.common", "defaults")
# The verdict rule and the stored results.
_expose("backend.scoring.ensemble", "TIE_TOLERANCE", "VerdictRule", "argmax", "check_distribution", "disagrees",
        "model_of", "resolve_threshold", "verdict")
_expose("backend.scoring.results", "ItemResult")
_expose("backend.families.orders", "position_flips")
_expose("backend.scoring.run_stats", "tally")
_expose("backend.scoring.member_health", "member_health")
_expose("backend.ledger", "Ledger")
# Label Studio: connection, task shape, crowd labels, gold annotations, which instance.
_expose("backend.labelstudio.client", "connect", "ensure_user", "organization_id")
_expose("backend.labelstudio.error_lines", "client_errors", "describe_error")
_expose("backend.labelstudio.taskshape", "as_dict", "field", "live_annotations")
_expose("backend.labelstudio.tasks", "crowd_labels")
_expose("backend.labelstudio.gold_marks", "GOLD_USER_EMAIL", "is_gold_annotation", "mark_gold")
_expose("backend.labelstudio.instances", "source_url_from_env")
_expose("backend.labelstudio.expert_instances", "review_clients_from_env")
_expose("backend.labelstudio.labelconfig", "parse_label_config")
_expose("backend.labelstudio.client", "iter_tasks")
# Images: the source fetcher the review uses, thumbnails for the report's grid.
_expose("backend.review.images", "source_fetch")
_expose("backend.images.thumbnail", "thumbnail_png")
# The review: stores, outcome (gold), sampling design, calibration and active review.
_expose("backend.review.review_store", "ROUND_RECONCILE", "ROUND_REVIEW", "ReviewStore")
_expose("backend.review.source", "SourceProject", "load_audited_source", "load_source")
_expose("backend.review.outcome", "GoldStatus", "ReviewOutcome", "answers_after", "decide_outcome")
_expose("backend.review.gold_store", "refresh_review")
_expose("backend.review.status", "project_links")
_expose("backend.review.sample_store", "SampleStore")
_expose("backend.review.sampling", "ALL", "Candidate", "Draw", "FLAGGED_REVIEWED", "draw_sample")
_expose("backend.review.calibration", "MIN_PER_OUTCOME", "MIN_REVIEWED", "stacking_gain")
_expose("backend.review.active", "ControlSample", "control_sample", "rank_suspects")
_expose("backend.review.truth_model", "SourceQuality", "TruthModel")
_expose("backend.review.triage", "ItemEvidence", "TriageResult", "triage_items")
# Span labels (NER).
_expose("backend.spans.model", "NOT_AN_ENTITY", "Span")
_expose("backend.spans.value", "decode_spans")
_expose("backend.spans.questions", "EXTENT_OPTIONS", "KINDS", "parse_qid")
_expose("backend.spans.review", "expert_answer")
_expose("backend.spans.export", "conll_from_rows")
# Probes, the confident-learning member, costs.
_expose("backend.probes.planted", "PLANTED")
_expose("backend.probes.probe_store", "latest_probe_results")
_expose("backend.confident.issues", "ranking_report")
_expose("backend.confident.run_block", "confident_ids")
_expose("backend.costs.accounting", "Accountant")
_expose("backend.costs.prices", "load_prices")
# Files, terminal and environment: record files, safe CSV cells, atomic writes, one error line.
_expose("backend.common.records", "FileFormat", "Record", "RecordProblem", "RecordReader", "detect_format")
_expose("backend.common.csv_cells", "safe_row")
_expose("backend.common.atomic_write", "atomic_write")
_expose("backend.common.terminal_text", "plain")
_expose("backend.common.cli_errors", "fail")
_expose("backend.common.environment", "TOKEN_HELP", "env_value")

__all__ = sorted(_SURFACE)


def __getattr__(name: str) -> Any:
    module = _SURFACE.get(name)
    if module is None:
        raise AttributeError(f"backend.api has no {name!r} (the backend's public surface: backend.api.__all__)")
    owner = importlib.import_module(module)
    value: Any = getattr(owner, name, None)
    if value is None:  # a submodule (``defaults``)
        value = importlib.import_module(f"{module}.{name}")
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # what type checkers and editors see: the same names, imported eagerly
    from backend.common import defaults  # noqa: F401
    from backend.common.atomic_write import atomic_write  # noqa: F401
    from backend.common.cli_errors import fail  # noqa: F401
    from backend.confident.issues import ranking_report  # noqa: F401
    from backend.confident.run_block import confident_ids  # noqa: F401
    from backend.costs.accounting import Accountant  # noqa: F401
    from backend.costs.prices import load_prices  # noqa: F401
    from backend.common.csv_cells import safe_row  # noqa: F401
    from backend.scoring.ensemble import (TIE_TOLERANCE, VerdictRule, argmax, check_distribution, disagrees,  # noqa: F401
                                  model_of, resolve_threshold, verdict)
    from backend.common.environment import TOKEN_HELP, env_value  # noqa: F401
    from backend.common.labels import (break_tie, label_problem, label_sort_key, label_value, labels_are_numeric,  # noqa: F401
                                majority_label, median_label, normalize_label, sort_labels)
    from backend.images.thumbnail import thumbnail_png  # noqa: F401
    from backend.labelstudio.client import connect, ensure_user, iter_tasks, organization_id  # noqa: F401
    from backend.labelstudio.error_lines import client_errors, describe_error  # noqa: F401
    from backend.labelstudio.expert_instances import review_clients_from_env  # noqa: F401
    from backend.labelstudio.gold_marks import GOLD_USER_EMAIL, is_gold_annotation, mark_gold  # noqa: F401
    from backend.labelstudio.instances import source_url_from_env  # noqa: F401
    from backend.labelstudio.labelconfig import parse_label_config  # noqa: F401
    from backend.labelstudio.tasks import crowd_labels  # noqa: F401
    from backend.labelstudio.taskshape import as_dict, field, live_annotations  # noqa: F401
    from backend.ledger import Ledger  # noqa: F401
    from backend.probes.planted import PLANTED  # noqa: F401
    from backend.probes.probe_store import latest_probe_results  # noqa: F401
    from backend.common.records import FileFormat, Record, RecordProblem, RecordReader, detect_format  # noqa: F401
    from backend.scoring.results import ItemResult  # noqa: F401
    from backend.review.active import ControlSample, control_sample, rank_suspects  # noqa: F401
    from backend.review.triage import ItemEvidence, TriageResult, triage_items  # noqa: F401
    from backend.review.truth_model import SourceQuality, TruthModel  # noqa: F401
    from backend.review.calibration import MIN_PER_OUTCOME, MIN_REVIEWED, stacking_gain  # noqa: F401
    from backend.review.gold_store import refresh_review  # noqa: F401
    from backend.review.images import source_fetch  # noqa: F401
    from backend.review.outcome import GoldStatus, ReviewOutcome, answers_after, decide_outcome  # noqa: F401
    from backend.review.sample_store import SampleStore  # noqa: F401
    from backend.review.sampling import ALL, FLAGGED_REVIEWED, Candidate, Draw, draw_sample  # noqa: F401
    from backend.review.source import SourceProject, load_audited_source, load_source  # noqa: F401
    from backend.review.status import project_links  # noqa: F401
    from backend.review.review_store import ROUND_RECONCILE, ROUND_REVIEW, ReviewStore  # noqa: F401
    from backend.scoring.member_health import member_health  # noqa: F401
    from backend.scoring.run_stats import tally  # noqa: F401
    from backend.spans.export import conll_from_rows  # noqa: F401
    from backend.spans.model import NOT_AN_ENTITY, Span  # noqa: F401
    from backend.spans.questions import EXTENT_OPTIONS, KINDS, parse_qid  # noqa: F401
    from backend.spans.review import expert_answer  # noqa: F401
    from backend.spans.value import decode_spans  # noqa: F401
    from backend.families.orders import position_flips  # noqa: F401
    from backend.task.spec import TaskSpec  # noqa: F401
    from backend.common.terminal_text import plain  # noqa: F401
