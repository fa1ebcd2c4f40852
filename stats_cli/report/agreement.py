"""Agreement of a group of raters (experts, ensemble members, crowd) as one report row.

The coefficients are computed in :mod:`stats_cli.stats.agreement`; this module only builds their ratings
table from ``item -> rater -> label`` maps and writes the plain-words note that keeps a reader from
trusting a lone raw-agreement number (the kappa paradox, "Why is annotation hard?").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from backend.api import TaskSpec
from stats_cli.stats.agreement_summary import AgreementSummary, agreement_summary
from stats_cli.stats.labels import normalize_label
from stats_cli.stats.ratings import RatingsTable, ratings_from_long
from stats_cli.sources.rows import Row

if TYPE_CHECKING:  # pragma: no cover
    from stats_cli.sources.audit_data import AuditData

#: κ at or below this, beside raw agreement at or above ``HIGH_RAW``, earns the paradox note.
LOW_KAPPA = 0.4
HIGH_RAW = 0.8
#: rare-class agreement at or above this means the rare class is agreed on: a true paradox.
GOOD_RARE = 0.7

AGREEMENT_COLUMNS = ("raters", "items", "annotators", "Fleiss κ", "% agreement", "Cohen κ",
                     "positive agreement", "Gwet AC1", "Krippendorff α")


@dataclass(frozen=True)
class AgreementRow:
    """One rater group's :class:`~stats_cli.stats.agreement_summary.AgreementSummary`, named for the report."""

    name: str
    summary: AgreementSummary

    @property
    def n_items(self) -> int:
        return self.summary.n_pairable_items

    @property
    def n_raters(self) -> int:
        return self.summary.n_annotators

    def value(self, coefficient: str) -> float | None:
        return self.summary.value(coefficient)

    def cells(self) -> tuple:
        pct = self.value("pct_agreement")
        return (self.name, self.n_items, self.n_raters, self.value("fleiss_kappa"),
                None if pct is None else 100.0 * pct, self.value("cohen_kappa"),
                self.value("positive_agreement"), self.value("gwet_ac1"), self.value("krippendorff_alpha"))

    def values(self) -> dict:
        return self.summary.to_json()


def answered(answers: Mapping[str, str | None]) -> dict[str, str]:
    """The answers that were given (an expert who left the item blank is no rater of it)."""
    return {rater: label for rater, label in answers.items() if label is not None}


@dataclass(frozen=True)
class ExpertRounds:
    """The experts' answers before and after reconciliation, as every agreement table reads them.

    ``before``: round-1 answers of the items two or more experts answered. ``after``: each expert's last
    word on those items, or None while some item they split on is not reconciled yet (a partial round 2
    would mix settled and open items and overstate agreement). ``split``/``reconciled``: item ids.
    """

    before: dict[str, dict[str, str]]
    after: dict[str, dict[str, str]] | None
    split: tuple[str, ...]
    reconciled: tuple[str, ...]


def expert_rounds(data: "AuditData") -> ExpertRounds:
    """Round-1 answers give "before"; each expert's last word gives "after" once reconciliation is done."""
    before = {i: answered(r.round1) for i, r in data.reviews.items() if len(answered(r.round1)) >= 2}
    split = tuple(i for i, ans in before.items() if len(set(ans.values())) > 1)
    reconciled = tuple(i for i in split if data.reviews[i].round2)
    after = None if len(reconciled) < len(split) else {i: answered(data.reviews[i].final_answers) for i in before}
    return ExpertRounds(before, after, split, reconciled)


def expert_groups(data: "AuditData") -> tuple[dict[str, dict[str, dict[str, str]]], list[str]]:
    """The experts' answers as rater groups of an agreement table, and a note while "after" is pending.

    ``experts, before reconciliation`` when two experts answered some item; ``experts, after
    reconciliation`` once every item they split on is reconciled (else the note says how many are).
    """
    rounds = expert_rounds(data)
    groups: dict[str, dict[str, dict[str, str]]] = {}
    notes = []
    if rounds.before:
        groups["experts, before reconciliation"] = rounds.before
        if rounds.after is not None:
            groups["experts, after reconciliation"] = rounds.after
        else:
            notes.append(f"experts after reconciliation: pending — {len(rounds.reconciled)} of {len(rounds.split)} "
                         "items the experts split on are reconciled so far.")
    return groups, notes


def ratings_table(answers: Mapping[str, Mapping[str, str]]) -> RatingsTable:
    """Items × raters table of the items that at least two raters labelled."""
    rows = [Row(0, {"item": item, "annotator": rater, "label": label})
            for item, by_rater in answers.items() if len(by_rater) >= 2
            for rater, label in by_rater.items()]
    return ratings_from_long(rows)


def rater_agreement(name: str, answers: Mapping[str, Mapping[str, str]], *, spec: TaskSpec) -> AgreementRow:
    """The agreement summary (κ, % agreement, Cohen κ, positive agreement, AC1, α) of one rater group."""
    level = spec.task_family.agreement_level
    table = ratings_table(answers)
    # The task's label set, declared so AC1 uses its q and binary data stays binary when the raters
    # happened to use one label; only when every answer is one of those labels.
    declared = [lab for lab in (normalize_label(x) for x in spec.labels) if lab is not None]
    labels = declared if set(table.categories) <= set(declared) else None
    categories = set(declared) if labels else set(table.categories)
    positive = spec.positive_label if spec.task_family.two_class and spec.positive_label in categories else None
    return AgreementRow(name, agreement_summary(table, level=level, positive=positive, labels=labels))


def paradox_note(row: AgreementRow) -> str | None:
    """Plain words when κ is low but raw agreement is high: real disagreement, or the kappa paradox?"""
    kappa, raw = row.value("fleiss_kappa"), row.value("pct_agreement")
    if kappa is None or raw is None or kappa > LOW_KAPPA or raw < HIGH_RAW:
        return None
    head = (f"{row.name}: raw agreement is {100 * raw:.0f}% but Fleiss κ is only {kappa:.2f}. "
            "One label dominates, so raters would match this often by chance alone.")
    # Judge by the rare class (fewest ratings), whichever label the task calls positive: agreement on
    # the dominant class is high by construction and says nothing ("Why is annotation hard?", Step 2).
    rare, agreed = row.summary.rare_label, row.summary.rare_agreement
    if rare is None or agreed is None:
        return head + " Read κ (and Gwet AC1) rather than the raw percentage."
    if agreed >= GOOD_RARE:
        return (head + f" Agreement on the rare class {rare!r} is {agreed:.2f}, which is good: this is the kappa "
                "paradox, prevalence alone pulls κ down; Gwet AC1 is the fairer summary here.")
    return (head + f" Agreement on the rare class {rare!r} is only {agreed:.2f}: the raters genuinely disagree "
            "about it, and the low κ is right.")
