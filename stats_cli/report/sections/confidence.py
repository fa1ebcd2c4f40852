"""Who is right when the ensemble disagrees, by confidence bin (Nahum Fig. 2), and which threshold to pick.

Quantile bins and their Clopper-Pearson intervals come from :func:`stats_cli.stats.confidence_bins.confidence_bins`;
the threshold rule (fixed-sequence testing) is :mod:`stats_cli.report.threshold`. A reliability curve
(confidence vs accuracy on the control sample, design-weighted) shows whether the ensemble's confidence
can be read as a probability.
"""

from __future__ import annotations

import numpy as np

from stats_cli.stats.confidence_bins import MIN_BIN, ConfidenceBin, confidence_bins

from ..control import NO_CONTROL, control_items
from ..fmt import plural
from ..inputs import AuditData
from ..model import Figure, Section, Series, Status, Table, pending
from ..registry import BuildOptions, ReportSection
from ..threshold import threshold_for_precision

KEY, TITLE = "confidence", "Who is right, by ensemble confidence"
NAMES = {"llm": "experts side with the LLM", "original": "experts side with the original", "neither": "neither"}
ORDINAL_NAMES = {"llm": "LLM closer to the experts", "original": "original closer to the experts",
                 "equal": "equally close"}


def bin_range(b: ConfidenceBin) -> str:
    """A bin's real confidence range ("0.75" when every item in it has the same confidence)."""
    low, high = f"{b.conf_min:.2f}", f"{b.conf_max:.2f}"
    return low if low == high else f"{low}–{high}"


def confidence_section(data: AuditData, *, target_precision: float = 0.8, seed: int = 0, bins: int = 5) -> Section:
    """Fig. 2 bars with exact CIs, the threshold for ``target_precision``, and a reliability curve (control sample)."""
    reviewed = [(it, gold) for it, gold in data.reviewed() if data.disagrees(it) and it.confidence is not None]
    sizes = {"reviewed disagreements": len(reviewed), "flagged": sum(1 for it in data.items if it.flagged)}
    if not reviewed:
        return pending(KEY, TITLE, "no reviewed item where the ensemble disagrees with the original yet", sizes=sizes)
    ordinal = data.spec.task_family.ordered  # who is *closer* (Nahum App. A.4.1), not who matches exactly
    names, third = (ORDINAL_NAMES, "equal") if ordinal else (NAMES, "neither")
    result = confidence_bins([it.original for it, _ in reviewed], [it.prediction for it, _ in reviewed],
                             [float(it.confidence) for it, _ in reviewed], [g for _, g in reviewed],
                             bins=bins, seed=seed, order=data.spec.labels if ordinal else None)
    rows = [(bin_range(b), b.n,
             *[v for k in ("llm", "original") for v in (b.shares[k].value, b.shares[k].low, b.shares[k].high)],
             b.shares[third].value) for b in result]
    header = (("confidence", "n", "LLM closer", "low", "high", "original closer", "low", "high", "equally close")
              if ordinal else
              ("confidence", "n", "LLM right", "low", "high", "original right", "low", "high", "neither"))
    table = Table.build("Experts vs LLM vs original by confidence bin (Nahum Fig. 2"
                        + (", App. A.4.1: who is closer" if ordinal else "") + "; quantile bins, merged below "
                        f"{MIN_BIN} items, 95% Clopper-Pearson intervals)", header, rows)
    xs = tuple(r[0] for r in rows)
    bars = Figure("who_is_right", "When the ensemble disagrees, who do the experts side with?", "bars",
                  tuple(Series(names[k], xs, tuple(b.shares[k].value for b in result),
                               tuple(b.shares[k].low for b in result), tuple(b.shares[k].high for b in result))
                        for k in ("llm", "original")),
                  xlabel="ensemble confidence (quantile bins)", ylabel="share of reviewed items")
    observed, assured = threshold_for_precision([float(it.confidence) for it, _ in reviewed],
                                                [data.is_error(it, gold) for it, gold in reviewed], target=target_precision)
    pick_rows = [(name, c.threshold, c.kept, c.confirmed, c.precision, c.precision_low) if c else (name, None, None, None, None, None)
                 for name, c in (("observed precision ≥ target", observed), ("exact lower bound ≥ target, tested from the highest threshold down", assured))]
    pick = Table.build(f"Confidence threshold for a target precision of {target_precision:.2f}",
                       ("rule", "threshold", "reviewed flags kept", "confirmed errors", "precision", "CP 95% low"),
                       pick_rows)
    notes = [_threshold_note(observed, assured, target_precision)]
    figures = [bars] if len(reviewed) >= MIN_BIN else []
    if not figures:
        notes.append(f"Who-is-right plot: not drawn — {len(reviewed)} reviewed disagreement"
                     f"{'s' if len(reviewed) != 1 else ''}, fewer than the {MIN_BIN} a bin needs.")
    reliability = reliability_curve(data, bins=bins)
    if reliability is not None:
        figures.append(reliability)
        notes.append("Reliability curve: the random control sample only, each item weighted by 1/its inclusion "
                     "probability (elsewhere gold is the original wherever the ensemble agrees).")
    else:
        notes.append(f"Reliability curve: not drawn — {NO_CONTROL}, and at least {MIN_BIN} settled sampled items.")
    values = {"bins": [b.to_json() for b in result],
              "threshold_observed": None if observed is None else observed.threshold,
              "threshold_assured": None if assured is None else assured.threshold}
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=(table, pick), figures=tuple(figures),
                   notes=tuple(notes), values=values)


def _threshold_note(observed, assured, target: float) -> str:
    if observed is None:
        return (f"No confidence threshold reaches a precision of {target:.2f} on the reviewed items: "
                "review more flags, or lower the target.")
    seen = (f"{observed.confirmed} of the {plural(observed.kept, 'reviewed flag')} at or above "
            f"{observed.threshold:.2f} {'was a real error' if observed.kept == 1 else 'were real errors'} "
            f"({observed.precision:.1%})")
    if observed.kept < MIN_BIN:
        text = (f"Observed precision reaches {target:.0%} only where {seen}: too few to pick a threshold from "
                f"(fewer than {MIN_BIN}).")
    else:
        text = f"Pick a confidence threshold of {observed.threshold:.2f}: {seen}."
    if assured is None:
        return text + (f" No threshold yet makes {target:.0%} precision 97.5%-certain (too few reviews, or the "
                       "highest thresholds fail the test).")
    return text + (f" To be 97.5% sure of {target:.0%} precision, use {assured.threshold:.2f} "
                   f"(exact lower bound {assured.precision_low:.1%}; thresholds tested one by one from the "
                   "highest down, stopping at the first that fails, so the chance of a wrong pick stays ≤ 2.5%).")


def reliability_curve(data: AuditData, *, bins: int = 5) -> Figure | None:
    """Design-weighted mean confidence vs accuracy against gold in quantile bins of the control sample."""
    rows = sorted((float(c.item.confidence), c.item.prediction == c.gold, c.weight) for c in control_items(data)
                  if c.item.confidence is not None)
    if len(rows) < MIN_BIN:
        return None
    chunks = np.array_split(np.arange(len(rows)), max(1, min(bins, len(rows) // MIN_BIN)))
    conf, right, weight = (np.array([r[k] for r in rows], dtype=float) for k in range(3))
    x = tuple(float(np.average(conf[c], weights=weight[c])) for c in chunks)
    y = tuple(float(np.average(right[c], weights=weight[c])) for c in chunks)
    return Figure("reliability", "Reliability: ensemble confidence vs accuracy on gold (control sample)", "line",
                  (Series("ensemble", x, y),), xlabel="mean confidence in bin", ylabel="accuracy vs gold",
                  reference=((0.0, 0.0), (1.0, 1.0)))


class ConfidenceSection(ReportSection):
    key, title, order = KEY, TITLE, 40

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return confidence_section(data, target_precision=options.target_precision, seed=options.seed)
