"""The latest gullibility-probe results per ensemble member (seed 003), when probes were run."""

from __future__ import annotations

from ..inputs import AuditData
from ..model import Section, Status, Table, not_applicable
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "probes", "Gullibility probes"


def probes_section(data: AuditData) -> Section:
    """One row per member and condition: items probed and mean absolute error against the negative label."""
    if not data.spec.negative_label:
        return not_applicable(KEY, TITLE, "a probe's expected answer is the 'nothing here' class, and this task's "
                              "labels name none (set LABEL_AUDIT_NEGATIVE_LABEL)")
    if not data.probes:
        return not_applicable(KEY, TITLE, "no probe results stored (run `label-audit probe` to add them)")
    rows = sorted(((p.member_id, p.condition, p.n, p.n_excluded, p.mae, p.share_positive, p.delta_mae, p.detail)
                   for p in data.probes), key=lambda r: (r[0], r[1]))
    expected = data.spec.negative_label  # every probe deserves it: 0 for relevance, 1 on a Likert scale
    table = Table.build(f"Latest probe results (expected label {expected}; lower MAE = less gullible)",
                        ("member", "condition", "n (rests on)", "left out", "MAE", "share judged relevant",
                         "Δ MAE vs plain", "run"), rows)
    worst = max((p for p in data.probes if p.mae is not None), key=lambda p: p.mae, default=None)
    notes = [f"Most gullible: {worst.member_id} under '{worst.condition}' (MAE {worst.mae:.2f})."] if worst else []
    if any(p.n_excluded for p in data.probes):
        notes.append("left out: NonRelP items the member already labels relevant when unmodified; as in seed 003 "
                     "§3.2.1 a manipulated non-relevant passage counts only where the member agrees it is non-relevant.")
    return Section(KEY, TITLE, Status.OK, sizes={"members": len({p.member_id for p in data.probes}),
                                                  "rows": len(data.probes)},
                   tables=(table,), notes=tuple(notes))


class ProbesSection(ReportSection):
    key, title, order = KEY, TITLE, 90

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return probes_section(data)
