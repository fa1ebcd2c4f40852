"""The spec of a ``<Ranker>``: the ``<List>`` it ranks, its ``<Bucket>`` columns, the inputs shown as context.

Label Studio's *LLM Ranker* template (``generative-ai/llm-ranker``) shows a task and a prompt as ``<Text>``, a
``<List name="answers" value="$items">`` and ``<Ranker name="rank" toName="answers">`` with two buckets. The
spec keeps the list's variable (its field holds the list as JSON text: ``JSON_FIELDS_KEY``), the list's name
(the ``to_name`` a result carries) and the buckets in config order (the first is the best,
:mod:`backend.families.ranker`); the other inputs are the context every pair question shows.
"""

from __future__ import annotations

from dataclasses import replace

from backend.families.pairwise import LEFT, RIGHT
from backend.families.ranker import RANKER_KEY
from backend.controls.control_type import SpecContext
from backend.controls.element import ConfigControl
from backend.task.dataset import JSON_FIELDS_KEY
from backend.task.generic import generic_spec
from backend.task.spec import ChoiceBinding, TaskSpec

__all__ = ["control_spec"]


def control_spec(ctrl: ConfigControl, ctx: SpecContext) -> TaskSpec:
    """A ``<Ranker>``'s spec, family ``ranker`` (its builder in :mod:`backend.controls.ranker`); ValueError with
    the reason (no ``<List>`` named by ``toName``, a bucket without a name). ``ctx.root``: the parsed config,
    where the ranker's ``<Bucket>`` children are. Its pair questions ask both orders and are never calibrated
    (both orders already cancel the position lean): ``ctx.calibration`` is not read."""
    inputs = ctx.inputs
    lists = {obj.name: obj for obj in inputs if obj.tag == "List"}
    target = ctrl.to_name.strip()
    if target not in lists:
        raise ValueError(f"<Ranker name={ctrl.name!r}> ranks toName={ctrl.to_name!r}: it needs a <List> of the "
                         "config bound to a data field (value=\"$items\")")
    elem = next(e for e in ctx.root.iter("Ranker") if e.get("name") == ctrl.name)
    buckets = [(b.get("name", ""), b.get("title") or b.get("name", "")) for b in elem.iter("Bucket")]
    if any(not b for b, _ in buckets) or len({b for b, _ in buckets}) != len(buckets):
        raise ValueError(f"<Ranker name={ctrl.name!r}> has a <Bucket> without a name or two with one name")
    variable = lists[target].field
    context = [obj.field for obj in inputs if obj.tag != "List" and not obj.is_image]
    fields = [*dict.fromkeys(f for f in context if f != variable), variable]
    binding = ChoiceBinding(from_name=ctrl.name, to_name=target, labels=(LEFT, RIGHT),
                            shown=("ranked above", "ranked below"), kind="ranker")
    spec = generic_spec(labels=(LEFT, RIGHT), fields=fields, family="nominal", name=ctx.name,
                        guidelines=ctx.guidelines, titles=ctx.titles,
                        question=ctrl.title or "Which response is better?", label_field=ctx.label_field,
                        binding=binding, option_orders=ctx.option_orders)
    setup = (variable, target, tuple(b for b, _ in buckets), tuple(t for _, t in buckets))
    return replace(spec, family="ranker", extra={**spec.extra, RANKER_KEY: setup, JSON_FIELDS_KEY: (variable,)})
