"""The probe findings: one JSON document (``--out``, the audit database) and the table a lead reads.

Reading it (seed 003, §3.3): every probe deserves the negative label, so any MAE, share positive or
p(positive) above the unmodified baseline is gullibility. Agreement with humans (κ) does not predict
it: a judge can agree well with humans and still call random words relevant once the query is
stuffed in. A member with a high share positive on ``RandP+Inst`` or ``RandP+Q`` obeys planted text:
do not trust its flags on items that carry such text (``suspicious_text`` in the results).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any, Sequence

from rich.console import Console
from rich.table import Table

from backend.scoring.members import Member
from backend.probes.construct import ProbeSet
from backend.probes.run import ScoredProbes, delimiting_effect
from backend.task.spec import TaskSpec

REPORT_KIND = "label-audit-probe-report"
READING_GUIDE = (
    "Every probe deserves the label {negative}. MAE and share positive above 0, and p(positive) above the "
    "unmodified baseline (Δp+), measure how easily a member is fooled. Good agreement with humans (κ) does "
    "not rule this out (seed 003, §3.3): a member with a high share positive on RandP+Inst or RandP+Q obeys "
    "planted text, so its flags on items marked suspicious_text are not to be trusted."
)


def build_report(
    *,
    spec: TaskSpec,
    probe_set: ProbeSet,
    members: Sequence[Member],
    passes: Sequence[ScoredProbes],
    seed: int,
    n: int,
    lengths: Sequence[int],
    run_id: str | None = None,
    created_at: datetime | None = None,
) -> dict[str, Any]:
    """Assemble the JSON-able report of one probe run (one or two scoring passes)."""
    if not passes:
        raise ValueError("a probe report needs at least one scoring pass")
    by_mode = {p.delimit: p for p in passes}
    layout = probe_set.layout
    report: dict[str, Any] = {
        "kind": REPORT_KIND,
        "version": 1,
        "run_id": run_id or uuid.uuid4().hex,
        "created_at": (created_at or datetime.now(timezone.utc)).isoformat(),
        "task": spec.name,
        "labels": list(spec.labels),
        "negative_label": spec.negative_label,
        "seed": seed,
        "n": n,
        "lengths": list(lengths),
        "layout": {"key": layout.key, "target": layout.target, "instruction": layout.instruction,
                   "stuffing": list(layout.stuffing)},
        "members": [m.id for m in members],
        "sources": {"randp": probe_set.randp_sources, "nonrelp": probe_set.nonrelp_sources,
                    "nonrelp_available": probe_set.nonrelp_available},
        "notes": list(probe_set.notes),
        "rows": [row.to_dict() for p in passes for row in p.rows],
        "guard_marked": (by_mode.get(True) or passes[0]).guard_marked,
        "engine": {("delimited" if p.delimit else "undelimited"): p.engine_stats for p in passes},
    }
    if True in by_mode and False in by_mode:
        report["delimiting"] = delimiting_effect(by_mode[True], by_mode[False])
    return report


def _num(value: Any, digits: int = 2, *, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def common_prefix(member_ids: Sequence[str]) -> str:
    """``provider:model/`` when every member shares it (the table then shows template keys only)."""
    prefixes = {m.rsplit("/", 1)[0] + "/" for m in member_ids if "/" in m}
    return prefixes.pop() if len(prefixes) == 1 and len(member_ids) > 1 else ""


def short_id(member_id: str, prefix: str) -> str:
    return member_id[len(prefix):] if prefix and member_id.startswith(prefix) else member_id


def render_report(report: dict[str, Any], console: Console) -> None:
    """Print the probe table, the heuristic's marks and (when measured) the fencing comparison."""
    compare = "delimiting" in report
    prefix = common_prefix(report["members"])
    title = f"Gullibility probes — task {report['task']}, expected label {report['negative_label']}"
    table = Table(title=title + (f", members {prefix}…" if prefix else ""))
    for header in ("member", "condition", *(("fenced",) if compare else ()), "n", "unparsable", "left out", "rests on", "MAE",
                   "share +", "p(+)", "Δp(+)", "Δshare +"):
        left = header in ("member", "condition")
        table.add_column(header, justify="left" if left else "right", overflow="fold" if left else "ellipsis")
    for row in report["rows"]:
        table.add_row(
            short_id(row["member_id"], prefix),
            row["condition"],
            *(("yes" if row["delimit"] else "no",) if compare else ()),
            str(row["n"]),
            str(row["n_errors"]),
            str(row.get("n_excluded", 0)),
            str(row["n_ok"]),
            _num(row["mae"]),
            _num(row["share_positive"]),
            _num(row["mean_p_positive"], 3),
            _num(row["delta_p_positive"], 3, signed=True),
            _num(row["delta_share_positive"], 2, signed=True),
        )
    console.print(table)
    if any(row.get("n_excluded") for row in report["rows"]):
        console.print("left out: NonRelP items the member already labels relevant unmodified (seed 003 §3.2.1); "
                      "MAE and shares rest on the 'rests on' items only")
    marks = ", ".join(f"{cond} {share:.0%}" for cond, share in report["guard_marked"].items() if share)
    console.print(f"Marked suspicious_text by the instruction heuristic: {marks or 'none'}")
    if compare:
        fencing = Table(title="Data fencing: shift of p(+) caused by the manipulation, fenced vs unfenced")
        for header in ("member", "condition", "shift fenced", "shift unfenced", "fencing gain"):
            fencing.add_column(header, justify="left" if header in ("member", "condition") else "right")
        for entry in report["delimiting"]:
            fencing.add_row(short_id(entry["member_id"], prefix), entry["condition"], _num(entry["shift_delimited"], 3, signed=True),
                            _num(entry["shift_undelimited"], 3, signed=True), _num(entry["fencing_gain"], 3, signed=True))
        console.print(fencing)
    for note in report.get("notes", []):
        console.print(f"[yellow]note:[/yellow] {note}")
    console.print(READING_GUIDE.format(negative=report["negative_label"]))
