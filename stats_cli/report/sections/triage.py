"""Triage of the suspects and one model of the truth: every source's accuracy, each suspect's class, the gaps.

A flag mixes wrong labels with items trained people disagree on. This section fits the truth model
(:class:`backend.review.truth_model.TruthModel`: Dawid–Skene over every annotator, judge and the
confident-learning member, the experts' settled verdicts as anchors) and shows: each source's top-1
accuracy with an item-bootstrap interval (:mod:`backend.review.source_accuracy`), the triage class of every flagged item with the figures it rests on
(:mod:`backend.review.triage`), and the label pairs the sources keep confusing (guideline gaps).
NOT APPLICABLE for tasks asked as several questions per item (multi-label, spans, several controls
read per question).
"""

from __future__ import annotations

from backend.api import GoldStatus, SourceQuality, triage_items

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
    if any(it.questions for it in data.items):
        return not_applicable(KEY, TITLE, "the task is asked as several questions per item; the truth model "
                                          "takes one single-choice label per item")
    if not any(it.flagged for it in data.items):
        return pending(KEY, TITLE, "no flagged item to triage yet", sizes={"items": len(data.items)})
    anchors = {str(it.id): gold for it, gold in data.reviewed()}
    result = triage_items(data.items, labels=list(data.spec.labels), crowd=data.crowd, anchors=anchors)
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
    if not result.gaps:
        notes.append("No label pair reaches the guideline-gap cuts.")
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
                   tables=(sources, suspects, gaps), notes=tuple(notes), values=result.to_json())


class TriageSection(ReportSection):
    key, title, order = KEY, TITLE, 54

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return triage_section(data)
