"""Preference pairs: agreement with and without ties, each judge's position bias, pairs the ensemble reverses.

For a pairwise control (left / right, and tie when the project allows it: a family whose capabilities hold
``preference``). Agreement is given twice
because the two say different things (MT-Bench: 63 % with ties, 81 % without): with ties a tie must meet a
tie; without ties only the rater pairs where neither said tie count; both per item, then averaged over items.
A judge's position bias is how often its top answer changed when the two responses swapped places (each
question is asked in both orders and the orders averaged, which cancels the bias in the verdict; the rate says
how much there was to cancel), and beside it how often it preferred the response shown first (which side).
The reversal share is how often the ensemble prefers the other response than the original annotation.
Figures from :mod:`stats_cli.stats.pairwise_stats`, intervals Clopper-Pearson.
"""

from __future__ import annotations

from typing import Any, Mapping

from backend.api import argmax, position_flips
from stats_cli.stats.pairwise_stats import (TIE, PairAgreement, Share, first_position, pair_agreement,
                                            position_bias, reversals)

from ..agreement import expert_groups
from ..fmt import percent
from ..inputs import AuditData
from ..model import Section, Status, Table, not_applicable, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "pairwise", "Preference pairs: ties, position bias, reversals"
AGREEMENT_COLUMNS = ("raters", "items", "% agree, ties counted", "low (%)", "high (%)", "rater pairs",
                     "% agree, ties left out", "low (%)", "high (%)", "pairs without a tie")
TIES_NOTE = ("Agreement is computed per item (the share of its rater pairs that agree) and averaged over items, "
             "as MT-Bench defines it per question. With ties: a tie agrees only with a tie. Without ties: only "
             "the rater pairs where neither answered tie (how often raters who both took a side took the same "
             "one); the pairs left out are the 'tie pairs' of the JSON values. A tie is the rater's own answer; "
             "the ensemble's answer is its verdict averaged over both orders, where MT-Bench counts a judge "
             "that changes its answer with the order as a tie: compare with MT-Bench's 63 % / 81 % with that in "
             "mind (the position-bias table says how often judges changed). Intervals 95 %: Clopper-Pearson "
             "where every item has two raters, else a percentile bootstrap over items.")


PREFERENCE_LACKING = "not a preference control (its family's answers are not left / right)"


def _agreement_row(name: str, result: PairAgreement) -> tuple:
    low, high = result.with_ties.interval
    low_nt, high_nt = result.without_ties.interval
    return (name, result.items, percent(result.with_ties.value), percent(low), percent(high), result.with_ties.n,
            percent(result.without_ties.value), percent(low_nt), percent(high_nt), result.without_ties.n)


def _groups(data: AuditData) -> tuple[dict[str, Mapping[str, Mapping[str, str | None]]], list[str]]:
    experts, notes = expert_groups(data)
    groups: dict[str, Mapping[str, Mapping[str, str | None]]] = dict(experts)
    crowd = {i: a for i, a in data.crowd.items() if len(a) >= 2}
    if crowd:
        groups["original annotators"] = crowd
    scored = {str(it.id): {"original": it.original, "ensemble": it.prediction} for it in data.scored}
    if scored:
        groups["LLM ensemble vs original label"] = scored
    return groups, notes


def _order_tops(data: AuditData, labels: tuple[str, ...]) -> list[dict[str, dict[str, str | None]]]:
    """Per item: order key -> member -> its top label in that order (answers mapped back to left / right)."""
    return [{str(q.id): {m.member_id: argmax(m.probs, labels) if m.probs is not None else None for m in q.members}
             for q in it.questions} for it in data.scored if it.questions]


def _bias_table(data: AuditData, labels: tuple[str, ...]) -> tuple[Table | None, dict[str, Any], dict[str, Any]]:
    flips = [position_flips(it, labels) for it in data.scored if it.questions]
    bias = position_bias(f for f in flips if f)
    if not bias:
        return None, {}, {}
    first = first_position(_order_tops(data, labels))
    rows = []
    for member, share in bias.items():
        lean = first.get(member, Share(0, 0))  # None cells (no answer took a side) render as a dash
        rows.append((member, share.n, share.k, percent(share.value), *(percent(x) for x in share.interval),
                     lean.n, percent(lean.value), *(percent(x) for x in lean.interval)))
    table = Table.build("Position bias per judge: top answer changed when the responses swapped places, and "
                        "which side it leans to (the response shown first preferred; 50 % is no lean)",
                        ("judge", "items asked in both orders", "changed", "% changed", "low (%)", "high (%)",
                         "answers taking a side", "% first shown preferred", "low (%)", "high (%)"), rows)
    return table, {member: share.to_json() for member, share in bias.items()}, \
        {member: share.to_json() for member, share in first.items()}


def pairwise_section(data: AuditData) -> Section:
    labels = tuple(data.spec.labels)
    if "preference" not in data.spec.task_family.capabilities:  # the family says so, not its labels
        return not_applicable(KEY, TITLE, PREFERENCE_LACKING)
    groups, notes = _groups(data)
    if not groups:
        return pending(KEY, TITLE, "no pair has two answers to compare yet (no verdict, no expert answers)")
    tables, values = [], {}
    agreement = {name: pair_agreement(answers) for name, answers in groups.items()}
    tables.append(Table.build("Agreement with and without ties", AGREEMENT_COLUMNS,
                              [_agreement_row(name, result) for name, result in agreement.items()]))
    values["agreement"] = {name: result.to_json() for name, result in agreement.items()}
    turned = reversals([(it.original, it.prediction) for it in data.scored])
    low, high = turned.reversed.interval
    tables.append(Table.build(
        "The ensemble against the original preference",
        ("items", "original took a side", "reversed (left↔right)", "% reversed", "low (%)", "high (%)",
         "side → tie", "tie → side"),
        [(turned.items, turned.reversed.n, turned.reversed.k, percent(turned.reversed.value), percent(low),
          percent(high), turned.to_tie, turned.from_tie)]))
    values["reversals"] = turned.to_json()
    bias_table, bias, first = _bias_table(data, labels)
    if bias_table is not None:
        tables.append(bias_table)
        values["position_bias"], values["first_position"] = bias, first
    else:
        notes.append("position bias: no verdict holds answers in both orders (each pair was asked in one order).")
    notes.append(TIES_NOTE)
    if TIE not in labels:
        notes.append("this control offers no tie: both agreement figures are the same.")
    sizes = {"scored pairs": len(data.scored), "items with ≥2 expert answers": len(groups.get(
        "experts, before reconciliation", {}))}
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=tuple(tables), notes=tuple(notes), values=values)


class PairwiseSection(ReportSection):
    key, title, order = KEY, TITLE, 34
    needs = ("preference",)
    lacking = PREFERENCE_LACKING

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return pairwise_section(data)
