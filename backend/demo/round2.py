"""The demo's second round: once both experts have answered every item, their splits go to reconciliation.

Without it the demo's loop stopped at round 1: items the experts split on stayed PENDING however often the
report was refreshed. Reconciliation shows both experts' answers on purpose, so it cannot live on either
expert's own instance (the other would see all of that expert's answers) nor on the source (the original
labels and scores): it gets a shared review instance of its own, started only when there is something to
reconcile, with sign-up closed like every instance the demo starts. Each expert is signed up there through
a one-use invite link (``review reconcile --initial-passwords``); the password is kept in ``secrets.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from backend.demo import services
from backend.demo.home import RECONCILE_INSTANCE, DemoHome, save_reconcile_logins
from backend.demo.processes import ProcessTable


@dataclass
class ReviewProgress:
    """Where the review stands after this run, for the closing lines (from ``review status --json``)."""

    items: int = 0
    incomplete: int = 0  # round-1 items some expert has not answered yet
    disagreed: int = 0
    pending: int = 0  # items sent to the experts with no gold label yet
    reconcile_url: str | None = None
    reconcile_logins: dict[str, str] = field(default_factory=dict)  # expert -> password on the shared instance

    @property
    def answered(self) -> bool:
        """Every round-1 item has every expert's answer."""
        return self.items > 0 and self.incomplete == 0


def review_progress(status: dict[str, Any]) -> ReviewProgress:
    """The counts the demo needs from ``label-audit review status --json``."""
    round1 = status.get("round1") or {}
    return ReviewProgress(items=int(status.get("items") or 0), incomplete=int(round1.get("incomplete") or 0),
                          disagreed=int(round1.get("disagreed") or 0),
                          pending=int((status.get("gold") or {}).get("pending") or 0))


def reconcile_round(home: DemoHome, keys: dict[str, Any], *, port: int, project: int, env: dict[str, str],
                    run_cli: Callable[..., str], say: Callable[[str], None]) -> tuple[ReviewProgress, dict[str, str]]:
    """Reconcile the experts' splits when round 1 is complete; the progress and the report's environment.

    ``env`` names the experts' own instances; the environment returned also names the shared instance once
    it holds the reconciliation round, so every later command (the report) reads round 2 there.
    """
    args = ["backend.cli", "review", "status", "--project", str(project), "--json"]
    progress = review_progress(json.loads(run_cli(args, env, what="label-audit review status")))
    if not progress.answered or not progress.disagreed:
        return progress, env
    shared = services.label_studio(home, instance=RECONCILE_INSTANCE, port=port, secrets=keys,
                                   binary=services.label_studio_binary(say=say, configured=home.label_studio_bin))
    services.ensure_label_studios(ProcessTable(home.pids), {RECONCILE_INSTANCE: shared}, say=say)
    env = {**env, "LABEL_AUDIT_REVIEW_URL": shared.url, "LABEL_AUDIT_REVIEW_API_KEY": shared.token}
    out = json.loads(run_cli(["backend.cli", "review", "reconcile", "--project", str(project),
                              "--initial-passwords", "--json"], env, what="label-audit review reconcile"))
    logins = save_reconcile_logins(home, keys, out.get("passwords") or {})
    say(f"Round 2: the experts split on {out['disagreements']} item{'s' if out['disagreements'] != 1 else ''}; "
        f"a reconciliation project shows both answers ({out['new_tasks']} added now)")
    progress = review_progress(json.loads(run_cli(args, env, what="label-audit review status")))
    progress.reconcile_url, progress.reconcile_logins = out.get("url"), logins
    return progress, env
