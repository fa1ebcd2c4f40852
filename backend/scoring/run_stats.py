"""Run statistics: the counts of a scoring run, and the one tally that counts item results.

Every count that can be read off an :class:`~backend.scoring.results.ItemResult` (items, scored, flagged,
insufficient, suspicious, stopped early, cache hits, errors by reason and by member) is counted by
:meth:`EngineStats.add_result` and nowhere else: the engine tallies each result it yields, the ledger
summary tallies stored results (:func:`tally`), ``score --max-cost`` takes the unwritten result back
out with :meth:`EngineStats.remove_result`, and the report counts its audit overview with
:func:`tally`. So a run's summary, the audit summary rebuilt from the ledger and the report cannot
disagree on what a result counts as. Only what the results do not record (calls made, attempts, time)
is counted by the engine itself.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from backend.scoring.results import ItemResult

__all__ = ["EngineStats", "RESULT_KEYS", "tally"]


@dataclass
class EngineStats:
    """Counts of one :meth:`backend.scoring.engine.Engine.score` call (or of stored results, see :func:`tally`).

    ``llm_calls`` counts (item, member) calls sent to a provider (retries of one call count once;
    ``attempts`` counts every try); ``cache_hits`` counts answers taken from the cache or from an
    identical prompt earlier in the run; ``errors`` counts failed calls and bad input records by reason;
    ``member_errors`` the failed calls by member id and reason. ``call_seconds`` adds up the time
    spent inside providers (not the wait for a concurrency slot); ``wall_seconds`` is the run's.
    ``llm_calls``, ``attempts``, ``items_with_calls``, ``early_exit_skipped`` and the seconds are
    known only to the engine; everything else comes from :meth:`add_result`.
    """

    items: int = 0
    scored: int = 0
    flagged: int = 0
    insufficient: int = 0
    suspicious: int = 0
    llm_calls: int = 0
    cache_hits: int = 0
    attempts: int = 0
    errors: Counter = field(default_factory=Counter)
    member_errors: dict[str, Counter] = field(default_factory=dict)
    items_with_calls: int = 0
    early_exit_skipped: int = 0  # calls early exit did not make
    stopped_early: int = 0  # items it stopped before their last member
    call_seconds: float = 0.0
    wall_seconds: float = 0.0

    def add_result(self, result: ItemResult) -> None:
        """Count one item result.

        An item error is counted under its reason only when no member ran (bad input); otherwise the
        members' own reasons are counted, so a failure is never counted twice.
        """
        self._count(result, 1)

    def remove_result(self, result: ItemResult) -> None:
        """Take a counted result back out (``score --max-cost`` does not write the item it stopped at).

        Reasons whose count falls to zero disappear, as if the result had never been counted.
        """
        self._count(result, -1)
        self.errors = +self.errors
        self.member_errors = {m: +c for m, c in self.member_errors.items() if +c}

    def _count(self, result: ItemResult, step: int) -> None:
        self.items += step
        self.suspicious += step * bool(result.suspicious_text)
        self.insufficient += step * bool(result.insufficient)
        self.stopped_early += step * bool(result.stopped_early)
        if result.error is None:
            self.scored += step
            self.flagged += step * bool(result.flagged)
        elif not result.members:
            self.errors[result.error.reason] += step
        for member in result.members:
            self.cache_hits += step * bool(member.cached)
            if member.error is not None:
                self.errors[member.error.reason] += step
                self.member_errors.setdefault(member.member_id, Counter())[member.error.reason] += step

    @property
    def seconds_per_item(self) -> float | None:
        """Wall time per item that needed at least one fresh call (None when all came from the cache)."""
        return self.wall_seconds / self.items_with_calls if self.items_with_calls else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "scored": self.scored,
            "flagged": self.flagged,
            "insufficient": self.insufficient,
            "suspicious": self.suspicious,
            "llm_calls": self.llm_calls,
            "cache_hits": self.cache_hits,
            "attempts": self.attempts,
            "errors": dict(sorted(self.errors.items())),
            "member_errors": {m: dict(sorted(c.items())) for m, c in sorted(self.member_errors.items())},
            "items_with_calls": self.items_with_calls,
            "early_exit_skipped_calls": self.early_exit_skipped,
            "stopped_early": self.stopped_early,
            "call_seconds": round(self.call_seconds, 4),
            "wall_seconds": round(self.wall_seconds, 4),
            "seconds_per_item": None if self.seconds_per_item is None else round(self.seconds_per_item, 4),
            "seconds_per_call": round(self.call_seconds / self.llm_calls, 4) if self.llm_calls else None,
        }


#: The keys of :meth:`EngineStats.to_dict` that :meth:`EngineStats.add_result` counts from results.
RESULT_KEYS = ("items", "scored", "flagged", "insufficient", "suspicious", "cache_hits", "errors",
               "member_errors", "stopped_early")


def tally(results: Iterable[ItemResult]) -> EngineStats:
    """The result-level counts of ``results`` (stored or yielded), with :meth:`EngineStats.add_result`."""
    stats = EngineStats()
    for result in results:
        stats.add_result(result)
    return stats
