"""A task family: everything that differs between label types, in one object per type.

Binary, ordinal, nominal, multi-label (and, on their own branches, spans and images) differ in a fixed
list of things: the default confidence threshold, when a prediction disagrees with the original label,
how one original label is formed from several annotations, the prompt parameters, how a Label Studio
result is read and written, how gold is formed and what the report shows. Each of those is a method of
:class:`TaskFamily`; no reader asks a family by name (the review's ambiguous choice and the confident-learning
member read :attr:`TaskFamily.ambiguous_choice` and :attr:`TaskFamily.confident_learning`): a new question
about a family belongs here as a method or an attribute.

The engine judges *questions*. A question is a single-choice :class:`~backend.task.spec.TaskSpec` (its own
labels, prompt parameters and flag rule) asked of every item, so the engine, cache, quorum, early exit and
ensemble verdict judge it exactly as they judge a single-choice item. A single-choice family asks one
question, the task itself; multi-label asks one per label ("does this label apply?"). The family splits an
item's original label into one original per question (:meth:`TaskFamily.question_original`) and assembles
the answers back into the item's verdict (:meth:`TaskFamily.assemble`), so the engine never changes for a
new family (:mod:`backend.scoring.question_engine` runs the questions).

Label values
------------
A family's label value is a string: single-choice families use the label itself; a family whose answer
is structured (a set of labels, spans) encodes it canonically (:meth:`TaskFamily.encode`/``decode``), so
the ledger, the review stores and the report keep one string per item and only the family reads inside.

How to add a family
-------------------
1. Write one module under ``backend/families/`` with a subclass of :class:`TaskFamily` (or of
   :class:`backend.families.single.SingleChoiceFamily` when an item has one label) and ``@register_family``
   on it, with a class-level ``name``.
2. Name it in its control type's ``families`` (``name: "backend.families.<module>"``, one module per tag in
   :mod:`backend.controls`); :data:`FAMILY_MODULES` is a view of them (the module is imported on first use).
3. Override what differs: :meth:`check_spec`, :meth:`questions`/:meth:`question_original`/:meth:`assemble`
   (several questions per item), :meth:`read_result`/:meth:`write_result` (Label Studio JSON), the
   review and gold methods (:meth:`gold`, :meth:`reconciled`, :meth:`disputed`, :meth:`show_answer`,
   :meth:`blind_data`: what an expert's copy of the inputs must not keep of the source's arrangement), what the
   report shows (:meth:`report_parts`, :attr:`capabilities` through the class flags, :attr:`lacks`) and the
   class attributes.
4. A family read from another Label Studio control declares that control's type in :mod:`backend.controls`
   (its tag, result type, kept attributes, and the ``spec_builder`` function in the family's module that
   builds a control's spec from its parsed element).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Mapping, Sequence, TypeVar

from backend.controls.registry import family_modules
from backend.task.marks import mark_result

if TYPE_CHECKING:  # the spec imports this module; the families only need the types
    from xml.etree.ElementTree import Element

    from backend.task.dataset import Item
    from backend.scoring.results import ItemResult
    from backend.task.spec import TaskSpec

__all__ = ["FAMILY_MODULES", "Question", "TaskFamily", "family_names", "get_family", "questions_params",
           "register_family"]

#: Family name -> module whose class registers itself under that name when imported: a view of the control
#: registry (each control type names its families, :mod:`backend.controls`), plus the family of a project
#: with several controls, which no single tag has.
FAMILY_MODULES: dict[str, str] = {**family_modules(), "controls": "backend.families.controls"}

_FAMILIES: dict[str, "TaskFamily"] = {}
T = TypeVar("T", bound=type)


@dataclass(frozen=True)
class Question:
    """One single-choice question a family asks of every item.

    ``key`` names it within the item (``""`` for the one question of a single-choice family, the label for
    a multi-label question); ``spec`` is what the engine judges (labels, prompts, flag rule, threshold).
    """

    key: str
    spec: "TaskSpec"
    #: Asked only of items whose original answer to it exists (a control shown under a condition, or a
    #: question that means nothing without an original); the others get a ``not_shown`` result, no call.
    conditional: bool = False
    #: The first question again, its options in another order (:mod:`backend.task.option_orders`): a member
    #: whose answer does not depend on the order (its provider's ``reads_order`` is False, as the
    #: confident-learning member's) answers the first order only instead of repeating the same answer.
    reorders: bool = False


class TaskFamily:
    """The behaviour of one label type (see the module docstring). Instances are stateless singletons.

    Every method takes the task's spec first, so one instance serves every project of its family.
    """

    name: ClassVar[str] = ""
    #: Confidence a flag must exceed when the run sets no threshold.
    default_threshold: ClassVar[float] = 0.5
    #: Level of Krippendorff's alpha on the labels ("nominal" or "ordinal").
    agreement_level: ClassVar[str] = "nominal"
    #: Several labels per item (a set): the report adds its set statistics.
    multi_valued: ClassVar[bool] = False
    #: One label per item out of ``spec.labels``, and every member one distribution over them per item (the
    #: question asked once, or in several option orders and averaged): the truth model and the triage read it.
    single_label: ClassVar[bool] = False
    #: Labels are ordered grades: closeness counts (median of annotators, Pearson r, "who is closer").
    ordered: ClassVar[bool] = False
    #: Exactly two classes, one of them positive (positive agreement, ROC AUC of models).
    two_class: ClassVar[bool] = False
    #: A project may be judged with a built-in spec's prompts when its fields and labels fit one.
    builtin_specs: ClassVar[bool] = False
    #: Edges of the report's confidence bands for flagged items (from the default threshold up).
    confidence_bands: ClassVar[tuple[float, ...]] = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    #: The label value is a list of text spans (NER): the report adds its span section.
    span_valued: ClassVar[bool] = False
    #: The blind review may offer "more than one answer may be right" (one label out of unordered classes, read
    #: from one ``<Choices>``: :mod:`backend.review.ambiguous`).
    ambiguous_choice: ClassVar[bool] = False
    #: A confident-learning member applies: one single-choice label per item, learnt from the item's text, its
    #: classes taken as unordered (:mod:`backend.scoring.confident_template`).
    confident_learning: ClassVar[bool] = False
    #: The answers are preferences between responses (left / right / tie): the report's pairwise section.
    preference: ClassVar[bool] = False
    #: An answer is about one text: a probe can plant a label in it, p_d stratifies by its annotations.
    one_text: ClassVar[bool] = True
    #: Why a report section that needs a capability this family lacks does not apply (capability -> reason);
    #: a capability missing here gets the section's own reason. Sections name what they need
    #: (``ReportSection.needs`` in ``stats_cli/report/registry.py``), families never name sections.
    lacks: ClassVar[Mapping[str, str]] = {}
    #: Capabilities of this family's own beyond the flags above (a ranking's ``ranking``): the report section
    #: that reads them names them in its ``needs``, and no other file has to.
    own_capabilities: ClassVar[frozenset[str]] = frozenset()

    @property
    def capabilities(self) -> frozenset[str]:
        """What the family's answers are, as the report's sections ask: ``one_label`` (one label per item, one
        distribution per member), ``one_text``, ``ordered`` (grades), ``set``, ``span``, ``preference``, and the family's ``own_capabilities``."""
        flags = {"one_label": self.single_label, "one_text": self.single_label and self.one_text,
                 "ordered": self.ordered, "set": self.multi_valued, "span": self.span_valued,
                 "preference": self.preference}
        return frozenset(name for name, has in flags.items() if has) | self.own_capabilities

    # -- the spec --------------------------------------------------------------------------------------
    def check_spec(self, spec: "TaskSpec") -> None:
        """Raise ValueError when ``spec`` is not a valid task of this family."""

    def default_negative(self, spec: "TaskSpec") -> str:
        """The "nothing here" class when the spec names none (``""``: none)."""
        return ""

    def normalize_label(self, spec: "TaskSpec", value: Any) -> str | None:
        """A raw original label (a file's value, a Label Studio choice) -> the family's label value or None."""
        raise NotImplementedError

    def original_label(self, spec: "TaskSpec", labels: Iterable[str | None]) -> str | None:
        """One original label value from several annotators' (normalised) values; None when nobody labelled."""
        raise NotImplementedError

    def encode(self, spec: "TaskSpec", parts: Mapping[str, str]) -> str:
        """The label value whose per-question labels are ``parts`` (inverse of :meth:`split`)."""
        raise NotImplementedError

    def split(self, spec: "TaskSpec", value: str) -> dict[str, str]:
        """A label value -> its label per question key (single-choice: ``{"": value}``)."""
        raise NotImplementedError

    # -- questions -------------------------------------------------------------------------------------
    def questions(self, spec: "TaskSpec") -> tuple[Question, ...]:
        """The single-choice questions the engine asks of every item (at least one)."""
        return (Question("", spec),)

    def question_item(self, spec: "TaskSpec", question: Question, item: "Item") -> "Item":
        """The item as ``question`` reads it (its inputs under the question spec's variables); default: as is.

        A pairwise question in the swapped order shows the second response first
        (:mod:`backend.families.pairwise`)."""
        return item

    def question_original(self, spec: "TaskSpec", question: Question, original: str | None) -> str | None:
        """The item's original label as an answer to ``question`` (None: unlabelled)."""
        return None if original is None else self.split(spec, original).get(question.key)

    def assemble(self, spec: "TaskSpec", item: "Item", answers: Sequence["ItemResult"], *,
                 rules: Sequence[Any] = ()) -> "ItemResult":
        """The item's verdict from its questions' verdicts (one per :meth:`questions`, same order).

        ``rules`` holds each question's :class:`~backend.scoring.ensemble.VerdictRule` (same order), for a
        family that decides again over merged answers (:mod:`backend.families.orders`)."""
        if len(answers) != 1:
            raise ValueError(f"family {self.name!r} asks one question, got {len(answers)} answers")
        return answers[0]

    def make_engine(self, spec: "TaskSpec", members: Sequence[Any], **options: Any) -> Any | None:
        """An engine of the family's own, for questions that depend on the item (spans); None: the
        questions of :meth:`questions` are asked of every item (:func:`backend.scoring.question_engine.make_engine`)."""
        return None

    # -- verdict ---------------------------------------------------------------------------------------
    def disagrees(self, spec: "TaskSpec", prediction: str, original: str | None, *, delta: int | None = None) -> bool:
        """Whether ``prediction`` disagrees with ``original`` (None never disagrees)."""
        raise NotImplementedError

    def describe_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        """The flag rule in words, for summaries and reports."""
        return "prediction != original"

    def short_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        """What the flag rule adds to "avg ≥ t" in the prediction's name (``", |Δ| > 1"``); "" for none."""
        return ""

    def prompt_params(self, spec: "TaskSpec") -> dict[str, str]:
        """Trusted template values of the task (from its configuration, never from an item)."""
        raise NotImplementedError

    # -- Label Studio ----------------------------------------------------------------------------------
    def read_result(self, spec: "TaskSpec", result: Sequence[Any]) -> str | None:
        """An annotation's ``result`` list -> the label value it gives for the spec's control, or None when it gives
        none; a family may raise ValueError (the reason) for an answer that is none of its labels, which makes the
        task that item's ``bad_label`` error (:mod:`backend.labelstudio.tasks`)."""
        raise NotImplementedError

    def write_result(self, spec: "TaskSpec", value: str) -> list[dict[str, Any]]:
        """The ``result`` list that selects label value ``value`` in the project's control."""
        raise NotImplementedError

    def marked_result(self, spec: "TaskSpec", result: "ItemResult", *, model_version: str) -> list[dict[str, Any]]:
        """The prediction's ``result`` list, flagged regions marked for the suspects tab."""
        return mark_result(self.write_result(spec, str(result.prediction)), flagged=bool(result.flagged),
                           model_version=model_version)

    # -- review and gold -------------------------------------------------------------------------------
    def show_answer(self, spec: "TaskSpec", value: str) -> str:
        """A label value as an expert reads it in a reconciliation task ("Expert A: ...")."""
        return value

    def review_config(self, spec: "TaskSpec", label_config: "str | Element", *,
                      answer_fields: Sequence[str] = ()) -> str | None:
        """A review config of the family's own (spans: a ``<Labels>`` view); None: the choices view of
        :func:`backend.labelstudio.expertview.expert_label_config`. ``label_config``: the XML or its tree already
        parsed (the review's source project holds it)."""
        return None

    def blind_data(self, spec: "TaskSpec", data: Mapping[str, Any], *, seed: str,
                   original: str | None = None) -> dict[str, Any]:
        """An expert's copy of one task's inputs (``data``: under the blind view's keys). A family whose inputs
        can carry the answer in their arrangement rearranges them (a ranking's list stored in ranked order:
        :mod:`backend.families.ranker_blind`), the same way for the same ``seed`` so a re-push imports the same
        copy; ``original`` is the answer under review, so the copy can avoid showing it. Default: unchanged."""
        return dict(data)

    def disputed(self, spec: "TaskSpec", answers: Sequence[str], *, delta: int | None = None) -> tuple[str, ...]:
        """The question keys the experts' answers split on (what round 2 settles); ``delta`` overrides an
        ordinal family's distance."""
        return ("",) if len(set(answers)) > 1 else ()

    def agreed(self, spec: "TaskSpec", answers: Sequence[str]) -> str:
        """The value answers that do not split stand for (equal answers: that answer)."""
        return answers[0]

    def reconciled(self, spec: "TaskSpec", round1: Sequence[str], round2: str) -> str:
        """The resolution after round 2 from the round-1 answers and the round-2 agreed answer."""
        return round2

    def flipped(self, spec: "TaskSpec", result: Any, threshold: float) -> str | None:
        """The label a training set gets when `sync-gold --mode flip` flips an unreviewed flagged item."""
        return result.prediction

    def export(self, spec: "TaskSpec", value: str) -> Any:
        """A label value as a JSON file carries it (single-choice: the label; multi-label: a list)."""
        return value

    def gold(self, spec: "TaskSpec", *, original: str, prediction: str, resolution: str,
             asked: Sequence["ItemResult"] = ()) -> str:
        """The gold value of an item the ensemble disputes: single-choice, the experts' resolution. ``asked``:
        the item's question verdicts, for a family whose questions depend on the item (spans rebuild them)."""
        return resolution

    # -- report ----------------------------------------------------------------------------------------
    def report_parts(self, spec: "TaskSpec", value: str | None) -> dict[str, str] | None:
        """Per-part labels the report tabulates (multi-label: label -> "yes"/"no"); None: the value itself."""
        return None


def questions_params(questions: Sequence[Question]) -> dict[str, str]:
    """The first question's template values (what the templates' placeholders need) and every question's,
    keyed ``#<question key>:<name>``: all of them enter the ensemble fingerprint, so editing any question's
    wording (a label's hint, an order's options) changes the model version."""
    first = questions[0].spec
    params = first.task_family.prompt_params(first)
    for q in questions:
        for name, value in q.spec.task_family.prompt_params(q.spec).items():
            params[f"#{q.key}:{name}"] = value
    return params


def register_family(cls: T) -> T:
    """Class decorator: make an instance of ``cls`` the family named ``cls.name``."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"{cls.__name__} needs a class-level name to register")
    _FAMILIES[name] = cls()
    return cls


def family_names() -> tuple[str, ...]:
    """Every family that exists (built-in and registered), in a stable order."""
    return tuple(dict.fromkeys([*FAMILY_MODULES, *_FAMILIES]))


def get_family(name: str) -> TaskFamily:
    """The family named ``name``; ValueError listing the known ones."""
    if name not in _FAMILIES and name in FAMILY_MODULES:
        importlib.import_module(FAMILY_MODULES[name])
    family = _FAMILIES.get(name)
    if family is None:
        raise ValueError(f"family must be one of {', '.join(family_names())}, got {name!r}")
    return family
