"""Preferences between two responses (``<Pairwise>``): asked in both orders, each judge averaged over them.

A pairwise control says which of two responses is better: its label is ``left`` or ``right`` (the first
and second object of ``toName``), plus ``tie`` where the project allows one. LLM judges prefer a position
(the first response, or the letter A) far more often than chance; so every judge is asked twice, once
with the left response shown first (order ``ab``) and once with the right one first (``ba``), each order
lettering its options "A. Response 1 is better", "B. Response 2 is better"; the letters map back to
``left``/``right`` through each order's own label order, and :func:`backend.families.orders.merge_orders`
averages each member over both orders before the ensemble decides. A judge's *flip* (its top label
changes with the order) is its position bias, kept per order in :attr:`ItemResult.questions`.

A person's submission on Label Studio 1.23.2 reads back as
``{"from_name": "pw", "to_name": "pw", "type": "pairwise", "value": {"selected": "left"}}`` (docs/controls.md).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from backend.controls.control_type import SpecContext
from backend.controls.element import ConfigControl
from backend.task.family import Question, questions_params, register_family
from backend.families.answers import control_answer
from backend.families.single import NominalFamily
from backend.task.generic import derived_options, generic_spec
from backend.task.option_orders import EXTRA_KEY as ORDERS_KEY
from backend.task.spec import ChoiceBinding, PromptText
from backend.scoring.ensemble import VerdictRule
from backend.families.orders import merge_orders

if TYPE_CHECKING:
    from backend.task.dataset import Item
    from backend.scoring.results import ItemResult
    from backend.task.spec import TaskSpec

__all__ = ["LEFT", "ORDERS", "PairwiseFamily", "RIGHT", "TIE", "control_spec", "pair_fields"]

LEFT, RIGHT, TIE = "left", "right", "tie"
#: The two orders: the left response first, then the right one first.
ORDERS = ("ab", "ba")
#: Template variables of the two responses in a question (neutral names: a data field's own name, such as
#: ``chosen``, could tell the judge which one the annotator preferred).
FIRST, SECOND = "response_1", "response_2"
SHOWN = {LEFT: "Response 1 is better", RIGHT: "Response 2 is better", TIE: "Both are equally good"}
#: ``extra`` key holding the spec variables of the (left, right) responses.
PAIR_KEY = "pair"


def pair_fields(spec: "TaskSpec") -> tuple[str, str]:
    """The spec's (left, right) template variables (``extra["pair"]``)."""
    pair = tuple(spec.extra.get(PAIR_KEY) or ())
    if len(pair) != 2 or any(v not in spec.fields for v in pair):
        raise ValueError(f"a pairwise spec names its two responses among its fields: extra['pair'] = {pair!r}")
    return pair  # type: ignore[return-value]


def control_spec(ctrl: ConfigControl, ctx: SpecContext) -> "TaskSpec":
    """A ``<Pairwise>``'s spec (its builder in :mod:`backend.controls.pairwise`): a preference between the two
    objects of ``toName`` (left, right); the other inputs are context. ValueError with the reason.

    The spec keeps its option orders for its two order questions, which are never calibrated (both orders
    already cancel the position lean): ``ctx.calibration`` is not read."""
    inputs = ctx.inputs
    by_name = {obj.name: obj for obj in inputs}
    pair = [n.strip() for n in ctrl.to_name.split(",") if n.strip()]
    if len(pair) != 2 or any(n not in by_name for n in pair):
        raise ValueError(f"<Pairwise name={ctrl.name!r}> compares toName={ctrl.to_name!r}: it needs two inputs of the "
                         "config bound to data fields")
    left, right = by_name[pair[0]].field, by_name[pair[1]].field
    if left == right:
        raise ValueError(f"<Pairwise name={ctrl.name!r}> compares field {left!r} with itself")
    if by_name[pair[0]].is_image or by_name[pair[1]].is_image:
        raise ValueError(f"<Pairwise name={ctrl.name!r}> compares images: only text responses are compared")
    fields = [f for f in dict.fromkeys(obj.field for obj in inputs) if f not in (left, right)] + [left, right]
    labels = (LEFT, RIGHT)
    binding = ChoiceBinding(from_name=ctrl.name, to_name=ctrl.to_name, labels=labels,
                            shown=("the left response", "the right response"), kind="pairwise")
    spec = generic_spec(labels=labels, fields=fields, family="nominal", name=ctx.name, guidelines=ctx.guidelines,
                        titles=ctx.titles, question=ctrl.title or "Which response is better?",
                        label_field=ctx.label_field, binding=binding, option_orders=ctx.option_orders)
    return replace(spec, family="pairwise", extra={ORDERS_KEY: spec.extra[ORDERS_KEY], PAIR_KEY: (left, right)})


@register_family
class PairwiseFamily(NominalFamily):
    """``left`` / ``right`` (/ ``tie``); two questions, one per order, merged per member."""

    name = "pairwise"
    ambiguous_choice = False  # the expert clicks a response: no extra choice to offer
    confident_learning = False
    preference = True
    one_text = False
    lacks = {"one_text": "a preference compares two responses: the probes plant a single label in one text, and "
                         "p_d stratification needs several annotations of one answer per item"}

    def check_spec(self, spec: "TaskSpec") -> None:
        if spec.labels[:2] != (LEFT, RIGHT) or not set(spec.labels) <= {LEFT, RIGHT, TIE}:
            raise ValueError(f"a pairwise control's labels are left, right (and tie), got {list(spec.labels)}")
        pair_fields(spec)

    # -- questions -------------------------------------------------------------------------------------
    def questions(self, spec: "TaskSpec") -> tuple[Question, ...]:
        return tuple(Question(order, self._order_spec(spec, order)) for order in ORDERS)

    def _order_spec(self, spec: "TaskSpec", order: str) -> "TaskSpec":
        left, right = pair_fields(spec)
        text = spec.prompt or PromptText()
        first, second = (left, right) if order == "ab" else (right, left)
        context = {var: spec.fields[var] for var in spec.fields if var not in (left, right)}
        fields = {**context, FIRST: spec.fields[first], SECOND: spec.fields[second]}
        labels = [LEFT, RIGHT] if order == "ab" else [RIGHT, LEFT]
        if TIE in spec.labels:
            labels.append(TIE)
        shown = [SHOWN[LEFT], SHOWN[RIGHT]] + ([SHOWN[TIE]] if TIE in spec.labels else [])
        titles = {var: text.titles.get(var, var) for var in context} | {FIRST: "Response 1", SECOND: "Response 2"}
        question = text.question or "Which response is better?"
        return generic_spec(labels=labels, fields=fields, family="nominal", name=f"{spec.name}#{order}",
                            guidelines=text.guidelines, shown=shown, titles=titles, question=question,
                            label_field=spec.label_field, id_field=spec.id_field,
                            option_orders=derived_options(spec)["option_orders"],
                            calibration="none")  # both orders already cancel the position lean

    def question_item(self, spec: "TaskSpec", question: Question, item: "Item") -> "Item":
        """The item's inputs under the order's variables: context first, then the two responses in order."""
        left, right = pair_fields(spec)
        first, second = (left, right) if question.key == "ab" else (right, left)
        fields = {var: text for var, text in item.fields.items() if var not in (left, right)}
        fields[FIRST], fields[SECOND] = item.fields.get(first, ""), item.fields.get(second, "")
        return replace(item, fields=fields)

    def split(self, spec: "TaskSpec", value: str) -> dict[str, str]:
        return {order: value for order in ORDERS}

    def encode(self, spec: "TaskSpec", parts: Mapping[str, str]) -> str:
        return parts[ORDERS[0]]

    def assemble(self, spec: "TaskSpec", item: "Item", answers: Sequence["ItemResult"], *,
                 rules: Sequence[Any] = ()) -> "ItemResult":
        first = rules[0] if rules else None
        rule = VerdictRule(spec, threshold=getattr(first, "threshold", None), delta=getattr(first, "delta", None),
                           **({"quorum": first.quorum} if first is not None else {}))
        return merge_orders(item, answers, keys=ORDERS, rule=rule, labels=spec.labels)

    def prompt_params(self, spec: "TaskSpec") -> dict[str, str]:
        """The first order's values (the templates' placeholders) and both orders', keyed by order (they enter
        the ensemble fingerprint: a new wording is a new model version)."""
        return questions_params(self.questions(spec))

    # -- Label Studio ----------------------------------------------------------------------------------
    def read_result(self, spec: "TaskSpec", result: Sequence[Any]) -> str | None:
        """The side the control's region selects (under ``selected``, not under its type); None without a region;
        ValueError for a selection that is none of the spec's labels ("both", a "tie" the project does not
        allow, ``null``) or two regions selecting different sides."""
        control = spec.binding.from_name if spec.binding else ""
        if not control:
            return None
        return control_answer(result, control=control, kind="pairwise", key="selected", labels=spec.labels,
                              read=lambda raw: self.normalize_label(spec, raw) if isinstance(raw, str) else None)

    def write_result(self, spec: "TaskSpec", value: str) -> list[dict[str, Any]]:
        """A ``pairwise`` region whose ``to_name`` is the first compared object: Label Studio 1.23.2's prediction
        import rejects the control's own name (what a person's submission carries) and ``"a,b"``, and accepts
        and pre-selects one object of ``toName`` (measured, docs/controls.md). ``tie`` is never written: the
        labelling view fails on it."""
        if value not in (LEFT, RIGHT):
            raise ValueError(f"a pairwise result selects left or right, not {value!r}")
        name = spec.binding.from_name if spec.binding else "pairwise"
        first = (spec.binding.to_name if spec.binding else name).split(",")[0].strip()
        return [{"value": {"selected": value}, "from_name": name, "to_name": first, "type": "pairwise"}]

    def show_answer(self, spec: "TaskSpec", value: str) -> str:
        """As the expert's view titles the two responses (Response 1 is the left one)."""
        return {LEFT: "Response 1", RIGHT: "Response 2", TIE: "a tie"}.get(value, value)

    def describe_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        return "preferred response != original (each judge asked in both orders, averaged)"

    def short_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        return ", both orders"
