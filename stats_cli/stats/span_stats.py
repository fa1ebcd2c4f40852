"""Span statistics: agreement between annotators (exact and overlap F1), errors by kind and by type.

Agreement is hand-written because the libraries that score entities (seqeval, nervaluate) work on
token tag sequences, while Label Studio spans are character intervals that need not fall on tokens;
on character spans exact match is set intersection and overlap match is a sweep, a few lines each.

- **exact-match F1** of annotators A and B: spans equal in extent and type count as matched;
  F1 = 2·|A ∩ B| / (|A| + |B|) (symmetric, so no annotator is the reference).
- **overlap F1**: a span counts as matched when it shares a character with a span of the same type
  of the other annotator; F1 = (matched_A + matched_B) / (|A| + |B|).
Several annotators: every pair of every task, pooled (micro) — the counts it rests on are returned.

Errors by kind rest on the review's sampling design through :func:`stats_cli.stats.error_rate.estimate_rate`
(MOVER over per-stratum Clopper-Pearson with FPC): for each kind, the questions of that kind are the
population, flagged and unflagged ones the strata. "Missed" can only count entities some judge
proposed; an entity no judge proposed is never asked about (said beside the figure).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Mapping, Sequence

from backend.api import Span
from stats_cli.stats.bounds import clopper_pearson
from stats_cli.stats.error_rate import RateEstimate, StratumCount, estimate_rate

ERROR_KINDS = ("wrong_type", "not_an_entity", "boundary", "missed")
QUESTION_OF_KIND = {"wrong_type": "type", "not_an_entity": "type", "boundary": "boundary", "missed": "missed"}


@dataclass(frozen=True)
class SpanAgreement:
    """Pooled pairwise agreement and the counts it rests on."""

    exact_f1: float | None
    overlap_f1: float | None
    pairs: int
    spans: int
    exact_matched: int
    overlap_matched: int


def _matched_overlap(a: Sequence[Span], b: Sequence[Span]) -> int:
    return sum(any(x.label == y.label and x.overlaps(y) for y in b) for x in a)


def span_agreement(tasks: Iterable[Sequence[Sequence[Span]]]) -> SpanAgreement:
    """Agreement over tasks, each given as one span list per annotator (tasks with < 2 are skipped)."""
    pairs = total = exact = overlap = 0
    for annotations in tasks:
        for a, b in combinations([sorted(set(x)) for x in annotations], 2):
            pairs += 1
            total += len(a) + len(b)
            exact += 2 * len(set(a) & set(b))
            overlap += _matched_overlap(a, b) + _matched_overlap(b, a)
    if total == 0:
        return SpanAgreement(None, None, pairs, 0, 0, 0)
    return SpanAgreement(exact / total, overlap / total, pairs, total, exact, overlap)


def agreement_by_type(tasks: Sequence[Sequence[Sequence[Span]]]) -> dict[str, SpanAgreement]:
    """:func:`span_agreement` restricted to each entity type in turn."""
    types = sorted({s.label for annotations in tasks for spans in annotations for s in spans})
    return {t: span_agreement([[[s for s in spans if s.label == t] for spans in annotations] for annotations in tasks])
            for t in types}


@dataclass(frozen=True)
class QuestionOutcome:
    """One question of the audit: its kind, the human span's type, flagged, reviewed, and the review's
    finding (``error_kind`` one of :data:`ERROR_KINDS` or "" for no error; None when not reviewed)."""

    kind: str
    entity_type: str
    flagged: bool
    reviewed: bool
    error_kind: str | None = None


@dataclass(frozen=True)
class KindErrors:
    """One error kind: confirmed among the reviewed flags (exact interval), and the design estimate of
    its rate over all questions of its kind (None — PENDING — unless every stratum was sampled)."""

    kind: str
    questions: int
    flagged: int
    reviewed_flagged: int
    confirmed: int
    precision_low: float | None
    precision_high: float | None
    rate: RateEstimate | None


def _kind_errors(kind: str, mine: Sequence[QuestionOutcome], confidence: float) -> KindErrors:
    strata, complete = [], True
    for flagged in (True, False):
        group = [o for o in mine if o.flagged == flagged]
        seen = [o for o in group if o.reviewed and o.error_kind is not None]
        if seen:
            strata.append(StratumCount(len(group), len(seen), sum(o.error_kind == kind for o in seen),
                                       name="flagged" if flagged else "unflagged"))
        elif group:
            complete = False
    flagged_seen = [o for o in mine if o.flagged and o.reviewed and o.error_kind is not None]
    confirmed = sum(o.error_kind == kind for o in flagged_seen)
    low = high = None
    if flagged_seen:
        low, high = clopper_pearson(confirmed, len(flagged_seen), confidence=confidence)
    return KindErrors(kind, len(mine), sum(o.flagged for o in mine), len(flagged_seen), confirmed, low, high,
                      estimate_rate(strata, confidence=confidence) if strata and complete else None)


def errors_by_kind(outcomes: Sequence[QuestionOutcome], *, confidence: float = 0.95) -> dict[str, KindErrors]:
    """Per error kind (:data:`ERROR_KINDS`), over the questions that can hold it."""
    return {kind: _kind_errors(kind, [o for o in outcomes if o.kind == QUESTION_OF_KIND[kind]], confidence)
            for kind in ERROR_KINDS}


def errors_by_type(outcomes: Sequence[QuestionOutcome]) -> dict[str, Mapping[str, int]]:
    """Confirmed errors per entity type and kind, with the reviewed count beside them."""
    table: dict[str, Counter[str]] = {}
    for o in outcomes:
        if not o.reviewed or o.error_kind is None:
            continue
        row = table.setdefault(o.entity_type, Counter())
        row["reviewed"] += 1
        if o.error_kind:
            row[o.error_kind] += 1
    return {t: dict(c) for t, c in sorted(table.items())}
