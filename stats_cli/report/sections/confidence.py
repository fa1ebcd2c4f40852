"""Who is right when the ensemble disagrees, by confidence bin (Nahum Fig. 2), and which threshold to pick.

Bins and bootstrap intervals come from :func:`stats_cli.confidence_bins.confidence_bins`; the
threshold scan is :mod:`stats_cli.report.threshold`. A reliability curve (confidence vs accuracy on
settled items) shows whether the ensemble's confidence can be read as a probability.
"""

from __future__ import annotations

import numpy as np

from stats_cli.confidence_bins import confidence_bins

from ..inputs import AuditData
from ..model import Figure, Section, Series, Status, Table, pending
from ..registry import BuildOptions, ReportSection
from ..threshold import threshold_for_precision

KEY, TITLE = "confidence", "Who is right, by ensemble confidence"
NAMES = {"llm": "experts side with the LLM", "original": "experts side with the original", "neither": "neither"}
ORDINAL_NAMES = {"llm": "LLM closer to the experts", "original": "original closer to the experts",
                 "equal": "equally close"}


def confidence_section(data: AuditData, *, target_precision: float = 0.8, seed: int = 0, bins: int = 5) -> Section:
    """Fig. 2 bars with bootstrap CIs, the threshold for ``target_precision``, and a reliability curve."""
    reviewed = [(it, gold) for it, gold in data.reviewed() if data.disagrees(it) and it.confidence is not None]
    sizes = {"reviewed disagreements": len(reviewed), "flagged": sum(1 for it in data.items if it.flagged)}
    if not reviewed:
        return pending(KEY, TITLE, "no reviewed item where the ensemble disagrees with the original yet", sizes=sizes)
    ordinal = data.spec.task_family.ordered  # who is *closer* (Nahum App. A.4.1), not who matches exactly
    names, third = (ORDINAL_NAMES, "equal") if ordinal else (NAMES, "neither")
    result = confidence_bins([it.original for it, _ in reviewed], [it.prediction for it, _ in reviewed],
                             [float(it.confidence) for it, _ in reviewed], [g for _, g in reviewed],
                             bins=bins, seed=seed, order=data.spec.labels if ordinal else None)
    rows = [(f"{b.conf_min:.2f}–{b.conf_max:.2f}", b.n,
             *[v for k in ("llm", "original") for v in (b.shares[k].value, b.shares[k].low, b.shares[k].high)],
             b.shares[third].value) for b in result]
    header = (("confidence", "n", "LLM closer", "low", "high", "original closer", "low", "high", "equally close")
              if ordinal else
              ("confidence", "n", "LLM right", "low", "high", "original right", "low", "high", "neither"))
    table = Table.build("Experts vs LLM vs original by confidence bin (Nahum Fig. 2"
                        + (", App. A.4.1: who is closer" if ordinal else "") + "; 95% bootstrap CIs)", header, rows)
    xs = tuple(r[0] for r in rows)
    bars = Figure("who_is_right", "When the ensemble disagrees, who do the experts side with?", "bars",
                  tuple(Series(names[k], xs, tuple(b.shares[k].value for b in result),
                               tuple(b.shares[k].low for b in result), tuple(b.shares[k].high for b in result))
                        for k in ("llm", "original")),
                  xlabel="ensemble confidence (equal-size bins)", ylabel="share of reviewed items")
    observed, assured = threshold_for_precision([float(it.confidence) for it, _ in reviewed],
                                                [gold != it.original for it, gold in reviewed], target=target_precision)
    pick_rows = [(name, c.threshold, c.kept, c.confirmed, c.precision, c.precision_low) if c else (name, None, None, None, None, None)
                 for name, c in (("observed precision ≥ target", observed), ("95% lower bound ≥ target", assured))]
    pick = Table.build(f"Confidence threshold for a target precision of {target_precision:.2f}",
                       ("rule", "threshold", "reviewed flags kept", "confirmed errors", "precision", "CP 95% low"),
                       pick_rows)
    notes = [_threshold_note(observed, assured, target_precision)]
    figures = [bars]
    reliability = reliability_curve(data, bins=bins)
    if reliability is not None:
        figures.append(reliability)
        notes.append("Reliability curve: items the ensemble agrees with count as correct (their gold is the "
                     "original by Nahum's rule), so the curve is optimistic at high confidence.")
    values = {"bins": [b.to_json() for b in result],
              "threshold_observed": None if observed is None else observed.threshold,
              "threshold_assured": None if assured is None else assured.threshold}
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=(table, pick), figures=tuple(figures),
                   notes=tuple(notes), values=values)


def _threshold_note(observed, assured, target: float) -> str:
    if observed is None:
        return (f"No confidence threshold reaches a precision of {target:.2f} on the reviewed items: "
                "review more flags, or lower the target.")
    text = (f"Pick a confidence threshold of {observed.threshold:.2f}: {observed.confirmed} of the "
            f"{observed.kept} reviewed flags at or above it were real errors ({observed.precision:.0%}).")
    if assured is None:
        return text + f" No threshold yet makes {target:.0%} precision 95%-certain (too few reviews above it)."
    return text + (f" To be 95% sure of {target:.0%} precision, use {assured.threshold:.2f} "
                   f"(exact lower bound {assured.precision_low:.0%}).")


def reliability_curve(data: AuditData, *, bins: int = 5) -> Figure | None:
    """Mean confidence vs accuracy against gold in equal-size bins of settled items."""
    pairs = [(float(it.confidence), it.prediction == g) for it in data.scored
             for g, _ in [data.gold(it)] if g is not None and it.confidence is not None]
    if len(pairs) < 2:
        return None
    pairs.sort()
    chunks = np.array_split(np.arange(len(pairs)), min(bins, len(pairs)))
    conf = np.array([p[0] for p in pairs])
    right = np.array([p[1] for p in pairs], dtype=float)
    x = tuple(float(conf[c].mean()) for c in chunks)
    y = tuple(float(right[c].mean()) for c in chunks)
    return Figure("reliability", "Reliability: ensemble confidence vs accuracy on gold", "line",
                  (Series("ensemble", x, y),), xlabel="mean confidence in bin", ylabel="accuracy vs gold",
                  reference=((0.0, 0.0), (1.0, 1.0)))


class ConfidenceSection(ReportSection):
    key, title, order = KEY, TITLE, 40

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return confidence_section(data, target_precision=options.target_precision, seed=options.seed)
