"""A single-choice question asked with its lettered options in several cyclic orders.

A judge that prefers a letter or a position (the first option, ``B``...) answers the same item differently
when the options come in another order. With ``N`` orders the question is asked ``N`` times, the labels
rotated by evenly spaced shifts (``round(i * k / N)`` for ``k`` labels; ``N = k``: every rotation, each label
once in every position). Each order's spec gives the labels other letters (its ``answer_tokens``, a
rotation of ``A``, ``B``, ``C``...) and the prompt lists the options by letter, each with its own text and
hint; so the lettered order enters the prompt (and the call-cache key), and
:meth:`~backend.task.spec.TaskSpec.probs_by_label` maps each order's letters back to labels. :func:`backend.families.orders.merge_orders` then averages each member over the
orders and decides with the ensemble's rule.

With ``N = k`` a preference that depends on the position alone cancels exactly (every label sits in every
position once); fewer orders cancel it in part at a fraction of the calls (``bench/bench_judges.py``
measures both). The number of orders is a setting (``LABEL_AUDIT_OPTION_ORDERS``, read by
:class:`backend.config.settings.Settings` at an edge and passed down to the spec's derivation); it travels in
the spec (``TaskSpec.extra["option_orders"]``) and in the generic prompt parameters, so the model version
changes when it changes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from backend.common.defaults import OPTION_ORDERS
from backend.task.spec import TaskSpec
from backend.task.family import Question

if TYPE_CHECKING:
    from backend.task.family import Question

__all__ = ["OPTION_ORDERS_ENV", "order_key", "order_questions", "orders_of", "rotated_spec", "shifts",
           "with_option_orders"]

OPTION_ORDERS_ENV = "LABEL_AUDIT_OPTION_ORDERS"
#: Key under which the spec carries its number of orders (read by the single-choice families only).
EXTRA_KEY = "option_orders"


def check_orders(n_orders: int) -> int:
    """``n_orders`` as an int >= 1; ValueError otherwise."""
    if isinstance(n_orders, bool) or not isinstance(n_orders, int) or n_orders < 1:
        raise ValueError(f"option orders must be an integer >= 1, got {n_orders!r}")
    return n_orders


def shifts(n_labels: int, n_orders: int) -> tuple[int, ...]:
    """The rotations asked: ``N`` evenly spaced shifts of ``k`` options (at most ``k`` distinct ones)."""
    check_orders(n_orders)
    n = min(n_orders, n_labels)
    return tuple(dict.fromkeys(round(i * n_labels / n) % n_labels for i in range(n)))


def order_key(shift: int) -> str:
    """The question key of the order rotated by ``shift`` (``o0`` is the order as given)."""
    return f"o{shift}"


def orders_of(spec: TaskSpec) -> int:
    """How many orders ``spec`` is asked in: its own setting, 1 unless its options are lettered."""
    if not spec.answer_tokens or not spec.prompt:
        return 1
    return check_orders(int(spec.extra.get(EXTRA_KEY, 1)))


def resolve_orders(value: int | str | None = None) -> int:
    """The number of orders: ``value`` (the settings' ``option_orders``, resolved at an edge), else the default."""
    if value is None:
        value = OPTION_ORDERS
    try:
        return check_orders(int(value))
    except (TypeError, ValueError):
        raise ValueError(f"{OPTION_ORDERS_ENV} / --option-orders must be an integer >= 1, got {value!r}") from None


def with_option_orders(spec: TaskSpec, n_orders: int) -> TaskSpec:
    """``spec`` asked in ``n_orders`` orders (a spec without lettered options keeps one)."""
    return replace(spec, extra={**spec.extra, EXTRA_KEY: check_orders(n_orders)})


def rotated_spec(spec: TaskSpec, shift: int) -> TaskSpec:
    """``spec`` asked once, its options shown rotated left by ``shift``: label ``j`` under letter ``j - shift``.

    The labels keep their class order (binding, negative class, ties); only the letter each is answered
    with moves, and the prompt lists the options by letter (:func:`backend.task.generic.generic_params`), so the
    label at position ``i`` of the rotation is shown as ``A`` + ``i``. A judge that reads answer tokens in
    class order (the confident-learning member) answers every order alike.
    """
    letters = tuple(spec.answer_tokens)
    k = len(letters)
    tokens = tuple(letters[(j - shift) % k] for j in range(k))
    return replace(spec, answer_tokens=tokens, extra={**spec.extra, EXTRA_KEY: 1})


def order_questions(spec: TaskSpec) -> tuple["Question", ...]:
    """One question per order (the first as given); a spec asked once gives its one plain question."""
    n = orders_of(spec)
    if n == 1:
        return (Question("", spec),)
    return tuple(Question(order_key(s), rotated_spec(spec, s), reorders=k > 0)
                 for k, s in enumerate(shifts(len(spec.labels), n)))
