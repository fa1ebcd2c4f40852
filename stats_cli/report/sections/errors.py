"""Label errors: the project's error rate from a random sampling design, and the hard floor beside it.

Two kinds of figure, kept apart because they rest on different things:

* **From the sampling design** (``review push --sample N``; Nahum §4.2 / App. G.1 re-annotate a random
  sample for Table 2): the project-wide error rate with its interval and the estimated number of
  errors; the flags' precision; their recall (share of the project's errors the ensemble flagged) and
  the errors left among unflagged items (:mod:`stats_cli.stats.design_estimate`). Without a drawn sample
  these are PENDING: flagged items and items the ensemble agreed with are not a random sample of
  anything, so no interval is computed from them.
* **Counts, no statistics**: the floor "confirmed errors / N" (every error an expert confirmed, over
  every audited item: the project has at least that many), and what the reviewed items showed.
"""

from __future__ import annotations

from backend.api import GoldStatus
from stats_cli.stats.design_estimate import DesignResult, Interval, estimate_from_draw

from ..fmt import are, percent, plural
from ..inputs import AuditData
from ..judge_rows import judge_rows
from ..model import Cell, Section, Status, Table, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "errors", "Label errors"
COLUMNS = ("figure", "estimate", "95% low", "95% high", "n", "rests on")
PENDING_CELL = "PENDING"


def _status_counts(data: AuditData) -> dict[GoldStatus, int]:
    counts: dict[GoldStatus, int] = {}
    for it in data.items:
        status = data.gold(it)[1]
        counts[status] = counts.get(status, 0) + 1
    return counts


def _design_rows(result: DesignResult | None, why: str) -> list[tuple[Cell, ...]]:
    names = ("error rate over the N items (%)", "errors among the N items (count)", "precision among flagged (%)",
             "recall: share of errors flagged (%)", "errors left among unflagged (count)")
    if result is None:
        return [(name, PENDING_CELL, None, None, None, why) for name in names]
    basis = f"{result.design} sample: {result.settled} settled of {result.sampled} drawn, N = {result.population}"

    def row(name: str, x: Interval | None, scale: float, missing: str) -> tuple[Cell, ...]:
        if x is None:
            return (name, PENDING_CELL, None, None, None, missing)
        value = None if x.value is None else scale * x.value
        return (name, PENDING_CELL if value is None else value, scale * x.low, scale * x.high, x.n, basis)

    no_split = "needs flagged and unflagged items in the sample"
    return [row(names[0], result.rate, 100.0, "no sampled item settled yet"),
            row(names[1], result.errors_estimate, 1.0, "no sampled item settled yet"),
            row(names[2], result.precision, 100.0, no_split), row(names[3], result.recall, 100.0, no_split),
            row(names[4], result.errors_left, 1.0, no_split)]


def _notes(data: AuditData, counts: dict[GoldStatus, int], result: DesignResult | None) -> list[str]:
    notes = []
    if result is None:
        notes.append("Project-wide estimate: PENDING — no random sample was drawn. Run `label-audit review push "
                     "--sample N` (random or stratified design) and let the experts review it; flagged items "
                     "alone say nothing about the errors the ensemble missed.")
    else:
        notes.append(f"Interval: {result.method}, {100 * result.confidence:.0f}%. Recall combines the flagged "
                     "and unflagged parts' intervals (each at 1 − α/2 when both parts are sampled, so they "
                     "hold together; a part reviewed in full has no sampling error).")
        if result.unsettled:
            notes.append(f"{plural(result.unsettled, 'sampled item')} {are(result.unsettled)} not settled yet: each interval counts them as "
                         "correct at its lower end and as errors at its upper end.")
    within = _within_delta(data)
    if within:
        notes.append(f"{plural(within, 'item')}: the experts gave different grades no more than the flag's delta apart, "
                     "which the family counts as agreement: the gold is their lower grade. Were one of them a grade "
                     "off, that gold is too, and an error against it may not be one (on simulated projects with an "
                     "expert one grade off on 10 % of the items, the recall's interval held the truth 90 % of the "
                     "time: docs/statistics.md).")
    if counts.get(GoldStatus.PENDING):
        notes.append(f"{plural(counts[GoldStatus.PENDING], 'item')} {are(counts[GoldStatus.PENDING])} still in review "
                     "(open reviews).")
    if counts.get(GoldStatus.SPLIT_UNRESOLVED):
        notes.append(f"{plural(counts[GoldStatus.SPLIT_UNRESOLVED], 'item')} {are(counts[GoldStatus.SPLIT_UNRESOLVED])} "
                     "unresolved: the experts reviewed them and "
                     "still disagree after reconciliation, so they have no gold label.")
    if counts.get(GoldStatus.EXPERTS_AMBIGUOUS):
        n = counts[GoldStatus.EXPERTS_AMBIGUOUS]
        notes.append(f"{plural(n, 'item')}: the experts agree more than one answer may be right (review push "
                     "--ambiguous-choice), so they have no gold label: neither a confirmed error nor correct "
                     "(a sampled one stays unsettled in the estimates).")
    if counts.get(GoldStatus.NOT_REVIEWED):
        notes.append(f"{plural(counts[GoldStatus.NOT_REVIEWED], 'item')} "
                     f"{'needs' if counts[GoldStatus.NOT_REVIEWED] == 1 else 'need'} the experts (the ensemble disagrees with the "
                     "original) but were never sent to review.")
    if counts.get(GoldStatus.NOT_SCORED):
        notes.append(f"{counts[GoldStatus.NOT_SCORED]} audited items have no ensemble verdict or no original "
                     "label; they count in N but cannot be settled.")
    return notes


def _within_delta(data: AuditData) -> int:
    """Settled items of an ordinal scale whose experts gave different grades in round 1, within delta."""
    if not data.spec.task_family.ordered:
        return 0
    by_id = {str(it.id): it for it in data.items}
    family = data.spec.task_family
    return sum(1 for key, review in data.reviews.items() if key in by_id
               for grades in [[v for v in review.round1.values() if v is not None]]
               if len(set(grades)) > 1 and not family.disputed(data.spec, grades)
               and data.outcome(by_id[key]).status.by_experts)


def _design(data: AuditData, confidence: float) -> tuple[DesignResult | None, str]:
    """The design's estimates (None with why when there are none): over the control's domain on a control's view."""
    no_draw = "no random sample drawn (review push --sample N)"
    if data.sample is None:
        return None, no_draw
    errors = _sample_errors(data)
    flagged_now = frozenset(str(it.id) for it in data.items if it.flagged)
    frame = data.sample_frame
    if frame is not None and frame.strata is None:
        return None, frame.why
    return estimate_from_draw(data.sample, errors, flagged_now=flagged_now, confidence=confidence,
                              frame=None if frame is None else frame.strata), no_draw


def _population(data: AuditData, result: DesignResult | None) -> tuple[int, frozenset[str] | None]:
    """The table's one N and the items it counts (None: every audited item).

    With a design, N is the design's population (on a control's view: the items that show the control), and
    the floor counts the confirmed errors among those items, so the two kinds of row divide by the same N.
    """
    if result is None:
        return len(data.items), None
    frame = data.sample_frame
    if frame is not None and frame.strata is not None:
        return result.population, frozenset(frame.strata)
    return result.population, frozenset(str(it.id) for it in data.scored)


def errors_section(data: AuditData, *, confidence: float = 0.95) -> Section:
    """The design's estimates (or PENDING) beside the floor of confirmed errors, both over one N."""
    reviewed = data.reviewed()
    counts = _status_counts(data)
    result, why = _design(data, confidence)
    population, members = _population(data, result)
    within = [(it, gold) for it, gold in reviewed if members is None or str(it.id) in members]
    confirmed = sum(1 for it, gold in within if data.is_error(it, gold))
    sizes = {"items audited": len(data.items), "N (the table's population)": population,
             "settled by experts": len(reviewed),
             "open reviews": counts.get(GoldStatus.PENDING, 0),
             "unresolved": counts.get(GoldStatus.SPLIT_UNRESOLVED, 0),
             "random sample drawn": 0 if result is None else result.sampled,
             "random sample settled": 0 if result is None else result.settled}
    if counts.get(GoldStatus.EXPERTS_AMBIGUOUS):  # only a review with --ambiguous-choice has them
        sizes["more than one answer may be right"] = counts[GoldStatus.EXPERTS_AMBIGUOUS]
    if not reviewed and result is None:
        return pending(KEY, TITLE, "no expert decision is settled yet, so no label error is confirmed; no random "
                       "sample drawn (review push --sample N)", sizes=sizes)
    rows = _design_rows(result, why)
    judged, judge_notes, judge_values = judge_rows(data, confidence=confidence,
                                                   design=None if result is None else result.rate)
    rows[2:2] = judged  # beside the design-only rate and count
    rows.append(("floor: confirmed errors / N (%)", percent(confirmed / population) if population else None, None,
                 None, population, f"{plural(confirmed, 'error')} confirmed by the experts among the N items; "
                                   "no statistics"))
    all_confirmed = sum(1 for it, gold in reviewed if data.is_error(it, gold))
    rows.append(("confirmed among items the experts settled (%)",
                 percent(all_confirmed / len(reviewed)) if reviewed else None, None, None, len(reviewed),
                 "describes the reviewed items only (not a random sample)"))
    frame = data.sample_frame
    what = frame.what if frame is not None and frame.what and result is not None else \
        "the sampling design's population" if result is not None else "every audited item"
    table = Table.build(f"Label errors over N = {population} items ({what}); {100 * confidence:.0f}% intervals "
                        "from the sampling design", COLUMNS, rows)
    values = {"floor": {"confirmed_errors": confirmed, "population": population,
                        "rate": confirmed / population if population else None},
              "reviewed": {"sample": len(reviewed), "n_errors": all_confirmed},
              "estimate": None if result is None else result.to_json(), "with_judges": judge_values}
    notes = _notes(data, counts, result)
    if frame is not None and result is not None:
        notes.append("Flagged here means flagged on this control by its own flag rule. The review's strata were cut "
                     "on the flag of any control; each stratum is split by this control's flag (post-"
                     "stratification), so precision and recall are this control's, with intervals from its own "
                     "drawn items (exact only where every one of its items in a stratum was reviewed).")
    outside = len(data.items) - population
    if result is not None and outside > 0:
        notes.append(f"{plural(outside, 'audited item')} {are(outside)} outside N (no ensemble verdict or no "
                     "original label when the sample was drawn): no figure of this table is about them.")
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=(table,), notes=tuple(notes + judge_notes),
                   values=values)


def _sample_errors(data: AuditData) -> dict[str, bool | None]:
    """Each sampled item: True/False once the experts settled it, None while it is open or split.

    An error is what the family calls a disagreement (:meth:`AuditData.is_error`): a one-step regrade of a
    rating is no error when the flag looks only beyond one step.
    """
    by_id = {str(it.id): it for it in data.items}
    out: dict[str, bool | None] = {}
    for drawn in data.sample.items if data.sample else ():
        item = by_id.get(drawn.task_id)
        gold, status = data.gold(item) if item is not None else (None, None)
        out[drawn.task_id] = None if gold is None or not status.settled else data.is_error(item, gold)
    return out


class ErrorsSection(ReportSection):
    key, title, order = KEY, TITLE, 30

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return errors_section(data)
