"""The audit at a glance: how many items, how often the ensemble disagrees, what is flagged and reviewed.

It also repeats the pre-flight warning the commands said before scoring (:func:`backend.api.bare_codes`): a
control whose labels are bare codes gives the judges nothing to judge by (or, with a question or guidelines, less
than readable values would), and a lead reading the figures below should know that first.
"""

from __future__ import annotations

from backend.api import bare_codes, tally

from ..inputs import AuditData
from ..model import Section, Status, Table, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "audit", "The audit"


def confidence_bands(data: AuditData) -> tuple[float, ...]:
    """Band edges for flagged items: 0.5..1.0 by tenths (binary, nominal), 0.2..1.0 by fifths (ordinal)."""
    return data.spec.task_family.confidence_bands


def band_label(conf: float, edges: tuple[float, ...]) -> str:
    for lo, hi in zip(edges, edges[1:]):
        if conf < hi or hi == edges[-1]:
            if conf >= lo:
                return f"[{lo:.1f}, {hi:.1f}{']' if hi == edges[-1] else ')'}"
    return f"< {edges[0]:.1f}"


def audit_section(data: AuditData) -> Section:
    """Items audited, ensemble disagreement (Nahum Table 2 "% LLM disagree"), flags by band, review progress."""
    counts = tally(data.items)  # the run's own tally: the same counts as the score/audit summary
    n_items = counts.items
    scored = data.scored  # scored *and* labelled: the base of every rate below
    if not scored:
        return pending(KEY, TITLE, "no item has an ensemble verdict yet: score the project first",
                       sizes={"items": n_items})
    disagree = [it for it in scored if data.disagrees(it)]
    flagged = [it for it in data.items if it.flagged]
    reviewed = {str(it.id) for it, _ in data.reviewed()}
    no_verdict = counts.items - counts.scored
    insufficient = counts.insufficient
    sizes = {"items": n_items, "scored": len(scored), "flagged": counts.flagged,
             "routed to review": len(data.routed), "reviewed": len(reviewed)}
    overview = Table.build("Items", ("what", "count", "% of scored"), [
        ("items audited", n_items, None),
        ("no ensemble verdict (member errors)", no_verdict, None),
        ("ensemble disagrees with the original label", len(disagree), 100.0 * len(disagree) / len(scored)),
        ("insufficient (fewer members answered than the quorum; never flagged)", insufficient,
         100.0 * insufficient / len(scored)),
        ("flagged (disagrees, confidence > threshold, no tie, quorum met)", counts.flagged,
         100.0 * counts.flagged / len(scored)),
        ("routed to expert review", len(data.routed), 100.0 * len(data.routed) / len(scored)),
        ("reviewed, decision settled", len(reviewed), 100.0 * len(reviewed) / len(scored)),
    ])
    edges = confidence_bands(data)
    bands: dict[str, list[int]] = {}
    for it in flagged:
        row = bands.setdefault(band_label(float(it.confidence or 0.0), edges), [0, 0, 0])
        row[0] += 1
        row[1] += str(it.id) in reviewed
        row[2] += str(it.id) not in reviewed
    band_rows = [(band, *counts) for band, counts in sorted(bands.items())]
    by_band = Table.build("Flagged items by confidence band", ("confidence", "flagged", "reviewed", "open"), band_rows)
    presentation = bare_codes(data.spec)
    notes = [f"Warning: {w.message}" for w in presentation]
    if flagged and len(reviewed & {str(it.id) for it in flagged}) < len(flagged):
        open_ = len(flagged) - len(reviewed & {str(it.id) for it in flagged})
        notes.append(f"{open_} of {len(flagged)} flagged items have no settled expert decision yet; "
                     "sections that need gold labels use the settled ones only and say so.")
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=(overview, by_band), notes=tuple(notes),
                   values={"items": n_items, "scored": len(scored), "disagree": len(disagree),
                           "disagree_rate": len(disagree) / len(scored), "flagged": counts.flagged,
                           "routed": len(data.routed), "reviewed": len(reviewed), "insufficient": insufficient,
                           "presentation_warnings": [w.to_dict() for w in presentation]})


class AuditSection(ReportSection):
    key, title, order = KEY, TITLE, 10

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return audit_section(data)
