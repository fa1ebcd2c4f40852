"""`audit-stats estimate FILE`: the error rate from every audited item's judge score and the experts' sample.

The offline form of the certified error rate, for audits run outside Label Studio: one row per audited
item (``id``, ``score``, ``wrong``, ``p``; :mod:`stats_cli.sources.audited_items`), two estimates
(:func:`stats_cli.stats.judge_assisted.judge_assisted_rate`): the design-only one (the experts' sample
alone) and the one with the judges' scores on every item, each with its interval, and the sample sizes.
"""

from __future__ import annotations

from pathlib import Path

from stats_cli.commands.offline_options import fail, load_rows
from stats_cli.commands.output import print_result, print_table, stdout
from stats_cli.sources.audited_items import audited_strata, read_audited
from stats_cli.stats.judge_assisted import TARGETS, JudgeAssisted, judge_assisted_rate

__all__ = ["estimate_file"]


def _tables(result: JudgeAssisted, strata: list[tuple[str, int, int, int]]) -> None:
    n = result.population
    rows = [["design only (experts' sample)", 100 * result.design_only.value, 100 * result.design_only.low,
             100 * result.design_only.high, n * result.design_only.value, n * result.design_only.low,
             n * result.design_only.high],
            ["with the judges' scores", 100 * result.with_judges.value, 100 * result.with_judges.low,
             100 * result.with_judges.high, n * result.with_judges.value, n * result.with_judges.low,
             n * result.with_judges.high]]
    print_table(f"Error rate of {n} items, {result.sample} reviewed, {result.errors_found} errors found",
                ["estimate", "rate %", "low %", "high %", "errors", "low", "high"], rows,
                caption=f"{100 * result.confidence:g}% intervals")
    print_table("Strata", ["stratum", "items", "reviewed", "errors"], [list(s) for s in strata])
    if result.used_judges:
        ratio = result.width_ratio
        stdout.print(f"with the judges: λ = {result.lam:.3f}; interval "
                     f"{'' if ratio is None else f'{ratio:.2f} × '}the design-only width ({result.method})",
                     highlight=False)
    else:
        stdout.print(f"the judges are not used (λ = 0, the design-only interval): {result.reason}", highlight=False)
    for target in TARGETS:
        plan = result.reviews_for(target)
        if plan["with_judges"] is not None and plan["design_only"] is not None:
            stdout.print(f"±{100 * target:g} points: about {plan['with_judges']} reviews in all with the judges, "
                         f"{plan['design_only']} without (planned from this sample)", highlight=False)


def estimate_file(file: Path, *, fmt: str | None, confidence: float, json_out: bool) -> None:
    """Read ``file``, print both estimates; bad rows counted and reported (exit 3 after the output)."""
    rows, errors = load_rows(file, fmt)
    items = read_audited(rows, errors)
    try:
        strata = audited_strata(items)
        result = judge_assisted_rate(strata, confidence=confidence)
    except ValueError as exc:
        if not items.wrong:
            print_result(errors, json_out=json_out, payload=lambda: {"error": str(exc), "population": len(items.scores),
                                                                      "reviewed": 0},
                         tables=lambda: stdout.print(f"PENDING: {exc}", highlight=False), empty=True)
        raise fail(str(exc)) from None
    listed = [(s.name, s.population, s.sample, s.errors) for s in strata]
    print_result(errors, json_out=json_out,
                 payload=lambda: {**result.to_json(), "strata": [dict(zip(("name", "population", "reviewed", "errors"), s))
                                                                 for s in listed]},
                 tables=lambda: _tables(result, listed))
