"""Rankings (a ``<Ranker>`` over a ``<List>``): agreement between rankers, the ensemble's ranking against the original.

A ranking is judged by how many of its pairs two rankers order alike, not by exact match (swapping the last
two of ten responses is not the same as reversing them all). Per group of rankers — the experts before and
after reconciliation, the original annotators when a task has several — the mean Kendall's W and the mean
pairwise τ over the items at least two of them ranked; then the distribution of τ between the ensemble's
ranking and the original, how many pairs the ensemble confidently reversed per item (what the flag counts),
and, once experts settled gold, τ of the original and of the ensemble against it. Figures from
:mod:`stats_cli.stats.ranking_stats`; the ids compared are those each ranking placed
(the family's ``placed``, :func:`backend.families.ranking.ranked_ids`: buckets in config order, the first
the best).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping

from stats_cli.stats.ranking_stats import agreement, tau, tau_summary

from ..agreement import expert_groups
from ..fmt import percent
from ..inputs import AuditData
from ..model import Section, Status, Table, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "rankings", "Rankings: agreement between rankers, the ensemble against the original"
TAU_COLUMNS = ("compared", "items", "mean τ", "τ lower quartile", "τ median", "τ upper quartile",
               "% with a pair reversed (τ < 1)", "% mostly reversed (τ < 0)")
NOTE = ("Kendall's W (0 = no concordance, 1 = identical rankings) is computed per item over all its rankers, "
        "the mean pairwise τ (-1 = reversed, 1 = identical) per item over each pair of rankers; both are averaged "
        "over items. Rankings are compared on the responses both placed (in a ranker with buckets, the buckets "
        "in config order, the first the best; responses left in the list are not ranked).")


def _tau_row(name: str, taus: list[float | None]) -> tuple[tuple, dict[str, Any]]:
    s = tau_summary(taus)
    q = s.quartiles or (None, None, None)
    return (name, s.n, s.mean, *q, percent(s.below_one), percent(s.negative)), s.to_json()


def _groups(data: AuditData, ranked_ids: Callable[[str | None], list[str]]
            ) -> tuple[dict[str, Mapping[str, Mapping[str, list[str]]]], list[str]]:
    experts, notes = expert_groups(data)
    groups = {name: {i: {r: ranked_ids(v) for r, v in by.items()} for i, by in answers.items()}
              for name, answers in experts.items()}
    crowd = {i: {r: ranked_ids(v) for r, v in a.items()} for i, a in data.crowd.items() if len(a) >= 2}
    if crowd:
        groups["original annotators"] = crowd
    return groups, notes


def rankings_section(data: AuditData) -> Section:
    family, spec = data.spec.task_family, data.spec

    def ranked_ids(value: str | None) -> list[str]:  # the ids a ranking placed, best first (its family says)
        return family.placed(spec, value)

    groups, notes = _groups(data, ranked_ids)
    scored = [it for it in data.scored if it.original is not None]
    if not groups and not scored:
        return pending(KEY, TITLE, "no ranking has a verdict or two answers to compare yet")
    tables, values = [], {}
    if groups:
        result = {name: agreement(answers) for name, answers in groups.items()}
        tables.append(Table.build("Agreement between rankers", ("rankers", "items", "mean Kendall's W",
                                                                  "mean pairwise τ"),
                                  [(name, r.items, r.mean_w, r.mean_tau) for name, r in result.items()]))
        values["agreement"] = {name: r.to_json() for name, r in result.items()}
    rows, taus = [], {}
    pairs = {"ensemble vs original": [(ranked_ids(it.prediction), ranked_ids(it.original))
                                      for it in scored]}
    reviewed = [(it, gold) for it, gold in data.reviewed() if it.original is not None]
    if reviewed:
        pairs["original vs gold"] = [(ranked_ids(it.original), ranked_ids(g)) for it, g in reviewed]
        pairs["ensemble vs gold"] = [(ranked_ids(it.prediction), ranked_ids(g))
                                     for it, g in reviewed if it.prediction is not None]
    for name, compared in pairs.items():
        row, taus[name] = _tau_row(name, [tau(a, b) for a, b in compared])
        rows.append(row)
    tables.append(Table.build("Kendall τ per item against a reference", TAU_COLUMNS, rows))
    values["tau"] = taus
    swaps = Counter(int(it.data.get("ranker_swapped", 0)) for it in scored)
    if swaps:
        tables.append(Table.build("Pairs the ensemble confidently reversed, per item (what the flag counts)",
                                  ("reversed pairs", "items", "flagged"),
                                  [(k, swaps[k], sum(1 for it in scored if it.flagged
                                                     and int(it.data.get("ranker_swapped", 0)) == k))
                                   for k in sorted(swaps)]))
        values["reversed_pairs"] = {str(k): n for k, n in sorted(swaps.items())}
    notes.append(NOTE)
    sizes = {"scored rankings": len(scored), "reviewed rankings": len(reviewed)}
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=tuple(tables), notes=tuple(notes), values=values)


class RankingsSection(ReportSection):
    key, title, order = KEY, TITLE, 34
    needs = ("ranking",)  # a family's own capability (backend.families.ranker)
    lacking = "not a ranking (<Ranker>) project"

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return rankings_section(data)
