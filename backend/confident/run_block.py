"""The run summary's confident-learning block: who was fitted on what, who was left out and why, and
cleanlab's own label-issue ranking beside the ensemble's flags.

Rebuilt from the item results (the member's stored answers), so a run whose answers all came from the
cache reports the same block as the run that fitted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from rich.console import Console
from rich.table import Table

from backend.scoring.confident_template import KIND
from backend.scoring.results import ItemResult
from backend.common.terminal_text import plain


@dataclass
class ConfidentTally:
    """Collects, per confident-learning member, each labelled item's answer (for cleanlab's ranking)."""

    members: Sequence[str]
    answers: dict[str, list[tuple[str, str, Mapping[str, float]]]] = field(default_factory=dict)
    flagged: set[str] = field(default_factory=set)

    def add(self, result: ItemResult) -> None:
        if result.flagged:
            self.flagged.add(str(result.id))
        if result.original is None:
            return
        for answer in result.members:
            if answer.member_id in self.members and answer.probs is not None:
                self.answers.setdefault(answer.member_id, []).append((str(result.id), result.original, answer.probs))

    def block(self, *, classes: Sequence[str], left_out: Mapping[str, str], trained: Mapping[str, int],
              top: int) -> dict[str, Any] | None:
        """The summary's ``confident_learning`` entry (None when the run has no such member)."""
        if not self.members and not left_out:
            return None
        # heavy: backend.confident.issues imports cleanlab and scikit-learn (~0.35 s), not loaded by label-audit --help
        from backend.confident.issues import ranking_report

        rankings = []
        for member in self.members:
            rows = self.answers.get(member, [])
            if rows:
                ids, originals, probs = zip(*rows)
                rankings.append(ranking_report(ids, originals, probs, classes, flagged=self.flagged, member=member,
                                               top=top))
        return {"left_out": dict(left_out), "trained_on": dict(trained), "cleanlab_ranking": rankings}


def confident_ids(member_ids: Sequence[str]) -> list[str]:
    """The ``cleanlab:`` members among ``member_ids``."""
    return [m for m in member_ids if m.split(":", 1)[0] == KIND]


def print_block(block: Mapping[str, Any] | None, console: Console) -> None:
    """Left-out members with their reasons, then cleanlab's ranking (count, overlap, top items)."""
    if not block:
        return
    for member, reason in block["left_out"].items():
        console.print(f"[bold yellow]{plain(member)} left out:[/bold yellow] {plain(reason)}")
    for ranking in block["cleanlab_ranking"]:
        table = Table(title=f"cleanlab find_label_issues on {ranking['member']}'s out-of-fold probabilities: "
                            f"{ranking['issues']} issues among {ranking['items']} labelled items, "
                            f"{ranking['also_flagged_by_ensemble']} also flagged by the ensemble")
        for column in ("id", "original", "self-confidence"):
            table.add_column(column)
        for row in ranking["top"]:
            table.add_row(plain(row["id"]), plain(row["original"]), f"{row['self_confidence']:.3f}")
        console.print(table)
