"""Triage of the suspects and one model of the truth: every source's accuracy, each suspect's class, the gaps.

A flag mixes wrong labels with items trained people disagree on. This section fits the truth model
(:class:`backend.review.truth_model.TruthModel`: Dawid–Skene over every annotator, judge and the
confident-learning member, the experts' settled verdicts as anchors) and shows: each source's top-1
accuracy with an item-bootstrap interval (:mod:`backend.review.source_accuracy`), the triage class of every flagged item with the figures it rests on
(:mod:`backend.review.triage`), and the label pairs the sources keep confusing (guideline gaps).
Every single-label question is triaged: a single-choice task asked in several option orders is one question
asked again (its members averaged over the orders; the per-order verdicts, kept for the judges' position
bias, are not read), a preference is a single-label question of two or three classes, and a several-control
project gets this section once per control, each on its own classes. NOT APPLICABLE where an item holds more than one
label (multi-label sets, spans): the truth model takes one label out of the task's classes per item.
"""

from __future__ import annotations

from backend.api import GoldStatus, SourceQuality, label_error, not_triaged, triage_items

from ..inputs import AuditData
from ..model import Section, Status, Table, not_applicable, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "triage", "Triage: likely errors, ambiguous items, guideline gaps"


def _cell(x: float | None) -> float | str:
    return "n/a" if x is None else x


#: What the sources' table shows and how far its intervals hold (bench/bench_source_accuracy.py, docs/triage.md).
SOURCES_NOTE = (
    "Sources' table: top-1 accuracy, how often the label a source puts first is the true one (a judge's top "
    "label, its prompts averaged into one source per model), read against a Dawid-Skene fit on every source's "
    "top label (an anchored item's truth is its gold); P(label wrong) stays the fit on the judges' whole "
    "distributions. The 95% interval is an item bootstrap: items resampled and that fit redone each time. On "
    "simulated projects with a planted truth (400 items, 60 replicates) it held the true accuracy 95.0% of the "
    "time for annotators and 94.4% for judges (Wilson's interval on the soft fit, which takes the posterior as "
    "known: 92.5% and 86.7% with confident judges, 29% with unsure ones).")


def _sources_table(sources: tuple[SourceQuality, ...]) -> Table:
    refits = next((q.interval for q in sources if q.interval != "wilson"), "Wilson")
    return Table.build(
        f"Every source's top-1 accuracy (Dawid-Skene on every source's top label; 95% interval: {refits} over "
        "resampled items)",
        ("source", "gives", "labels given", "top-1 accuracy", "low", "high"),
        [(q.source, "distributions (top label read)" if q.soft else "labels", q.n, q.accuracy, q.low, q.high)
         for q in sources])


def triage_section(data: AuditData) -> Section:
    why = not_triaged(data.spec)
    if why:
        return not_applicable(KEY, TITLE, why)
    if not any(it.flagged for it in data.items):
        return pending(KEY, TITLE, "no flagged item to triage yet", sizes={"items": len(data.items)})
    anchors = {str(it.id): gold for it, gold in data.reviewed()}
    result = triage_items(data.items, labels=list(data.spec.labels), crowd=data.crowd, anchors=anchors,
                          is_error=lambda gold, original: label_error(gold, original, data.spec))
    sources = _sources_table(result.sources)
    suspects = Table.build(
        "Every flagged item's triage and the figures it rests on",
        ("item", "class", "original", "truth model", "P(label wrong)", "p_d", "annotators' agreement",
         "judges' entropy", "judges' spread", "CL P(original)", "why"),
        [(t.item, t.klass, t.original, t.truth_label, _cell(t.p_wrong), _cell(t.p_d), _cell(t.annotator_agreement),
          _cell(t.judge_entropy), _cell(t.judge_spread), _cell(t.cl_p_original), "; ".join(t.reasons))
         for t in result.items])
    gaps = Table.build(
        "Guideline gaps: label pairs the sources keep confusing",
        ("labels", "pooled confusion rate", "flagged items on the pair", "examples"),
        [(" / ".join(g.pair), g.rate, g.n_items, ", ".join(g.examples)) for g in result.gaps])
    th = result.thresholds
    notes = [
        f"Thresholds from {th.source}: likely error when P(label wrong) >= {th.error_cut:.2f}, annotators not split "
        f"(their most given label's share >= {th.pd_cut}; p_d is the share that gave the original) and judges not "
        f"all unsure (mean normalised entropy < {th.entropy_cut}, or not above their median "
        f"{'n/a' if th.entropy_usual is None else f'{th.entropy_usual:.2f}'} over the project's items, or the "
        f"annotators unanimous); "
        f"a pair is a gap with >= {th.gap_min_items} flagged items on it and a pooled confusion rate >= "
        f"{th.gap_min_rate}. The defaults live in backend/common/defaults.py (TRIAGE_*); the error cut is learnt from "
        "the experts' verdicts once enough are settled (cross-fitted, never from the items under test).",
        f"Anchors: {len(anchors)} items with a gold label settled by the experts. " + SOURCES_NOTE,
        "Not to be trusted where: items have one annotation (no p_d); a judge is at chance (its entropy and "
        "spread say nothing, and Dawid-Skene with fewer than three informative sources is not identified and can "
        "swap labels: an estimated accuracy below 1/k is the sign); the annotators are pooled (anonymous, or "
        "fewer than 10 items each) and no judge reads the task (the posterior is then their majority); no verdicts "
        "are settled yet (default cuts). On the benchmarks (docs/triage.md) the likely errors were right 0.47-0.67 "
        "of the time where the annotators were named or a judge read the task, at a recall of 0.2-0.33 before "
        "verdicts, and the ambiguous class was no better than chance: "
        "read 'ambiguous' as 'not shown to be an error', and let the experts say it (review push --ambiguous-choice).",
    ]
    orders = max((len(it.questions) for it in data.items), default=0)
    if orders > 1:
        notes.insert(0, f"Judges: each member's distribution is its average over the {orders} option orders the "
                        f"question was asked in (one question asked {orders} times, so a lean towards a position "
                        "cancels); the truth model, the judges' entropy and their spread read that average (each "
                        "order's own answers stay in the ledger row, where a judge's position bias is read).")
    if data.spec.task_family.ordered:
        notes.insert(0, "Grades: the truth model takes them as unordered classes; P(label wrong) is its posterior "
                        "mass on the grades farther from the original than the flag rule's delta (what the flag "
                        "and the error counts call a disagreement).")
    if not result.gaps:  # said where the table would be, rather than an empty table
        notes.insert(0, f"Guideline gaps: none; no label pair has >= {th.gap_min_items} flagged items on it with a "
                        f"pooled confusion rate >= {th.gap_min_rate}.")
    counts = {k: len(result.by_class(k)) for k in ("likely error", "ambiguous", "guideline gap")}
    said_ambiguous = {str(it.id) for it in data.items if data.gold(it)[1] is GoldStatus.EXPERTS_AMBIGUOUS}
    if said_ambiguous:  # the experts' own word (review push --ambiguous-choice), never an anchor of the model
        klass = {t.item: t.klass for t in result.items if t.item in said_ambiguous}
        held = sum(k != "likely error" for k in klass.values())
        counts["experts: more than one answer"] = len(said_ambiguous)
        notes.append(f"The experts agreed more than one answer may be right on {len(said_ambiguous)} item(s); "
                     f"the triage, which does not see that verdict, had called {held} of the {len(klass)} flagged "
                     f"ones ambiguous or a guideline gap and {len(klass) - held} a likely error: the project's own "
                     "check of its ambiguous class.")
    return Section(KEY, TITLE, Status.OK, sizes={"flagged items": len(result.items), **counts,
                                                  "sources": len(result.sources), "anchors": len(anchors)},
                   tables=(sources, suspects, gaps) if result.gaps else (sources, suspects), notes=tuple(notes),
                   values=result.to_json())


class TriageSection(ReportSection):
    key, title, order = KEY, TITLE, 54

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return triage_section(data)
