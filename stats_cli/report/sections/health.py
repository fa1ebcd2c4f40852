"""Member health: which member x prompt answers one label whatever the item, or barely names a label at all.

The same rule and figures as `label-audit score`'s summary and `label-audit review status`
(:mod:`backend.scoring.member_health`), over the ledger's results of this audit: per member x prompt, its most
frequent answer and that answer's share, how often the same label is the original, the originals' own
most frequent share, and the mean probability mass its answers put on the class tokens — each with the
number of answers it rests on. Below the rule's minimum a member's verdict is PENDING. A member named
COLLAPSED over the audit's results is left out of the verdicts and flags by the health gate
(:mod:`backend.scoring.health_gate`): the section names it with the reason and counts the stored flags the gate
takes back (a worker's stored verdict was read batch by batch, before the project's health was known;
`label-audit audit` rewrites those verdicts in Label Studio and the ledger when it completes:
:mod:`backend.worker.gate_writeback`; after that, the section says what the last pass took back and added). To
leave a member out of every run, `--exclude-member` (or LABEL_AUDIT_EXCLUDE_MEMBERS); the model version changes.
"""

from __future__ import annotations

from backend.api import VerdictRule, adjustment_lines, gate_from_health, member_health, regate

from ..fmt import percent
from ..inputs import AuditData
from ..model import Section, Status, Table
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "member_health", "Member health (collapsed answers, low class-token mass)"


def _pass_steps(blocks) -> str:
    """The steps of the audit's last pass, as it recorded them (None: a pass recorded before the record was kept)."""
    if blocks is None:
        return "the health gate, then the prior correction if one was set"
    mode = (blocks.get("prior_correction") or {}).get("mode") or "none"
    return "the health gate" + ("" if mode == "none" else f", then the prior correction {mode}")


def gate_notes(data: AuditData, tally) -> tuple[list[str], dict]:
    """The health gate over the audit's results: the members it leaves out (with why), the stored flags it takes back."""
    gate = gate_from_health(tally, family=data.spec.family)
    notes = []
    if data.scored_flags is not None or data.last_pass is not None:  # `label-audit audit`'s last pass re-read them
        now = {str(r.id) for r in data.items if r.flagged}
        scored = data.scored_flags if data.scored_flags is not None else frozenset(now)  # it changed no verdict
        taken, added = len(scored - now), len(now - scored)
        notes += [f"Left out of the verdicts and flags (health gate): {m}: {why}." for m, why in gate.left_out.items()]
        if gate.note:
            notes.append(f"Health gate: {gate.note}.")
        notes.append(f"The audit's last pass ({_pass_steps(data.last_pass)}) re-read the stored verdicts: of the "
                     f"{len(scored)} flags the workers stored it took back {taken} and added {added}; every figure "
                     f"here reads its verdicts, as Label Studio shows them.")
        if data.last_pass is not None:  # what the correction chose, and on what
            notes += adjustment_lines({"prior_correction": data.last_pass.get("prior_correction") or {}})
        return notes, {**gate.to_dict(), "flags_taken_back": taken, "flags_added": added,
                       "last_pass": dict(data.last_pass) if data.last_pass is not None else None}
    if gate.active:
        rule = VerdictRule(data.spec, threshold=data.threshold)
        changed = [r for r in data.items if r.flagged and not regate(r, gate, rule).flagged]
        for member, reason in gate.left_out.items():
            notes.append(f"Left out of the verdicts and flags (health gate): {member}: {reason}.")
        notes.append(f"The gate takes back {len(changed)} of {sum(bool(r.flagged) for r in data.items)} stored flags "
                     "(the workers' verdicts in the ledger; `label-audit audit` rewrites them in Label Studio when it "
                     "completes).")
    elif gate.note:
        notes.append(f"Health gate: {gate.note}.")
    return notes, {**gate.to_dict(), "flags_taken_back": len(changed) if gate.active else 0}


def health_section(data: AuditData) -> Section:
    tally = member_health(data.items)
    health = tally.to_dict()
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
    gated, gate = gate_notes(data, tally)
    return Section(KEY, TITLE, Status.OK, sizes={"items": len(data.items), "members": len(rows),
                                                 "answers per member (most)": max(r["n"] for r in rows)},
                   tables=(table,), notes=tuple(notes + gated), values={**health, "health_gate": gate})


class HealthSection(ReportSection):
    key, title, order = KEY, TITLE, 48

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return health_section(data)
