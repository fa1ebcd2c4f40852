"""How the engine sends an item's calls under ``--early-exit`` (kept out of the engine's core loop).

Cache hits count first; then the smallest set of members that could meet the quorum goes out at once;
after that, only as many as :func:`~backend.scoring.early_exit.more_needed` proves any settling needs,
until :func:`~backend.scoring.early_exit.settled` says the rest cannot change the flag or prediction.
Members never sent stay ``lazy``: the item is marked ``stopped_early``.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from backend.scoring.early_exit import first_wave, more_needed, settled
from backend.scoring.ensemble import model_of


class EarlyExitScheduling:
    """Mixed into :class:`backend.scoring.engine.Engine`; uses its pool, ``_call``, ``_resolve`` and settings."""

    def _send(self: Any, slot: Any, inflight: dict[str, Future]) -> None:
        """Submit the slot's call, or share an identical call already in flight."""
        slot.lazy = False
        if slot.key in inflight:
            slot.future = inflight[slot.key]
            return
        slot.future = inflight[slot.key] = self._pool.submit(self._call, slot.member, slot.prompt, slot.key,
                                                             images=slot.images)
        slot.owner = True

    def _send_first_wave(self: Any, job: Any, inflight: dict[str, Future]) -> None:
        lazy = [s for s in job.slots if s.lazy]
        known = [model_of(s.member.id) for s in job.seeing if s.result is not None and s.result.ok]
        universe = [model_of(s.member.id) for s in job.seeing]  # members left out (no_vision) never count
        for slot in lazy[:first_wave(known, [model_of(s.member.id) for s in lazy], universe, self.config.quorum)]:
            self._send(slot, inflight)

    def _drive_early_exit(self: Any, job: Any, inflight: dict[str, Future]) -> bool:
        """Send the remaining members until the rest cannot change flag or prediction.

        Returns whether a fresh call was made; unsent slots stay ``lazy`` (skipped).
        """
        fresh = False
        seeing = job.seeing  # members left out of an image item (no_vision) neither answer nor count
        universe = [model_of(s.member.id) for s in seeing]
        while True:
            called = [s for s in seeing if not s.lazy]
            for slot in called:
                fresh |= self._resolve(slot, inflight)
            answers = [s.result.probs for s in called]
            job.decision = settled(answers, [model_of(s.member.id) for s in called], universe,
                                   job.entry.original, self.rule)
            lazy = [s for s in seeing if s.lazy]
            if job.decision is not None or not lazy:
                return fresh
            for slot in lazy[:more_needed(answers, len(seeing), self.spec)]:
                self._send(slot, inflight)
