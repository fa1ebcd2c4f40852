"""Single-choice families: one label per item (binary, ordinal, nominal).

An item is one question, the task itself; its label value is the label. What differs between the three:
binary has exactly two labels and flags any difference; nominal (k unordered labels) flags any difference
and has no negative class unless one is named; ordinal flags a distance above ``delta`` and/or a crossing
of a class boundary (:func:`backend.scoring.ensemble.flag_rule`), takes the median of several annotations
(Nahum et al. 2024, App. A) and its default threshold is 0.2 (their confidence bins start there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

from backend.common.labels import majority_label, median_label, normalize_label as canonical_label
from backend.task.calibration_setting import calibration_of
from backend.task.family import Question, register_family, TaskFamily
from backend.task.option_orders import order_questions
from dataclasses import replace
from backend.task.generic import GENERIC_PROMPT_DIR, generic_params
from backend.scoring.ensemble import flag_rule
from backend.families.orders import merge_orders
from backend.scoring.prompting import dimension_params

if TYPE_CHECKING:
    from backend.task.dataset import Item
    from backend.scoring.results import ItemResult
    from backend.task.family import Question
    from backend.task.spec import TaskSpec

__all__ = ["BinaryFamily", "NominalFamily", "OrdinalFamily", "SingleChoiceFamily", "choice_from_result",
           "choices_result"]


def _region_dict(region: Any) -> Mapping[str, Any]:
    return region if isinstance(region, Mapping) else getattr(region, "__dict__", {})


def region_values(result: Sequence[Any] | None, *, control: str, kind: str) -> Iterator[Any]:
    """``value[kind]`` of each region of ``control`` whose type is ``kind``, read by ``from_name`` and ``type``
    (never ``to_name``: a prediction's ``to_name`` is copied into the answer, docs/controls.md). A region
    whose ``value`` is not an object is skipped."""
    for region in result or ():
        item = _region_dict(region)
        if item.get("from_name") == control and item.get("type") == kind and isinstance(item.get("value"), Mapping):
            yield item["value"].get(kind)


def choice_values(result: Sequence[Any] | None, *, control: str) -> list[str] | None:
    """Every choice picked in ``control`` in an annotation result, or None if the control is absent.

    A malformed region (``value`` not an object, ``choices`` not a list) counts as no answer: one bad
    annotation must not stop the batch it came in.
    """
    for picked in region_values(result, control=control, kind="choices"):
        if isinstance(picked, str):
            picked = [picked]
        if isinstance(picked, (list, tuple)):
            return [str(p) for p in picked]
    return None


def choice_from_result(result: Sequence[Any] | None, *, control: str) -> str | None:
    """The (first) chosen label in an annotation result, or None if the control is absent or empty."""
    picked = choice_values(result, control=control)
    return picked[0] if picked else None


def choices_result(spec: "TaskSpec", choices: Sequence[str]) -> list[dict[str, Any]]:
    """The ``result`` list selecting ``choices`` in the spec's ``<Choices>`` control."""
    binding = spec.binding
    return [{  # ``value`` first: the suspects tab shows the result as text, cut after three lines
        "value": {"choices": list(choices)},
        "from_name": binding.from_name if binding else "label",
        "to_name": binding.to_name if binding else "text",
        "type": "choices",
    }]


class SingleChoiceFamily(TaskFamily):
    """One label per item, judged as one question (the task itself)."""

    single_label = True  # option orders ask the same question again; their members are averaged

    def default_negative(self, spec: "TaskSpec") -> str:
        return spec.labels[0] if spec.numeric_labels else ""  # 0 / the lowest grade

    def normalize_label(self, spec: "TaskSpec", value: Any) -> str | None:
        """An exact label wins; otherwise the one normaliser of :mod:`backend.common.labels` decides."""
        if value is None or isinstance(value, (bool, list, dict)):
            return None
        text = str(value).strip()
        if text in spec.labels:
            return text
        canonical = canonical_label(value)
        if canonical is not None and canonical in spec.labels:
            return canonical
        try:
            float(text)
        except ValueError:
            return self._casefold(spec, text) if not spec.numeric_labels else None
        return None

    def _casefold(self, spec: "TaskSpec", text: str) -> str | None:
        folded = [lab for lab in spec.labels if lab.casefold() == text.casefold()]
        return folded[0] if len(folded) == 1 else None

    def original_label(self, spec: "TaskSpec", labels: Iterable[str | None]) -> str | None:
        return majority_label(labels, negative=spec.negative_label or None, order=spec.labels)

    def encode(self, spec: "TaskSpec", parts: Mapping[str, str]) -> str:
        return parts[""]

    def split(self, spec: "TaskSpec", value: str) -> dict[str, str]:
        return {"": value}

    def disagrees(self, spec: "TaskSpec", prediction: str, original: str | None, *, delta: int | None = None) -> bool:
        return original is not None and prediction != original

    # -- questions: the task itself, in one or several option orders (backend.task.option_orders) -------
    def questions(self, spec: "TaskSpec") -> tuple["Question", ...]:
        """The task itself, asked once per option order (lettered options rotated; ordered grades once)."""
        return (Question("", spec),) if self.ordered else order_questions(spec)

    def question_original(self, spec: "TaskSpec", question: "Question", original: str | None) -> str | None:
        """Every order asks the same question: the item's label is the original of each."""
        return original

    def assemble(self, spec: "TaskSpec", item: "Item", answers: Sequence["ItemResult"], *,
                 rules: Sequence[Any] = ()) -> "ItemResult":
        """One order: its verdict; several: each member averaged over the orders, then the ensemble's rule."""

        if len(answers) == 1:
            return answers[0]
        questions = self.questions(spec)
        if len(answers) != len(questions) or len(rules) != len(questions):
            raise ValueError(f"{len(questions)} option orders, got {len(answers)} answers and {len(rules)} rules")
        return merge_orders(item, answers, keys=[q.key for q in questions], rule=replace(rules[0], spec=spec),
                            labels=spec.labels)

    def prompt_params(self, spec: "TaskSpec") -> dict[str, str]:
        params = dimension_params(spec)
        if spec.prompt_dir == GENERIC_PROMPT_DIR:
            params.update(generic_params(spec))
            params["option_orders"] = str(len(self.questions(spec)))  # enters the model version, not a prompt
            if calibration_of(spec) != "none":  # likewise; absent when off, so earlier versions stay as they were
                params["calibration"] = calibration_of(spec)
        return params

    def read_result(self, spec: "TaskSpec", result: Sequence[Any]) -> str | None:
        control = spec.binding.from_name if spec.binding else ""
        raw = choice_from_result(result, control=control) if control else None
        return None if raw is None else self.normalize_label(spec, raw)

    def write_result(self, spec: "TaskSpec", value: str) -> list[dict[str, Any]]:
        return choices_result(spec, [value])

    def show_answer(self, spec: "TaskSpec", value: str) -> str:
        return spec.binding.shown_for(value) if spec.binding is not None else value


@register_family
class BinaryFamily(SingleChoiceFamily):
    """Two labels; any difference disagrees."""

    name = "binary"
    two_class = True
    builtin_specs = True
    ambiguous_choice = True
    confident_learning = True
    #: The argmax of two classes always holds at least 0.5, so a cut at 0.5 flags on a hair's margin. Over the seven
    #: two-order runs of the real judge on Rotten Tomatoes whose threshold sweep is recorded (docs/judges.md,
    #: "Choosing the flag threshold"), 0.5 reached precision >= 0.5 at recall >= 0.5 on two and 0.55 on all seven;
    #: the demo (a two-class task) keeps its 9 flags. Multi-label yes/no questions are binary tasks too and take
    #: this cut (on 12 cooking questions x 5 tags: 18 tag flags at 0.17 / 0.75 became 3 at 0.67 / 0.50).
    default_threshold = 0.55

    def check_spec(self, spec: "TaskSpec") -> None:
        if len(spec.labels) != 2:
            raise ValueError("a binary task has exactly two labels")


@register_family
class NominalFamily(SingleChoiceFamily):
    """k >= 2 unordered labels; any difference disagrees; no negative class unless named."""

    name = "nominal"
    ambiguous_choice = True
    confident_learning = True
    #: Three or more classes spread the averaged answer: over four prompts x two option orders the top class of a
    #: real judge on ChaosNLI SNLI rarely passes 0.5 (48 items, 10 wrong labels: 4 flags, recall 0.20). The cut is
    #: the one that reaches precision >= 0.5 at recall >= 0.5 on the most three-class runs above 0.6 accuracy in the
    #: presentations benchmark (docs/judges.md, "Choosing the flag threshold"): 0.45 on four of the five balanced
    #: SNLI runs, 0.40 on three; with generic-definitions@v3 in the ensemble 0.45 still meets it where 0.40 does not.
    #: On two labels the top class always holds at least 0.5, so a two-label nominal task (a ranker's left/right
    #: question) flags exactly as at 0.5, not at the binary family's 0.55.
    default_threshold = 0.45

    def default_negative(self, spec: "TaskSpec") -> str:
        return ""


@register_family
class OrdinalFamily(SingleChoiceFamily):
    """Ordered grades: distance and/or boundary flag rule, median of annotations, threshold 0.2."""

    name = "ordinal"
    confident_learning = True  # its grades taken as unordered classes
    default_threshold = 0.2
    agreement_level = "ordinal"
    ordered = True
    builtin_specs = True
    confidence_bands = (0.2, 0.4, 0.6, 0.8, 1.0)

    def original_label(self, spec: "TaskSpec", labels: Iterable[str | None]) -> str | None:
        return median_label(labels, order=spec.labels, negative=spec.negative_label or None)

    def disagrees(self, spec: "TaskSpec", prediction: str, original: str | None, *, delta: int | None = None) -> bool:
        if original is None:
            return False
        rule = flag_rule(spec, delta=delta)
        pred_idx, orig_idx = spec.label_index(prediction), spec.label_index(original)
        if rule.delta is not None and abs(pred_idx - orig_idx) > rule.delta:
            return True
        if rule.boundary is not None:
            cut = spec.label_index(rule.boundary)
            return (pred_idx >= cut) != (orig_idx >= cut)
        return False

    def disputed(self, spec: "TaskSpec", answers: Sequence[str], *, delta: int | None = None) -> tuple[str, ...]:
        """Experts split when their grades lie more than the flag rule's ``delta`` apart (Likert raters one grade
        apart agree as much as the flag rule asks of the ensemble); a rule without a distance: any difference."""
        if len(set(answers)) < 2:
            return ()
        allowed = flag_rule(spec, delta=delta).delta
        if allowed is None:
            return ("",)
        grades = [spec.label_index(a) for a in answers]
        return ("",) if max(grades) - min(grades) > allowed else ()

    def agreed(self, spec: "TaskSpec", answers: Sequence[str]) -> str:
        """Grades within ``delta`` of each other stand for their median (the low one of an even count, as the
        original of several annotators)."""
        return str(self.original_label(spec, answers) or answers[0])

    def reconciled(self, spec: "TaskSpec", round1: Sequence[str], round2: str) -> str:
        """Round 1's agreed grade where the experts did not split, else the round-2 answer."""
        return self.agreed(spec, round1) if round1 and not self.disputed(spec, round1) else round2

    def describe_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        return flag_rule(spec, delta=delta).describe()

    def short_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        rule = flag_rule(spec, delta=delta)
        text = f", |Δ| > {rule.delta}" if rule.delta is not None else ""
        return text + (f", across {rule.boundary}" if rule.boundary is not None else "")
