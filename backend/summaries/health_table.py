"""Member health on the terminal and in words: the table of figures, a sentence per member named, the rule.

Shared by the run summary (`label-audit score`, `label-audit audit --wait`) and `label-audit review status`,
so a member is named the same way wherever the lead looks. The figures come from
:meth:`backend.scoring.member_health.HealthTally.to_dict`; each says what it rests on (``n`` answers), and a member
with fewer answers than the rule's minimum is PENDING rather than called healthy.
"""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console

from backend.costs.cost_tables import MemberRows, by_model
from backend.common.terminal_text import member_cells, plain

__all__ = ["health_sentences", "print_health"]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _mass(row: Mapping[str, Any]) -> str:
    if row["mass"] is None:
        return "-"
    return f"{row['mass']:.2f}" + ("" if row["mass_n"] == row["n"] else f" (n {row['mass_n']})")


def _sentence(row: Mapping[str, Any], rule: Mapping[str, Any]) -> str:
    model, prompt = member_cells(row["member"])
    parts = []
    if row["collapsed"]:
        parts.append(f'answered "{row["answer"]}" for {_pct(row["answer_share"])} of {row["n"]} items while '
                     f'"{row["answer"]}" is the original of {_pct(row["original_share"])} of them (collapsed)')
    if row["low_mass"]:
        parts.append(f"put on average {row['mass']:.2f} of its probability on the class tokens over "
                     f"{row['mass_n']} answers, below {rule['min_mass']:.2f} (low mass)")
    return f"{prompt or model} ({model}) " + "; ".join(parts)


def health_sentences(health: Mapping[str, Any]) -> list[str]:
    """One sentence per member named, then what to do about it; or why no verdict yet (PENDING)."""
    rule, rows = health["rule"], health["members"]
    named = [r for r in rows if r["named"]]
    lines = [_sentence(r, rule) for r in named]
    if named:
        ids = " ".join(f"--exclude-member {r['member']}" for r in named)
        lines.append(f"Leave out with {ids} (or LABEL_AUDIT_EXCLUDE_MEMBERS); the ensemble, so the model version, "
                     "changes.")
    pending = [r for r in rows if r["collapsed"] is None and r["low_mass"] is None]
    if pending:
        lines.append(f"PENDING for {len(pending)} of {len(rows)} members: fewer than {rule['min_answers']} answers "
                     f"(most: {max(max(r['n'], r['mass_n']) for r in pending)}).")
    return lines


def print_health(health: Mapping[str, Any], console: Console) -> None:
    """The health table (figures with their n), the members named in words, and the rule."""
    rows = health["members"]
    if not rows:
        console.print("[bold]Member health:[/bold] PENDING (no member answered yet)")
        return
    table = MemberRows("Member health", [r["member"] for r in rows],
                       ("n", "answer", "share", "orig.\nshare", "mass", "health"))
    table.table.columns[-5].overflow = "fold"  # the answer is a label from the data: folded, never cut
    table.table.columns[-5].justify = table.table.columns[-1].justify = "left"
    for i in by_model([r["member"] for r in rows]):
        row = rows[i]
        table.add(row["member"], [str(row["n"]), plain(row["answer"] or "-"), _pct(row["answer_share"]),
                                  _pct(row["original_share"]), _mass(row), plain(row["status"]).replace(", ", "\n")])
    console.print(table.table)
    for line in health_sentences(health):
        console.print(f"[bold]Named:[/bold] {plain(line)}" if not line.startswith(("Leave", "PENDING"))
                      else plain(line))
    console.print(f"[dim]n: answers on items with an original; share: of those answers; orig. share: of those "
                  f"items' originals; mass: mean probability on the class tokens. A member is "
                  f"{plain(health['rule_text'])}.[/dim]")
