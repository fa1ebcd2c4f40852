"""One row per audited item (``id``, ``score``, ``wrong``, ``p``) → the strata of a judge-assisted estimate.

The offline form of the certified error rate (``audit-stats estimate FILE``): every audited item with the
judges' P(label wrong) as ``score``; ``wrong`` 1/0 for an item the experts reviewed, blank or null
otherwise; ``p`` its inclusion probability in the review sample (blank or null everywhere for a simple
random sample). A bad row (no id, a repeated id, a score outside [0, 1], a verdict that is not 1/0, a
probability outside (0, 1], a reviewed row without ``p`` when the others have one) is skipped with its
line and reason, never a crash.

Strata: the reviewed items' distinct inclusion probabilities (a stratified design gives each stratum
p_h = n_h / N_h). N_h is the number of rows with that p when every row carries one, else n_h / p_h
rounded. The strata's sizes must add up to the file's items (rounding absorbed by the largest
stratum); otherwise the probabilities do not describe this file and it is refused (ValueError).
Only the total of the scores enters the estimate (Σ_h W_h λ F̄_h = λ F / N), so it is spread over the
strata in proportion to their sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from stats_cli.sources.columns import as_probability
from stats_cli.sources.rows import Row, RowError
from stats_cli.stats.judge_assisted import StratumSample

__all__ = ["AuditedItems", "read_audited", "audited_strata"]

_TRUE = {"1", "true", "yes", "wrong"}
_FALSE = {"0", "false", "no", "right", "correct"}


@dataclass(frozen=True)
class AuditedItems:
    """The good rows: every item's score; the reviewed ones' verdict and inclusion probability."""

    scores: dict[str, float]
    wrong: dict[str, bool]
    p: dict[str, float]


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _verdict(value: Any) -> bool | None:
    if _blank(value):
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE or text in ("1.0",):
        return True
    if text in _FALSE or text in ("0.0",):
        return False
    raise ValueError(f"'wrong' is not 1, 0 or blank ({value!r})")


def _inclusion(value: Any) -> float | None:
    if _blank(value):
        return None
    p = as_probability(value)
    if p <= 0:
        raise ValueError("is 0: an item that could not be drawn cannot be in the sample")
    return p


def read_audited(rows: Sequence[Row], errors: list[RowError]) -> AuditedItems:
    """The good rows of an audited-items file; each bad one appended to ``errors`` with its reason."""
    scores: dict[str, float] = {}
    wrong: dict[str, bool] = {}
    p: dict[str, float] = {}
    lines: dict[str, int] = {}
    for row in rows:
        data = row.data
        try:
            item = "" if _blank(data.get("id")) else str(data["id"]).strip()
            if not item:
                raise ValueError("'id' is missing or blank")
            if item in scores:
                raise ValueError(f"id {item!r} repeats line {lines[item]}")
            if "score" not in data:
                raise ValueError("missing column 'score'")
            try:
                score = as_probability(data["score"])
            except ValueError as exc:
                raise ValueError(f"'score' {exc}") from None
            verdict = _verdict(data.get("wrong"))
            try:
                prob = _inclusion(data.get("p"))
            except ValueError as exc:
                raise ValueError(f"'p' {exc}") from None
        except ValueError as exc:
            errors.append(RowError(row.line, str(exc)))
            continue
        scores[item], lines[item] = score, row.line
        if verdict is not None:
            wrong[item] = verdict
        if prob is not None:
            p[item] = prob
    with_p = [i for i in wrong if i in p]
    if with_p and len(with_p) < len(wrong):  # a design with probabilities: a reviewed row without one is bad
        for item in [i for i in wrong if i not in p]:
            errors.append(RowError(lines[item], "'p' is blank on a reviewed row while other reviewed rows have one"))
            del wrong[item], scores[item]
    return AuditedItems(scores=scores, wrong=wrong, p=p)


def audited_strata(items: AuditedItems) -> list[StratumSample]:
    """The strata of the review design (see the module docstring); ValueError when they do not fit the file."""
    if not items.wrong:
        raise ValueError("no reviewed row: 'wrong' is blank on every row")
    total = len(items.scores)
    groups: dict[float, list[str]] = {}
    for item in items.wrong:
        groups.setdefault(round(items.p.get(item, 0.0), 12), []).append(item)
    if 0.0 in groups:  # a simple random sample
        sizes = {0.0: total}
    elif len(items.p) == total:
        counts: dict[float, int] = {}
        for value in items.p.values():
            counts[round(value, 12)] = counts.get(round(value, 12), 0) + 1
        empty = sorted(key for key in counts if key not in groups)
        if empty:
            raise ValueError(f"{counts[empty[0]]} rows have p = {empty[0]:g} and none of them was reviewed")
        sizes = {key: counts[key] for key in groups}
    else:
        sizes = {key: round(len(ids) / key) for key, ids in groups.items()}
    gap = total - sum(sizes.values())
    if abs(gap) > len(sizes):
        raise ValueError(f"the inclusion probabilities imply {sum(sizes.values())} items, the file holds {total}")
    largest = max(sizes, key=lambda k: sizes[k])
    sizes[largest] += gap
    score_total = sum(items.scores.values())
    return [StratumSample(population=sizes[key], score_total=score_total * sizes[key] / total,
                          scores=tuple(items.scores[i] for i in ids), wrong=tuple(items.wrong[i] for i in ids),
                          name="all items" if key == 0.0 else f"p = {key:g}")
            for key, ids in sorted(groups.items())]
