"""In how many orders a multi-label task asks each label's yes/no question: the setting, carried in the spec.

A multi-label item is one binary question per label, options "A. Yes" / "B. No". A judge that leans towards
``A`` (or the first option) then leans towards *yes* on every label. Asked in two orders (the second shows
"A. No" / "B. Yes"), each member's answers are averaged over both, exactly as a single-choice question's
option orders are (:func:`backend.task.option_orders.order_questions` builds the orders,
:func:`backend.families.orders.merge_orders` averages them).

Why a setting of its own rather than ``LABEL_AUDIT_OPTION_ORDERS``: that one defaults to 2 and changing what it
means for multi-label would double every multi-label audit's calls (labels x prompts x items) before the gain
was measured; single-choice and multi-label projects of one deployment can also want different answers. A
yes/no question has two options, so the accepted values are 1 and 2 (more orders would repeat these two).

The setting (``LABEL_AUDIT_MULTILABEL_ORDERS``) is read by :class:`backend.config.settings.Settings` at an edge
and passed down to the spec's derivation. The spec carries it as ``extra["multilabel_orders"]`` only when it is
not 1, so a spec derived with one order is the spec derived before the setting existed (same model version,
same cached calls); the family adds it to the prompt parameters, so two settings never share a model version.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from backend.common.defaults import MULTILABEL_ORDERS
from backend.task.spec import TaskSpec

__all__ = ["ACCEPTED", "EXTRA_KEY", "MULTILABEL_ORDERS_ENV", "check_multilabel_orders", "multilabel_extra",
           "multilabel_orders_of", "resolve_multilabel_orders", "with_multilabel_orders"]

MULTILABEL_ORDERS_ENV = "LABEL_AUDIT_MULTILABEL_ORDERS"
#: Key under which a multi-label spec carries its number of orders (absent: one).
EXTRA_KEY = "multilabel_orders"
#: The values the setting takes: a yes/no question has two orders of its options.
ACCEPTED = (1, 2)


def check_multilabel_orders(value: Any) -> int:
    """``value`` (an int or its text) as 1 or 2; ValueError naming the setting and the accepted values otherwise."""
    try:
        number = int(str(value).strip()) if not isinstance(value, bool) else None
    except ValueError:
        number = None
    if number not in ACCEPTED:
        raise ValueError(f"{MULTILABEL_ORDERS_ENV} must be one of {', '.join(map(str, ACCEPTED))} (orders of a "
                         f"multi-label task's yes/no options), got {value!r}")
    return number  # type: ignore[return-value]


def resolve_multilabel_orders(value: Any = None) -> int:
    """The number of orders: ``value`` (the settings' ``multilabel_orders``, resolved at an edge), else the default."""
    return check_multilabel_orders(MULTILABEL_ORDERS if value is None else value)


def multilabel_extra(value: Any = None) -> dict[str, int]:
    """What a multi-label spec's ``extra`` holds for ``value``: nothing for one order (the spec as before)."""
    n = resolve_multilabel_orders(value)
    return {} if n == 1 else {EXTRA_KEY: n}


def multilabel_orders_of(spec: TaskSpec) -> int:
    """How many orders ``spec``'s yes/no questions are asked in (1 unless its spec says otherwise)."""
    return check_multilabel_orders(spec.extra.get(EXTRA_KEY, 1))


def with_multilabel_orders(spec: TaskSpec, n_orders: int) -> TaskSpec:
    """``spec`` asked in ``n_orders`` orders (1 gives back the spec without the key, as derived before)."""
    extra = {k: v for k, v in spec.extra.items() if k != EXTRA_KEY}
    return replace(spec, extra={**extra, **multilabel_extra(n_orders)})
