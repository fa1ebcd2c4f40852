"""The two question specs of a span project, and question -> engine item.

Both are generic specs (lettered options, the project's guidelines, each label's hint), so the
engine, cache, quorum, early exit and flag rule judge a span question exactly as any classification
item. The entity types come from the config (trusted, unfenced); the span, its text and the two
extents are item data (fenced).
"""

from __future__ import annotations

from backend.task.dataset import Item
from backend.task.generic import generic_spec
from backend.spans.config import SpanControl
from backend.spans.model import NOT_AN_ENTITY
from backend.spans.questions import EXTENT_OPTIONS, SpanQuestion, question_fields
from backend.task.spec import TaskSpec

TYPE_QUESTION = ("Which option describes the span shown under 'Span', marked «like this» in the text? "
                 "Answer 'not an entity' when it names none of the entity types.")
BOUNDARY_QUESTION = ("The same entity is marked «like this» with two different extents. Which extent covers "
                     "exactly the whole entity, no more and no less?")
NOT_AN_ENTITY_HINT = "the span does not name an entity of any listed type"


def type_spec(control: SpanControl, *, guidelines: str = "", name: str = "spans", option_orders: int | None = None,
              calibration: str | None = None) -> TaskSpec:
    """The spec of ``type`` and ``missed`` questions: entity types + "not an entity" (``option_orders`` and
    ``calibration``: the span spec's own, :func:`backend.task.generic.derived_options`; None: the defaults)."""
    return generic_spec(
        labels=(*control.labels, NOT_AN_ENTITY), fields=["text", "span"], family="nominal", name=f"{name}-type",
        guidelines=guidelines, shown=(*control.shown, NOT_AN_ENTITY), hints=(*control.hints, NOT_AN_ENTITY_HINT),
        titles={"text": "Text (the span is marked «»)", "span": "Span"}, question=TYPE_QUESTION,
        negative_label=NOT_AN_ENTITY, option_orders=option_orders, calibration=calibration,
    )


def boundary_spec(*, guidelines: str = "", name: str = "spans", option_orders: int | None = None,
                  calibration: str | None = None) -> TaskSpec:
    """The spec of ``boundary`` questions: the two extents, in text order."""
    return generic_spec(
        labels=EXTENT_OPTIONS, fields=["entity_type", "extent_1", "extent_2"], family="nominal",
        name=f"{name}-boundary", guidelines=guidelines,
        titles={"entity_type": "Entity type", "extent_1": "Extent 1", "extent_2": "Extent 2"},
        question=BOUNDARY_QUESTION, option_orders=option_orders, calibration=calibration,
    )


def question_item(item_id: str, question: SpanQuestion, text: str) -> Item:
    """The engine item of one question: id ``<item id>#<question id>``, its fields and original answer."""
    return Item(id=f"{item_id}#{question.qid}", original=question.original, fields=question_fields(question, text),
                data={"item": item_id, "question": question.qid, "kind": question.kind})


def split_question_id(qitem_id: str) -> tuple[str, str]:
    """``<item id>#<question id>`` -> (item id, question id); the item id may itself hold '#'."""
    item_id, sep, qid = qitem_id.rpartition("#")
    if not sep:
        raise ValueError(f"not a span question id: {qitem_id!r}")
    return item_id, qid
