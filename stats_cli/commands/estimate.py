"""`audit-stats estimate`: the error rate of a whole population from a (stratified) random review sample.

With a FILE of audited items (one row per item: the judges' score, the experts' verdict where reviewed, the
inclusion probability) it prints the design-only and the judge-assisted estimates instead
(:mod:`stats_cli.commands.estimate_file`).

For review designs run outside the tool: each ``--stratum N:n:errors`` is one stratum (N items,
n of them drawn at random and reviewed, ``errors`` found). One stratum is a simple random sample
and gives the exact hypergeometric interval (``exact_low``/``exact_high`` of ``audit-stats bounds --population N``). Strata given with ``--flagged`` are the
ones the detector flagged; with both kinds the detector's precision, recall and the errors left
among unflagged items are printed too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from stats_cli.commands.estimate_file import estimate_file
from stats_cli.commands.offline_options import FormatOpt, JsonOpt, fail
from stats_cli.stats.detector import detector_estimates
from stats_cli.stats.error_rate import RateEstimate, StratumCount, estimate_rate, parse_stratum
from stats_cli.commands.output import print_json, print_table, stdout

StratumOpt = Annotated[Optional[list[str]], typer.Option(
    "--stratum", help="A stratum as N:n:errors (or name=N:n:errors); repeat for each stratum.")]
FlaggedOpt = Annotated[Optional[list[str]], typer.Option(
    "--flagged", help="A stratum of flagged items, N:n:errors; the --stratum ones are then the unflagged.")]


def _parse(texts: list[str], prefix: str) -> list[StratumCount]:
    out = []
    for i, text in enumerate(texts):
        count = parse_stratum(text)
        out.append(count if count.name else StratumCount(count.population, count.sample, count.errors,
                                                          f"{prefix} {i + 1}" if len(texts) > 1 else prefix))
    return out


def _print_rate(title: str, result: RateEstimate) -> None:
    rows = [[s.name, s.population, s.sample, s.errors, 100 * s.weight, 100 * s.rate, 100 * s.low, 100 * s.high]
            for s in result.strata]
    rows.append(["whole population", result.population, result.sample, sum(s.errors for s in result.strata), 100.0,
                 100 * result.rate, 100 * result.low, 100 * result.high])
    print_table(title, ["stratum", "N", "n", "errors", "weight %", "rate %", "low %", "high %"], rows,
                caption=f"{100 * result.confidence:g}% interval: {result.method}")
    stdout.print(f"estimated errors in the population: {result.errors_estimate:.1f} "
                 f"({result.errors_low:.1f}–{result.errors_high:.1f})", highlight=False)


def estimate(
    file: Annotated[Optional[Path], typer.Argument(
        exists=True, dir_okay=False, readable=True,
        help="CSV, TSV or JSONL, one row per audited item: id, score (the judges' P(label wrong)), wrong "
             "(1/0 reviewed, blank otherwise), p (inclusion probability; blank for a simple random sample).")] = None,
    stratum: StratumOpt = None,
    flagged: FlaggedOpt = None,
    confidence: Annotated[float, typer.Option(help="Confidence level.")] = 0.95,
    json_out: JsonOpt = False,
    format: FormatOpt = None,
) -> None:
    """Design-weighted error rate with its interval, and the estimated number of errors in the population.

    With FILE: the design-only estimate beside the one that adds the judges' scores on every item.
    """
    if file is not None:
        if stratum or flagged:
            raise fail("give either FILE or --stratum/--flagged, not both")
        if not 0.0 < confidence < 1.0:
            raise fail(f"confidence must be in (0, 1), got {confidence}")
        estimate_file(file, fmt=format, confidence=confidence, json_out=json_out)
        return
    try:
        plain = _parse(stratum or [], "unflagged" if flagged else "stratum")
        marked = _parse(flagged or [], "flagged")
        result = estimate_rate(marked + plain, confidence=confidence)
        detector = detector_estimates(marked, plain, confidence=confidence) if marked and plain else None
    except ValueError as exc:
        raise fail(str(exc)) from None
    if json_out:
        print_json({**result.to_json(), **({"detector": detector.to_json()} if detector else {})})
        return
    _print_rate(f"Error rate ({len(result.strata)} stratum/strata)", result)
    if detector is None:
        return
    recall = detector.recall
    rows = [["precision among flagged", 100 * detector.precision.rate, 100 * detector.precision.low,
             100 * detector.precision.high],
            ["recall (share of errors flagged)", None if recall.rate is None else 100 * recall.rate,
             100 * recall.low, 100 * recall.high],
            ["errors left among unflagged (count)", detector.errors_left, detector.unflagged.errors_low,
             detector.unflagged.errors_high]]
    print_table("Detector", ["", "estimate", "low", "high"], rows,
                caption="recall: Bonferroni over the sampled parts (see stats_cli.stats.detector)")


def register(app: typer.Typer) -> None:
    """Add ``estimate`` to ``app``."""
    app.command("estimate")(estimate)
