"""User-supplied prices (USD per million tokens): no price is hard-coded, prices change too often.

A price file is YAML: a list of ``{provider, model, input_per_million, output_per_million}`` entries,
or a mapping with that list under ``prices`` (and optionally ``as_of``, shown beside every cost).
See ``examples/prices.example.yaml``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml


@dataclass(frozen=True)
class Price:
    """What one model charges per million input and output tokens."""

    provider: str
    model: str
    input_per_million: float
    output_per_million: float

    def cost(self, input_tokens: float, output_tokens: float) -> float:
        return (input_tokens * self.input_per_million + output_tokens * self.output_per_million) / 1e6


@dataclass(frozen=True)
class PriceTable:
    """Prices by ``(provider, model)``; ``as_of`` is the date the user says the prices were read."""

    prices: Mapping[tuple[str, str], Price] = field(default_factory=dict)
    as_of: str | None = None
    source: str | None = None

    def find(self, provider: str, model: str) -> Price | None:
        return self.prices.get((provider, model))

    def order_key(self, provider: str, model: str) -> tuple[float, str]:
        """Cheapest first (output and input weighted alike); unpriced models go last."""
        price = self.find(provider, model)
        total = math.inf if price is None else price.input_per_million + price.output_per_million
        return (total, f"{provider}:{model}")


def _entry(raw: Any, where: str) -> Price:
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: each price is a mapping with provider, model, input_per_million, output_per_million")
    missing = [k for k in ("provider", "model", "input_per_million", "output_per_million") if k not in raw]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}")
    try:
        values = float(raw["input_per_million"]), float(raw["output_per_million"])
    except (TypeError, ValueError):
        raise ValueError(f"{where}: prices must be numbers") from None
    if not all(math.isfinite(v) and v >= 0 for v in values):
        raise ValueError(f"{where}: prices must be finite and non-negative")
    return Price(str(raw["provider"]), str(raw["model"]), *values)


def load_prices(path: str | Path) -> PriceTable:
    """Read a price file; raises ValueError naming the bad entry, OSError when unreadable."""
    path = Path(path)
    data = yaml.safe_load(path.read_text("utf-8"))
    as_of = None
    if isinstance(data, Mapping):
        as_of = None if data.get("as_of") is None else str(data["as_of"])
        data = data.get("prices")
    if not isinstance(data, list):
        raise ValueError(f"{path}: a price file is a list of entries (or has one under 'prices')")
    table: dict[tuple[str, str], Price] = {}
    for i, raw in enumerate(data, 1):
        price = _entry(raw, f"{path} entry {i}")
        if (price.provider, price.model) in table:
            raise ValueError(f"{path} entry {i}: {price.provider}:{price.model} is priced twice")
        table[(price.provider, price.model)] = price
    return PriceTable(table, as_of=as_of, source=str(path))
