"""The report of a project with several controls: an overview, then every section once per control.

Each control is reported through its own view of the audit data (:mod:`stats_cli.sources.control_view`), so each
section runs with the control's family — weighted κ for a rating, the preference figures for a pairwise
control — and says which control it is about (:attr:`Section.control`).
"""

from __future__ import annotations

from dataclasses import replace

from stats_cli.sources.control_view import ControlView, describe

from .fmt import plural
from .model import Section, Status, Table

KEY, TITLE = "controls", "Controls audited"


def qualified(section: Section, view: ControlView) -> Section:
    """``section`` marked as being about ``view``'s control."""
    return replace(section, control=view.control.name, control_label=view.control.label)


def controls_section(views: tuple[ControlView, ...]) -> Section:
    """One row per control: its kind, family, scale and how many items it was judged and flagged on."""
    rows = []
    for view in views:
        d = describe(view)
        rows.append((view.control.label, d["tag"] or "—", d["family"], ", ".join(d["labels"]), d["items"],
                     d["scored"], d["flagged"], d["not_shown"]))
    notes = ["Every section below is given once per control, computed on that control's answers alone with the "
             "control's own flag rule; an item counts for a control only where the control was shown."]
    conditional = [v.control.label for v in views if v.not_shown and v.data.sample is not None
                   and any(i.task_id not in {str(it.id) for it in v.data.items} for i in v.data.sample.items)]
    if conditional:
        notes.append(f"{', '.join(conditional)}: shown only under a condition; its figures are over the items that "
                     "show it (its Label errors table says its N): the sampled items that show it are a random "
                     "sample of those in their stratum, and the sampled items that do not show it are left out.")
    unreadable = max((v.unreadable for v in views), default=0)
    if unreadable:
        notes.append(f"{plural(unreadable, 'stored value')} could not be split into controls and count as no answer.")
    table = Table.build("Each control: its kind, its scale, and on how many items it was judged and flagged",
                        ("control", "tag", "family", "labels", "items", "scored", "flagged",
                         "not shown (condition)"), rows)
    return Section(KEY, TITLE, Status.OK, sizes={"controls": len(views)}, tables=(table,), notes=tuple(notes),
                   values={"controls": [describe(v) for v in views], "unreadable_values": unreadable})
