"""`--max-cost`: a spending cap the engine checks before every call.

Each call reserves its estimated cost (prompt tokens by :mod:`backend.costs.tokens`, the most output
tokens it can generate) before it is sent and settles the provider-reported cost when it returns. A call
whose reservation would pass the cap is not sent, nor is any call after it: the run stops cleanly with
every finished answer cached, so running the same command again resumes without repeating a call.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping

from backend.costs.accounting import provider_model, token_counts
from backend.costs.prices import PriceTable
from backend.costs.tokens import output_tokens_per_call, token_counter


class Budget:
    """Thread-safe spending cap in USD over a :class:`PriceTable` (every member must have a price)."""

    def __init__(self, cap_usd: float, prices: PriceTable):
        if cap_usd < 0:
            raise ValueError("--max-cost must be >= 0")
        self.cap = float(cap_usd)
        self.prices = prices
        self.spent = 0.0
        self.reserved = 0.0
        self.exhausted = False
        self._lock = threading.Lock()
        self._counters: dict[int, Any] = {}

    def check_members(self, members: Any) -> None:
        """Raise ValueError naming the members the price file does not price (their cost is unknown)."""
        missing = sorted({f"{p}:{m}" for p, m in (provider_model(x.id) for x in members) if self.prices.find(p, m) is None})
        if missing:
            raise ValueError(f"--max-cost needs a price for every model; the price file has none for {', '.join(missing)}")

    def _estimate(self, member: Any, prompt: str) -> float:
        provider = member.provider
        if id(provider) not in self._counters:
            self._counters[id(provider)] = token_counter(provider)[0]
        tokens_in = self._counters[id(provider)](prompt)
        price = self.prices.find(*provider_model(member.id))
        return 0.0 if price is None else price.cost(tokens_in, output_tokens_per_call(provider))

    def reserve(self, member: Any, prompt: str) -> float | None:
        """The amount held for this call, or None when it would pass the cap (then nothing more is sent)."""
        amount = self._estimate(member, prompt)
        with self._lock:
            if self.exhausted or self.spent + self.reserved + amount > self.cap:
                self.exhausted = True
                return None
            self.reserved += amount
            return amount

    def settle(self, reserved: float, member: Any, usage: Mapping[str, Any] | None) -> None:
        """Release the reservation and add what the call cost (the estimate when no usage was reported)."""
        counts = token_counts(usage)
        price = self.prices.find(*provider_model(member.id))
        actual = reserved if counts is None or price is None else price.cost(*counts)
        with self._lock:
            self.reserved -= reserved
            self.spent += actual

    def release(self, reserved: float) -> None:
        """A call that failed: providers do not bill errors, so nothing is added."""
        with self._lock:
            self.reserved -= reserved
