"""Member health: which member x prompt answers one label whatever the item, or barely names a label at all.

The same rule and figures as `label-audit score`'s summary and `label-audit review status`
(:mod:`backend.scoring.member_health`), over the ledger's results of this audit: per member x prompt, its most
frequent answer and that answer's share, how often the same label is the original, the originals' own
most frequent share, and the mean probability mass its answers put on the class tokens — each with the
number of answers it rests on. Below the rule's minimum a member's verdict is PENDING. A member named
here adds its bias to every verdict it takes part in; `--exclude-member` (or LABEL_AUDIT_EXCLUDE_MEMBERS)
leaves it out, which changes the model version (the ensemble changes).
"""

from __future__ import annotations

from backend.api import member_health

from ..fmt import percent
from ..inputs import AuditData
from ..model import Section, Status, Table
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "member_health", "Member health (collapsed answers, low class-token mass)"


def health_section(data: AuditData) -> Section:
    health = member_health(data.items).to_dict()
    rows, rule = health["members"], health["rule"]
    if not rows:
        return Section(KEY, TITLE, Status.PENDING, reason="no member answered any item yet",
                       sizes={"items": len(data.items)})
    table = Table.build(
        "Per member x prompt (question rows pooled): most frequent answer, how often the same label is the original",
        ("member", "n (answers with an original)", "most frequent answer", "its share (%)",
         "original share of that label (%)", "originals' most frequent share (%)", "class-token mass (mean)",
         "mass n", "health"),
        [(r["member"], r["n"], r["answer"], percent(r["answer_share"]), percent(r["original_share"]),
          percent(r["original_modal_share"]), r["mass"], r["mass_n"], r["status"]) for r in rows])
    notes = [f"Rule: {health['rule_text']}."]
    named = [r for r in rows if r["named"]]
    for r in named:
        notes.append(f"{r['member']}: {r['status']} (n {r['n']} answers; mass over {r['mass_n']}). Leave it out with "
                     f"--exclude-member {r['member']} or LABEL_AUDIT_EXCLUDE_MEMBERS; the model version changes.")
    pending = [r for r in rows if r["status"] == "PENDING"]
    if pending:
        notes.append(f"PENDING for {len(pending)} of {len(rows)} members: fewer than {rule['min_answers']} answers.")
    return Section(KEY, TITLE, Status.OK, sizes={"items": len(data.items), "members": len(rows),
                                                 "answers per member (most)": max(r["n"] for r in rows)},
                   tables=(table,), notes=tuple(notes), values=health)


class HealthSection(ReportSection):
    key, title, order = KEY, TITLE, 48

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return health_section(data)
