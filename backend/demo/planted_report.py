"""Which members found the demo's planted label errors, and with what precision.

Reads a ``label-audit score --out`` file whose records carry ``planted`` (the demo's tickets). A member
"finds" an item when its own most probable label differs from the item's label with probability above the
task's flag threshold (the family's default: 0.55 binary, 0.45 nominal); the ensemble row is the tool's flag.
Precision and recall rest on the counts printed beside them (the planted errors are the only wrong labels of
the sample).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Sequence

from rich.table import Table

THRESHOLD = 0.5


def _member_flags(record: dict[str, Any], member: str, threshold: float) -> bool | None:
    answer = next((m for m in record.get("members") or [] if m.get("member_id") == member), None)
    if not answer or not answer.get("probs"):
        return None
    probs = answer["probs"]
    top = max(probs, key=probs.get)
    return top != record.get("original") and probs[top] > threshold


def planted_rows(records: Sequence[dict[str, Any]], *, members: Sequence[str],
                 threshold: float = THRESHOLD) -> list[dict[str, Any]]:
    """One row per member and one for the ensemble: flagged, planted among them, precision, recall (a member flags
    above ``threshold``, the run's)."""
    planted = sum(1 for r in records if (r.get("data") or {}).get("planted"))
    rows = []
    for name in [*members, "ensemble (plain average)"]:
        flags = [(bool(r.get("flagged")) if name.startswith("ensemble") else _member_flags(r, name, threshold), r)
                 for r in records]
        answered = [(f, r) for f, r in flags if f is not None]
        hit = sum(1 for f, r in answered if f and (r.get("data") or {}).get("planted"))
        flagged = sum(1 for f, _ in answered if f)
        rows.append({"who": name, "answered": len(answered), "flagged": flagged, "planted_found": hit,
                     "planted": planted, "precision": round(hit / flagged, 3) if flagged else None,
                     "recall": round(hit / planted, 3) if planted else None})
    return rows


def planted_table(results: Path, *, members: Sequence[str]) -> dict[str, Any]:
    """The rows, a rich table of them, and a note saying what they rest on."""
    records = [json.loads(line) for line in results.read_text("utf-8").splitlines() if line.strip()]
    rows = planted_rows(records, members=members)
    table = Table(title="Planted label errors found")
    for column in ("member", "items answered", "flagged", "planted found", "precision", "recall"):
        table.add_column(column, justify="left" if column == "member" else "right")
    for row in rows:
        table.add_row(row["who"], str(row["answered"]), str(row["flagged"]), f"{row['planted_found']} of {row['planted']}",
                      "n/a" if row["precision"] is None else f"{row['precision']:.2f} (n={row['flagged']})",
                      "n/a" if row["recall"] is None else f"{row['recall']:.2f} (n={row['planted']})")
    note = ("Precision = planted errors among the flagged items; recall = share of the planted errors flagged. "
            "A member flags an item when its own answer contradicts the label with probability > 0.5. The "
            "confident-learning member learns from the sample's own labels (5-fold, out of fold). An embedded-judge "
            "member, when present, is at chance: its flags are noise.")
    return {"rows": rows, "table": table, "note": note}


def describe(rows: Sequence[dict[str, Any]], say: Callable[[str], None]) -> None:
    """One sentence per row (what a terminal too narrow for the table still shows whole)."""
    for row in rows:
        precision = "n/a" if row["precision"] is None else f"{row['precision']:.2f} (n={row['flagged']} flagged)"
        say(f"  {row['who']}: found {row['planted_found']} of {row['planted']} planted errors, precision {precision}")
