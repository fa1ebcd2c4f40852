"""Crowd annotations (Nahum App. B) and stratification by annotator certainty p_d (Elangovan et al.).

Only for sources with several original annotations per task. Majority and strict aggregation are
:func:`stats_cli.stats.aggregate.aggregate`, Dawid–Skene is :func:`stats_cli.stats.crowd_quality.dawid_skene`;
this module compares them with the gold labels and shows each annotator's quality.
"""

from __future__ import annotations

from sklearn.metrics import f1_score

from backend.api import median_label
from stats_cli.stats.aggregate import aggregate
from stats_cli.stats.crowd_quality import DawidSkeneResult, annotator_quality, dawid_skene
from stats_cli.stats.stratify import stratify

from .crowd_sample import sampled_accuracies, sampled_gold
from ..agreement import AGREEMENT_COLUMNS, paradox_note, rater_agreement, ratings_table
from ..inputs import AuditData
from ..model import Section, Status, Table, not_applicable, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "crowd", "Crowd annotations"
STRATIFIED_KEY, STRATIFIED_TITLE = "stratified", "Stratified by annotator certainty (p_d)"


def multi_annotated(data: AuditData) -> dict[str, dict[str, str]]:
    """Items with at least two original annotations."""
    return {i: dict(a) for i, a in data.crowd.items() if len(a) >= 2}


def crowd_labels(data: AuditData, *, method: str,
                 ds: DawidSkeneResult | None = None) -> dict[str, tuple[str | None, float | None]]:
    """Item id -> (aggregated label, p_d) by majority / strict aggregation, or the median.

    The median is the one the Label Studio backend takes as an ordinal task's original label
    (:func:`backend.common.labels.median_label`, its tie rule included), so both sides name the same label;
    p_d is the share of annotators who gave it. ``ds``: the Dawid–Skene fit already made of these answers.
    """
    if method == "dawid-skene":
        ds = ds or dawid_skene(multi_annotated(data))
        return {i: (lab, ds.posterior.get(i)) for i, lab in ds.labels.items()}
    if method == "median":
        out: dict[str, tuple[str | None, float | None]] = {}
        for item, answers in multi_annotated(data).items():
            ratings = list(answers.values())
            label = median_label(ratings, order=data.spec.labels, negative=data.spec.negative_label or None)
            out[item] = (label, None if label is None else ratings.count(label) / len(ratings))
        return out
    table = ratings_table(multi_annotated(data))
    negative = data.spec.negative_label
    return {a.item: (a.label, a.p_d) for a in aggregate(table, method=method, negative=negative)}


def aggregation_methods(data: AuditData) -> tuple[list[str], str | None]:
    """Majority and Dawid–Skene always; strict when the task names a negative class; median for ordinal scales.

    Returns the methods and, when strict is left out, the NOT APPLICABLE note saying why.
    """
    negative = data.spec.negative_label
    if data.spec.task_family.ordered:
        return ["majority", "median", "dawid-skene"], None
    if negative:
        return ["majority", "strict", "dawid-skene"], None
    return ["majority", "dawid-skene"], ("Strict aggregation: NOT APPLICABLE - it needs a negative class (any vote for it wins) "
                          "and this task's labels name none; name one (LABEL_AUDIT_NEGATIVE_LABEL) to compute it.")


def _compare(pairs: list[tuple[str, str]]) -> tuple[int, float | None, float | None]:
    if not pairs:
        return 0, None, None
    truth, pred = [t for t, _ in pairs], [p for _, p in pairs]
    acc = sum(t == p for t, p in pairs) / len(pairs)
    return len(pairs), acc, float(f1_score(truth, pred, average="weighted", zero_division=0.0))


def crowd_section(data: AuditData) -> Section:
    """Crowd agreement, and majority / strict aggregation against gold and original labels (App. B)."""
    multi = multi_annotated(data)
    if not multi:
        return not_applicable(KEY, TITLE, "the source project has one annotation per task",
                              sizes={"items": len(data.items)})
    agreement = rater_agreement("crowd annotators", multi, spec=data.spec)
    by_id = {str(it.id): it for it in data.items}
    gold = {i: data.gold(by_id[i])[0] for i in multi if i in by_id}
    methods, skipped = aggregation_methods(data)
    ds = dawid_skene(multi)  # one fit for the aggregation row and the annotators' table
    rows = []
    for method in methods:
        labels = crowd_labels(data, method=method, ds=ds)
        vs_gold = [(gold[i], lab) for i, (lab, _) in labels.items() if gold.get(i) is not None and lab is not None]
        vs_orig = [(by_id[i].original, lab) for i, (lab, _) in labels.items()
                   if i in by_id and by_id[i].original is not None and lab is not None]
        shown = {"dawid-skene": "Dawid–Skene"}.get(method, method)
        rows.append((f"crowd {shown}", *_compare(vs_gold), *_compare(vs_orig)))
    ens_gold = [(gold[i], by_id[i].prediction) for i in multi
                if gold.get(i) is not None and i in by_id and by_id[i].prediction is not None]
    ens_orig = [(by_id[i].original, by_id[i].prediction) for i in multi
                if i in by_id and by_id[i].prediction is not None and by_id[i].original is not None]
    rows.append(("LLM ensemble", *_compare(ens_gold), *_compare(ens_orig)))
    compare = Table.build("Against gold and original labels (Nahum App. B: weighted F1)",
                          ("annotation", "n gold", "accuracy vs gold", "weighted F1 vs gold",
                           "n original", "accuracy vs original", "weighted F1 vs original"), rows)
    agree = Table.build("Crowd agreement", AGREEMENT_COLUMNS, [agreement.cells()])
    quality, basis = _quality_table(data, multi, gold, ds)
    notes = [n for n in (paradox_note(agreement), skipped, basis) if n]
    notes += [f"Original annotators {a} and {b} gave identical answers on all {n} items they rated: a duplicated "
              "rater (a copied column) lifts every agreement figure; drop one unless they are truly two people."
              for a, b, n in agreement.summary.duplicated]
    if not any(r[1] for r in rows):
        notes.append("No crowd-annotated item has a gold label yet: the gold columns are pending.")
    by_rule = sum(1 for i in gold if gold[i] is not None and not data.outcome(by_id[i]).status.by_experts)
    if by_rule:
        notes.append(f"The gold columns rest on {sum(g is not None for g in gold.values())} items, {by_rule} of them "
                     "with gold taken from the original label because the ensemble agrees (Nahum's rule): "
                     "there gold is not independent of the original, which flatters whatever it was built from.")
    return Section(KEY, TITLE, Status.OK, sizes={"items with ≥2 annotations": len(multi),
                                                  "annotators": agreement.n_raters,
                                                  "with gold": sum(g is not None for g in gold.values())},
                   tables=(agree, compare, quality), notes=tuple(notes), values={"agreement": agreement.values()})


def _quality_table(data: AuditData, multi: dict[str, dict[str, str]],
                   gold: dict[str, str | None], ds: DawidSkeneResult) -> tuple[Table, str | None]:
    """Each annotator: accuracy against gold with its interval and n, confusion, D–S's estimate; and a note when
    the accuracy has no interval (:mod:`.crowd_sample`: the sample's design estimate, else a census, else none)."""
    sampled, why = sampled_accuracies(data, multi)
    rows = []
    if sampled is not None:
        on_sample = sampled_gold(data)
        for q in annotator_quality(multi, {i: on_sample.get(i) for i in multi}, ds=ds):
            s = sampled.get(q.annotator)
            rows.append((q.annotator, q.answered, q.with_gold, None if s is None else s.accuracy,
                         None if s is None else s.low, None if s is None else s.high,
                         q.confusion_text() or "none", q.ds_accuracy))
        return Table.build("Each annotator against gold (the review's sample, design-weighted; 95% interval) and "
                           "Dawid–Skene's estimate without gold", _QUALITY_COLUMNS, rows), None
    by_id = {str(it.id): it for it in data.items}
    census = all(gold.get(i) is not None and i in by_id and data.outcome(by_id[i]).status.by_experts for i in multi)
    for q in annotator_quality(multi, gold, ds=ds):
        rows.append((q.annotator, q.answered, q.with_gold, q.accuracy, q.low if census else None,
                     q.high if census else None, q.confusion_text() or "none", q.ds_accuracy))
    title = ("Each annotator against gold (every item reviewed: 95% Wilson interval) and Dawid–Skene's estimate "
             "without gold") if census else "Each annotator against gold (no interval) and Dawid–Skene's estimate without gold"
    note = None if census else (
        f"Each annotator against gold: no interval ({why}). The gold of the items the ensemble agrees with is their "
        "original label, so these accuracies flatter the annotator whose labels are the originals (on simulated "
        "projects by about 0.05, where a Wilson interval held the true accuracy 75 % of the time).")
    return Table.build(title, _QUALITY_COLUMNS, rows), note


_QUALITY_COLUMNS = ("annotator", "items answered", "n with gold", "accuracy vs gold", "low", "high",
                    "confusion (said→gold)", "Dawid–Skene accuracy")


def stratified_section(data: AuditData) -> Section:
    """The ensemble (and the gold labels) against the crowd majority, per p_d stratum with expectations.

    Elangovan et al.: where annotators split (low p_d) even an expert scores near a random labeller,
    so a score means something only beside its stratum's expected value.
    """
    key, title = STRATIFIED_KEY, STRATIFIED_TITLE
    if not multi_annotated(data):
        return not_applicable(key, title, "p_d needs several original annotations per item; the source has one")
    majority = crowd_labels(data, method="median" if data.spec.task_family.ordered else "majority")
    by_id = {str(it.id): it for it in data.items}
    positive = data.spec.positive_label if data.spec.task_family.two_class else None
    tables, values = [], {}
    predictors = {"LLM ensemble": lambda it: it.prediction, "gold labels": lambda it: data.gold(it)[0]}
    for name, pick in predictors.items():
        rows = [(lab, pick(by_id[i]), p_d) for i, (lab, p_d) in majority.items()
                if i in by_id and lab is not None and p_d is not None and pick(by_id[i]) is not None]
        if not rows:
            continue
        strata, pos = stratify([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], positive=positive,
                               label_set=list(data.spec.labels))
        tables.append(Table.build(f"{name} vs crowd majority, by p_d (expected = a majority-follower)",
                                  ("p_d", "n", "positive ratio m", "accuracy", "expected accuracy", "F1",
                                   "expected F1"),
                                  [(s.name, s.n, s.m, s.accuracy, s.expected_accuracy, s.f1, s.expected_f1)
                                   for s in strata]))
        values[name] = [s.to_json() for s in strata]
    if not tables:
        return pending(key, title, "no item has both a crowd majority and an ensemble verdict yet")
    notes = ["Expected scores follow Elangovan et al.: accuracy = p_d, F1 from p_d and the positive ratio m; "
             "the p_d = 1 stratum uses p_d = 0.97."]
    if positive is None:
        notes.append("With more than two labels F1 is macro-averaged; its expectation assumes a labeller who leaves "
                     "the majority label picks one of the other labels evenly (stats_cli.stats.expected_kclass).")
    notes = tuple(notes)
    return Section(key, title, Status.OK, sizes={"items with ≥2 annotations": len(majority)},
                   tables=tuple(tables), notes=notes, values=values)


class CrowdSection(ReportSection):
    key, title, order = KEY, TITLE, 60
    needs = ("one_label",)

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return crowd_section(data)


class StratifiedSection(ReportSection):
    key, title, order = STRATIFIED_KEY, STRATIFIED_TITLE, 70
    needs = ("one_label", "one_text")

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return stratified_section(data)
