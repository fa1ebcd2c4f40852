"""The backend's public surface: everything ``audit-stats`` (``stats_cli``) may use of the backend.

Why: the statistics read what the backend wrote (ledger, review stores, Label Studio tasks) and share a
few rules with it (labels, the verdict rule, the review outcome), but must not depend on how the backend
is arranged inside (its commands, its engine). ``stats_cli`` imports the backend only from here
(``tests/stats_cli/test_backend_surface.py`` checks it), so a backend module can move without touching
the statistics, and this list says what the two share.

The names are listed once, as the ordinary imports of the ``TYPE_CHECKING`` block below: type checkers and
editors read them there, and at run time that block is parsed (once, at import) into the table that
``__getattr__`` (PEP 562) loads each name from on first use. Loading lazily keeps ``import backend.api``
at 0.03 s of CPU instead of 1.6 s (it would import the SDK, SQLAlchemy and the review code), and
``tests/stats_cli/test_backend_surface.py`` holds it to that. A name ``audit-stats`` needs is one import line
added below.

>>> from backend.api import TaskSpec, majority_label
>>> majority_label(["1", "0", "1"])
'1'
"""

from __future__ import annotations

import ast
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the one list of public names, grouped by concept; read at run time by _surface()
    # The task: spec, label values and their order, defaults.
    from backend.task.spec import TaskSpec  # noqa: F401
    from backend.common.labels import (  # noqa: F401
        break_tie, label_problem, label_sort_key, label_value, labels_are_numeric, majority_label,
        median_label, normalize_label, sort_labels)
    from backend.common import defaults  # noqa: F401
    # The verdict rule and the stored results.
    from backend.scoring.ensemble import (  # noqa: F401
        TIE_TOLERANCE, VerdictRule, argmax, check_distribution, disagrees, label_error, model_of, resolve_threshold,
        verdict)
    from backend.scoring.results import ItemResult  # noqa: F401
    from backend.families.orders import position_flips  # noqa: F401
    from backend.families.choices_presentation import bare_codes  # noqa: F401
    from backend.scoring.run_stats import tally  # noqa: F401
    from backend.scoring.member_health import member_health  # noqa: F401
    from backend.scoring.health_gate import gate_from_health, regate  # noqa: F401
    from backend.scoring.planted_ranking import planted_ranking  # noqa: F401
    from backend.scoring.class_reach import REACH_FAMILIES, class_reach, reach_lines  # noqa: F401
    from backend.ledger import Ledger  # noqa: F401
    from backend.ledger.reread import pass_blocks, read_with_scored_flags  # noqa: F401
    from backend.summaries.score_summary import adjustment_lines  # noqa: F401
    # Label Studio: connection, task shape, crowd labels, gold annotations, which instance.
    from backend.labelstudio.client import connect, ensure_user, iter_tasks, organization_id  # noqa: F401
    from backend.labelstudio.error_lines import client_errors, describe_error  # noqa: F401
    from backend.labelstudio.taskshape import as_dict, field, live_annotations  # noqa: F401
    from backend.labelstudio.tasks import crowd_by_item, crowd_labels  # noqa: F401
    from backend.labelstudio.gold_marks import GOLD_USER_EMAIL, is_gold_annotation, mark_gold  # noqa: F401
    from backend.labelstudio.instances import source_url  # noqa: F401
    from backend.labelstudio.expert_instances import review_clients  # noqa: F401
    from backend.labelstudio.labelconfig import parse_label_config  # noqa: F401
    # Images: the source fetcher the review uses, thumbnails for the report's grid.
    from backend.review.images import source_fetch  # noqa: F401
    from backend.images.thumbnail import thumbnail_png  # noqa: F401
    # The review: stores, outcome (gold), sampling design, calibration and active review.
    from backend.review.review_store import ROUND_RECONCILE, ROUND_REVIEW, ReviewStore  # noqa: F401
    from backend.review.source import SourceProject, load_audited_source, load_source  # noqa: F401
    from backend.review.outcome import AMBIGUOUS_ANSWER, GoldStatus, ReviewOutcome, answers_after, decide_outcome  # noqa: F401
    from backend.review.gold_store import refresh_review  # noqa: F401
    from backend.review.status import project_links  # noqa: F401
    from backend.review.sample_store import SampleStore  # noqa: F401
    from backend.review.sampling import ALL, Candidate, Draw, FLAGGED_REVIEWED, assign_strata, draw_sample  # noqa: F401
    from backend.review.calibration import MIN_PER_OUTCOME, MIN_REVIEWED, fit_calibration, not_enough, stacking_gain  # noqa: F401
    from backend.review.active import ControlSample, control_sample, rank_suspects, wrong_score  # noqa: F401
    from backend.review.fitted_threshold import FittedCut, fitted_flag_cut, score_name  # noqa: F401
    from backend.review.member_cut import MemberCut, member_cuts  # noqa: F401
    from backend.review.judge_strata import OPEN, JudgeInputs, calibrated_scores, settled_strata  # noqa: F401
    from backend.review.until_width import WidthTarget, more_reviews_line  # noqa: F401
    from backend.review.spread_design import SPREAD, certainty_stratum  # noqa: F401
    from backend.review.truth_model import SourceQuality, TruthModel  # noqa: F401
    from backend.review.triage import ItemEvidence, TriageResult, triage_items  # noqa: F401
    from backend.review.triage_scope import not_triaged  # noqa: F401
    # Span labels (NER).
    from backend.spans.model import NOT_AN_ENTITY, Span  # noqa: F401
    from backend.spans.value import decode_spans  # noqa: F401
    from backend.spans.questions import EXTENT_OPTIONS, KINDS, parse_qid  # noqa: F401
    from backend.spans.review import expert_answer  # noqa: F401
    from backend.spans.export import conll_from_rows  # noqa: F401
    # Probes, the confident-learning member, costs.
    from backend.probes.planted import PLANTED  # noqa: F401
    from backend.probes.probe_store import latest_probe_results  # noqa: F401
    from backend.confident.issues import ranking_report  # noqa: F401
    from backend.confident.run_block import confident_ids  # noqa: F401
    from backend.costs.accounting import Accountant  # noqa: F401
    from backend.costs.prices import load_prices  # noqa: F401
    # The error-rate estimators (pure maths the review push shares): exact bounds, stratified, judge-assisted.
    from backend.estimates import bounds, error_rate, judge_assisted, stratified_interval  # noqa: F401
    # Files, terminal and environment: record files, safe CSV cells, atomic writes, one error line.
    from backend.common.records import FileFormat, Record, RecordProblem, RecordReader, detect_format  # noqa: F401
    from backend.common.csv_cells import safe_row  # noqa: F401
    from backend.common.atomic_write import atomic_write  # noqa: F401
    from backend.common.terminal_text import plain  # noqa: F401
    from backend.common.cli_errors import fail  # noqa: F401
    from backend.common.environment import TOKEN_HELP, env_value  # noqa: F401
    from backend.config.settings import Settings  # noqa: F401  (resolved once by each command, then passed down)


def _surface() -> dict[str, str]:
    """Public name -> the module that owns it, read from this module's ``TYPE_CHECKING`` imports."""
    source = __loader__.get_source(__name__)  # type: ignore[name-defined]  # works from a wheel or a zip too
    block = next(node for node in ast.parse(source).body
                 if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
    return {alias.asname or alias.name: statement.module
            for statement in block.body if isinstance(statement, ast.ImportFrom) and statement.module
            for alias in statement.names}


#: Public name -> the module that owns it.
_SURFACE: dict[str, str] = _surface()
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
