"""Per-member accounting of a run: calls, tokens, latency, errors and cost (from the price file).

Built from the :class:`~backend.scoring.results.ItemResult` stream, so `label-audit score`, the Label Studio
worker's summary (from the ledger) and the report count the same way. Token counts are the providers'
own (``usage``: OpenAI ``prompt_tokens``/``completion_tokens``, Gemini ``prompt_token_count``/
``candidates_token_count``, the local model the prompt's token count and no generated token).

A family that asks several questions per item (multi-label, spans) records one member row per question
(``member#question``); those rows count for their member x prompt, so the per-member ``cached`` counts add
up to the run's ``cache_hits``. A question asked in several option orders (single choice, preferences)
records each member's average over the orders, and keeps each order's answers in ``ItemResult.questions``:
those are the calls (:func:`answered_calls`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np

from backend.costs.prices import PriceTable
from backend.scoring.results import ItemResult, base_member_id

_INPUT_KEYS = ("prompt_tokens", "prompt_token_count", "input_tokens")
_OUTPUT_KEYS = ("completion_tokens", "candidates_token_count", "output_tokens")


def token_counts(usage: Mapping[str, Any] | None) -> tuple[int, int] | None:
    """``(input, output)`` tokens from a provider's usage record, or None when it has none."""
    if not usage:
        return None
    found_in = next((usage[k] for k in _INPUT_KEYS if isinstance(usage.get(k), (int, float))), None)
    if found_in is None:
        return None
    found_out = next((usage[k] for k in _OUTPUT_KEYS if isinstance(usage.get(k), (int, float))), 0)
    return int(found_in), int(found_out)


def provider_model(member_id: str) -> tuple[str, str]:
    """``(provider, model)`` of ``provider:model/template@vN``."""
    provider, _, rest = member_id.partition(":")
    return provider, rest.rsplit("/", 1)[0]


@dataclass
class MemberAccount:
    """One member's share of a run. ``calls`` are fresh provider calls; ``cached`` came from the cache."""

    member_id: str
    calls: int = 0
    cached: int = 0
    errors: int = 0
    skipped: int = 0  # not called: early exit had settled the item
    input_tokens: int = 0
    output_tokens: int = 0
    calls_with_tokens: int = 0
    answers_with_tokens: int = 0
    answer_tokens: list[int] = field(default_factory=lambda: [0, 0])  # over every answer, cached or not
    latencies: list[float] = field(default_factory=list)

    def add(self, member: Any) -> None:
        if member.reason == "over_budget":
            return  # never sent: --max-cost stopped the run before it
        counts = token_counts(getattr(member, "usage", None))
        if member.error is not None:
            self.errors += 1
        elif member.cached:
            self.cached += 1
        else:
            self.calls += 1
            if member.latency_s is not None:
                self.latencies.append(float(member.latency_s))
            if counts is not None:
                self.calls_with_tokens += 1
                self.input_tokens += counts[0]
                self.output_tokens += counts[1]
        if member.error is None and counts is not None:
            self.answers_with_tokens += 1
            self.answer_tokens[0] += counts[0]
            self.answer_tokens[1] += counts[1]

    def to_dict(self, prices: PriceTable | None) -> dict[str, Any]:
        provider, model = provider_model(self.member_id)
        price = prices.find(provider, model) if prices is not None else None
        lat = np.asarray(self.latencies, dtype=float)
        cost = per_10k = None
        if price is not None and self.calls_with_tokens == self.calls:
            cost = price.cost(self.input_tokens, self.output_tokens)
        if price is not None and self.answers_with_tokens:
            per_answer = price.cost(*self.answer_tokens) / self.answers_with_tokens
            per_10k = per_answer * 10_000
        return {
            "member": self.member_id, "calls": self.calls, "cached": self.cached, "errors": self.errors,
            "skipped_early_exit": self.skipped,
            "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
            "calls_with_tokens": self.calls_with_tokens,
            "latency_median_s": round(float(np.median(lat)), 4) if lat.size else None,
            "latency_p95_s": round(float(np.percentile(lat, 95)), 4) if lat.size else None,
            "latency_n": int(lat.size),
            "cost_usd": None if cost is None else round(cost, 9),
            "cost_per_10k_labels_usd": None if per_10k is None else round(per_10k, 4),
            "cost_basis": _basis(price is not None, prices, self),
        }


def _basis(priced: bool, prices: PriceTable | None, account: MemberAccount) -> str:
    if prices is None:
        return "no price file (--prices)"
    if not priced:
        return "no price for this provider/model in the price file"
    if account.calls_with_tokens < account.calls:
        return f"provider reported tokens for {account.calls_with_tokens} of {account.calls} calls: cost unknown"
    return f"provider-reported tokens x prices as of {prices.as_of or 'an undated price file'}"


def answered_calls(result: ItemResult) -> list[Any]:
    """The member answers behind ``result``, one per provider call (or cache hit).

    An item asked in several option orders keeps each order's answers in ``result.questions`` and their
    average in ``result.members``: counting the average would count one call where there were several. A
    family whose questions carry no members (multi-label, spans) has one row per question in ``members``.
    """
    if result.questions and any(q.members for q in result.questions):
        return [m for q in result.questions for m in answered_calls(q)]
    return list(result.members)


class Accountant:
    """Adds up members' usage over the results of a run, in any order."""

    def __init__(self, prices: PriceTable | None = None, member_ids: Iterable[str] = ()):
        self.prices = prices
        self.members: dict[str, MemberAccount] = {m: MemberAccount(m) for m in member_ids}

    def add(self, result: ItemResult) -> None:
        """Count one item's member answers; a family's per-question rows count for their member x prompt."""
        seen = set()
        for member in answered_calls(result):
            member_id = base_member_id(member.member_id)
            self.members.setdefault(member_id, MemberAccount(member_id)).add(member)
            seen.add(member_id)
        if getattr(result, "stopped_early", False):
            for member_id, account in self.members.items():
                if member_id not in seen:
                    account.skipped += 1

    def spent(self) -> float:
        """USD spent on fresh calls so far (members without a price count 0)."""
        total = 0.0
        for account in self.members.values():
            provider, model = provider_model(account.member_id)
            price = self.prices.find(provider, model) if self.prices is not None else None
            if price is not None:
                total += price.cost(account.input_tokens, account.output_tokens)
        return total

    def to_dict(self) -> dict[str, Any]:
        rows = [a.to_dict(self.prices) for a in self.members.values()]
        costs = [r["cost_usd"] for r in rows]
        return {
            "members": rows,
            "cost_usd_total": None if not rows or any(c is None for c in costs) else round(sum(costs), 9),
            "prices_as_of": None if self.prices is None else self.prices.as_of,
            "price_file": self.prices is not None,
            "calls": sum(r["calls"] for r in rows),
            "input_tokens": sum(r["input_tokens"] for r in rows),
            "output_tokens": sum(r["output_tokens"] for r in rows),
        }
