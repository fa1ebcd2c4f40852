"""Multi-label classification: any subset of the labels applies to an item (``<Choices choice="multiple">``).

Each label is one binary question, "does this label apply?", asked with the label's text and hint and
the project's guidelines (the generic prompts, options "A. Yes" / "B. No"), so every member gives a
probability per label from its logprobs exactly as for a binary task, and the engine, cache, quorum and
early exit judge each label as they judge a binary item. A label is flagged when the ensemble
confidently rejects a label the annotator set, or confidently asserts one the annotator left out (the
binary flag rule on that question); the item is flagged when any label is.

The label value of an item is its set, encoded canonically as a JSON array in class order
(``["Sports", "Tech"]``; ``[]``: no label applies), so the ledger, the review stores and the report keep
one string per item. The item's verdict keeps each question's verdict (``ItemResult.questions``); its
``probs`` are the probabilities that each label applies; its confidence is that of its most confident
flagged label when flagged (the suspects tab ranks by it), else that of its least confident label (how
sure the ensemble is of the whole set).

Option orders (opt-in, ``LABEL_AUDIT_MULTILABEL_ORDERS=2``: :mod:`backend.task.multilabel_orders`): each label's
question is also asked with its options the other way round ("A. No" / "B. Yes"), built as a single-choice
question's orders are (:func:`backend.task.option_orders.order_questions`); each member's two answers, keyed by
yes/no, are averaged and the label decided by :func:`backend.families.orders.merge_orders`, as a single-choice
item's orders are. The item's ``questions`` stay one verdict per label; each label's own ``questions`` hold its
per-order verdicts (``o0``, ``o1``). With one order (the default) nothing of the above applies.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from backend.common.defaults import STORE_COLUMN_CHARS
from backend.task.family import Question, TaskFamily, questions_params, register_family
from backend.families.single import BinaryFamily, choice_values, choices_result
from backend.families.orders import merge_orders
from backend.task.generic import derived_options, generic_spec
from backend.task.multilabel_orders import EXTRA_KEY as ORDERS_KEY, multilabel_orders_of
from backend.task.option_orders import order_key, order_questions, with_option_orders
from backend.task.spec import PromptText
from backend.scoring.results import ErrorInfo, ItemResult

if TYPE_CHECKING:
    from backend.task.dataset import Item
    from backend.scoring.results import ItemResult
    from backend.task.spec import TaskSpec

__all__ = ["MultiLabelFamily", "YES", "NO", "question_key"]

YES, NO = "yes", "no"
#: Qualifies a member id with the label it answered (the ledger keeps one row per item and member id).
QUESTION_SEP = "#"
NO_LABEL = "(no label)"
#: The key of a label's first order among its per-order verdicts (the options as given: "A. Yes" / "B. No").
ORDER_ONE = order_key(0)
#: The ledger and review stores keep a label value in a column this wide (PostgreSQL enforces it).
MAX_VALUE_CHARS = STORE_COLUMN_CHARS


def question_key(member_id: str) -> tuple[str, str | None]:
    """``"provider:model/template@v1#Sports"`` -> ``("provider:model/template@v1", "Sports")``."""
    base, sep, key = member_id.partition(QUESTION_SEP)
    return (base, key) if sep else (member_id, None)


@register_family
class MultiLabelFamily(TaskFamily):
    """Sets of labels; one binary question per label (see the module docstring)."""

    name = "multilabel"
    multi_valued = True
    #: Its questions are binary tasks and flag at the binary cut; the item's threshold (the report's, the gold
    #: export's) is the same number.
    default_threshold = BinaryFamily.default_threshold
    lacks = {"one_label": "members answer one yes/no question per label, not one distribution per item, and the "
                          "truth model takes one label out of the task's classes per item; the per-label view is "
                          "in 'Label sets, per label'"}

    # -- the spec --------------------------------------------------------------------------------------
    def check_spec(self, spec: "TaskSpec") -> None:
        if spec.answer_tokens:
            raise ValueError("a multi-label task asks one yes/no question per label: it has no answer_tokens")
        longest = len(self.encode_set(spec, spec.labels))
        if longest > MAX_VALUE_CHARS:
            raise ValueError(f"the set of all {len(spec.labels)} labels takes {longest} characters, more than the "
                             f"{MAX_VALUE_CHARS} the audit ledger stores per label value: shorten the labels "
                             "(use aliases) or audit a subset")

    def decode(self, spec: "TaskSpec", value: str) -> frozenset[str]:
        """A stored set value -> its labels (ValueError for anything that is not one)."""
        labels = json.loads(value)
        if not isinstance(labels, list) or any(lab not in spec.labels for lab in labels):
            raise ValueError(f"{value!r} is not a set of labels of {list(spec.labels)}")
        return frozenset(labels)

    def encode_set(self, spec: "TaskSpec", labels: Iterable[str]) -> str:
        chosen = set(labels)
        return json.dumps([lab for lab in spec.labels if lab in chosen], ensure_ascii=False)

    def _one(self, spec: "TaskSpec", raw: Any) -> str | None:
        text = str(raw).strip()
        if text in spec.labels:
            return text
        folded = [lab for lab in spec.labels if lab.casefold() == text.casefold()]
        return folded[0] if len(folded) == 1 else None

    def normalize_label(self, spec: "TaskSpec", value: Any) -> str | None:
        """A list of labels, a JSON array, one label, or labels separated by commas -> the set value, or None."""
        if value is None or isinstance(value, (bool, dict)):
            return None
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                try:
                    value = json.loads(text)
                except ValueError:
                    return None
            elif self._one(spec, text) is not None:
                value = [text]
            else:
                value = [part for part in text.split(",") if part.strip()]
        if not isinstance(value, (list, tuple, set, frozenset)):
            return None
        labels = [self._one(spec, raw) for raw in value]
        return None if any(lab is None for lab in labels) else self.encode_set(spec, labels)  # type: ignore[arg-type]

    def original_label(self, spec: "TaskSpec", labels: Iterable[str | None]) -> str | None:
        """Per label, the majority of the annotators (a tie leaves the label out: the negative wins)."""
        sets = [self.decode(spec, value) for value in labels if value is not None]
        if not sets:
            return None
        return self.encode_set(spec, [lab for lab in spec.labels if 2 * sum(lab in s for s in sets) > len(sets)])

    def encode(self, spec: "TaskSpec", parts: Mapping[str, str]) -> str:
        return self.encode_set(spec, [lab for lab in spec.labels if parts.get(lab) == YES])

    def split(self, spec: "TaskSpec", value: str) -> dict[str, str]:
        chosen = self.decode(spec, value)
        return {lab: YES if lab in chosen else NO for lab in spec.labels}

    # -- questions -------------------------------------------------------------------------------------
    def questions(self, spec: "TaskSpec") -> tuple[Question, ...]:
        """One yes/no question per label (key: the label); with two orders, each label's second order follows
        its first (key ``<label>#o1``, options "A. No" / "B. Yes")."""
        n_orders = multilabel_orders_of(spec)
        if n_orders == 1:
            return tuple(Question(label, self._question_spec(spec, i)) for i, label in enumerate(spec.labels))
        out: list[Question] = []
        for i, label in enumerate(spec.labels):
            for k, order in enumerate(order_questions(with_option_orders(self._question_spec(spec, i), n_orders))):
                out.append(Question(label if k == 0 else f"{label}{QUESTION_SEP}{order.key}", order.spec,
                                    reorders=order.reorders))
        return tuple(out)

    def _label_of(self, spec: "TaskSpec", key: str) -> str:
        """The label a question key asks about (``"Sports#o1"`` -> ``"Sports"``)."""
        return key if key in spec.labels else key.rpartition(QUESTION_SEP)[0]

    def question_original(self, spec: "TaskSpec", question: Question, original: str | None) -> str | None:
        """The item's yes/no for the question's label (every order of a label shares it)."""
        return None if original is None else self.split(spec, original).get(self._label_of(spec, question.key))

    def _question_spec(self, spec: "TaskSpec", index: int) -> "TaskSpec":
        text = spec.prompt or PromptText()
        label = spec.labels[index]
        shown = text.shown[index] if text.shown else label
        hint = text.hints[index] if text.hints else ""
        others = ", ".join(f'"{s}"' for s in (text.shown or spec.labels))
        meaning = f" ({hint})" if hint else ""
        question = (f"{text.question}\n" if text.question else "") + (
            f"An item may carry several of the labels {others}. "
            f'Does the label "{shown}"{meaning} apply to this item?'
        )
        # Every template names the label: in the options and definitions too (not every template shows the question).
        return generic_spec(
            labels=[YES, NO], fields=dict(spec.fields), family="binary", name=f"{spec.name}{QUESTION_SEP}{label}",
            guidelines=text.guidelines, shown=[f'Yes, "{shown}" applies', f'No, "{shown}" does not apply'],
            hints=[hint, ""], titles=dict(text.titles), question=question, negative_label=NO,
            label_field=spec.label_field, id_field=spec.id_field, **derived_options(spec),
        )

    def assemble(self, spec: "TaskSpec", item: "Item", answers: Sequence["ItemResult"], *,
                 rules: Sequence[Any] = ()) -> "ItemResult":
        """The item's verdict from one verdict per label (each label's orders merged first, when asked in two)."""
        if multilabel_orders_of(spec) > 1:
            answers = self._merge_orders(spec, item, answers, rules)
        return self._assemble_labels(spec, item, answers)

    def _merge_orders(self, spec: "TaskSpec", item: "Item", answers: Sequence["ItemResult"],
                      rules: Sequence[Any]) -> list["ItemResult"]:
        """Per label, its orders' verdicts merged: each member averaged over the orders, then its first order's
        rule (:func:`backend.families.orders.merge_orders`, exactly as for a single-choice item)."""
        questions = self.questions(spec)
        if len(answers) != len(questions) or len(rules) != len(questions):
            raise ValueError(f"{len(questions)} questions (labels x orders), got {len(answers)} answers and "
                             f"{len(rules)} rules")
        grouped: dict[str, list[int]] = {}
        for k, question in enumerate(questions):
            grouped.setdefault(self._label_of(spec, question.key), []).append(k)
        merged = []
        for label in spec.labels:
            at = grouped[label]
            asked = replace(item, original=self.question_original(spec, questions[at[0]], item.original))
            keys = [ORDER_ONE if k == at[0] else questions[k].key.rpartition(QUESTION_SEP)[2] for k in at]
            merged.append(merge_orders(asked, [answers[k] for k in at], keys=keys, rule=rules[at[0]],
                                       labels=(YES, NO)))
        return merged

    def _assemble_labels(self, spec: "TaskSpec", item: "Item", answers: Sequence["ItemResult"]) -> "ItemResult":
        keys = list(spec.labels)
        if len(answers) != len(keys):
            raise ValueError(f"a multi-label item has {len(keys)} questions, got {len(answers)} answers")
        parts = tuple(replace(a, id=key, data={}, members=()) for key, a in zip(keys, answers))
        members = tuple(replace(m, member_id=f"{m.member_id}{QUESTION_SEP}{key}")
                        for key, a in zip(keys, answers) for m in a.members)
        common = dict(id=item.id, original=item.original, members=members, line=item.line, data=item.data,
                      suspicious_text=any(a.suspicious_text for a in answers), input_hash=answers[0].input_hash,
                      questions=parts)
        failed = [(key, a) for key, a in zip(keys, answers) if a.prediction is None or a.probs is None]
        if failed:
            first = failed[0][1].error or ErrorInfo("no_member_answered")
            detail = f"no verdict on {len(failed)} of {len(keys)} labels ({', '.join(k for k, _ in failed)}): {first}"
            return ItemResult(prediction=None, confidence=None, probs=None, flagged=False,
                              error=ErrorInfo(first.reason, first.retryable, detail), **common)
        flagged = [a for a in answers if a.flagged]
        confidences = [float(a.confidence) for a in (flagged or answers)]  # type: ignore[arg-type]
        return ItemResult(
            prediction=self.encode(spec, {k: str(a.prediction) for k, a in zip(keys, answers)}),
            confidence=max(confidences) if flagged else min(confidences),
            probs={k: float(a.probs[YES]) for k, a in zip(keys, answers)},  # type: ignore[index]
            flagged=bool(flagged), insufficient=any(a.insufficient for a in answers),
            stopped_early=any(a.stopped_early for a in answers), **common,
        )

    # -- verdict ---------------------------------------------------------------------------------------
    def disagrees(self, spec: "TaskSpec", prediction: str, original: str | None, *, delta: int | None = None) -> bool:
        return original is not None and self.decode(spec, prediction) != self.decode(spec, original)

    def describe_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        return "per label: predicted != original (a label set or left out); the item when any label is"

    def prompt_params(self, spec: "TaskSpec") -> dict[str, str]:
        """The first question's values (the templates' placeholders) and every question's, keyed by label.

        All of them enter the ensemble fingerprint: editing a label's text or hint changes the model version.
        """
        params = questions_params(self.questions(spec))
        if multilabel_orders_of(spec) > 1:  # absent with one order: the versions made before stay as they were
            params[ORDERS_KEY] = str(multilabel_orders_of(spec))
        return params

    # -- Label Studio ----------------------------------------------------------------------------------
    def read_result(self, spec: "TaskSpec", result: Sequence[Any]) -> str | None:
        """The chosen set; an annotation without the control's region chose no label (Label Studio omits it)."""
        control = spec.binding.from_name if spec.binding else ""
        if not control:
            return None
        picked = choice_values(result, control=control)
        return self.normalize_label(spec, picked or [])

    def write_result(self, spec: "TaskSpec", value: str) -> list[dict[str, Any]]:
        return choices_result(spec, [lab for lab in spec.labels if lab in self.decode(spec, value)])

    # -- review and gold -------------------------------------------------------------------------------
    def show_answer(self, spec: "TaskSpec", value: str) -> str:
        chosen = self.decode(spec, value)
        shown = [spec.binding.shown_for(lab) if spec.binding else lab for lab in spec.labels if lab in chosen]
        return ", ".join(shown) or NO_LABEL

    def reconciled(self, spec: "TaskSpec", round1: Sequence[str], round2: str) -> str:
        """Per label: the round-1 answer where every expert gave it, else the round-2 agreed answer."""
        firsts = [self.split(spec, v) for v in round1]
        second = self.split(spec, round2)
        out = {lab: firsts[0][lab] if firsts and len({f[lab] for f in firsts}) == 1 else second[lab]
               for lab in spec.labels}
        return self.encode(spec, out)

    def gold(self, spec: "TaskSpec", *, original: str, prediction: str, resolution: str,
             asked: Sequence["ItemResult"] = ()) -> str:
        """Per label: the original where the ensemble agrees with it, else the experts' resolution."""
        orig, pred, res = self.split(spec, original), self.split(spec, prediction), self.split(spec, resolution)
        return self.encode(spec, {lab: orig[lab] if orig[lab] == pred[lab] else res[lab] for lab in spec.labels})

    def flipped(self, spec: "TaskSpec", result: Any, threshold: float) -> str | None:
        """Only the labels flagged at ``threshold`` or above take the prediction; the rest keep the original."""
        if result.original is None or not result.questions:
            return result.prediction
        parts = self.split(spec, result.original)
        for q in result.questions:
            if q.flagged and q.prediction is not None and (q.confidence or 0.0) >= threshold:
                parts[q.id] = q.prediction
        return self.encode(spec, parts)

    def export(self, spec: "TaskSpec", value: str) -> Any:
        return sorted(self.decode(spec, value), key=spec.labels.index)

    def disputed(self, spec: "TaskSpec", answers: Sequence[str], *, delta: int | None = None) -> tuple[str, ...]:
        """The labels the experts' answers split on (what round 2 settles)."""
        parts = [self.split(spec, v) for v in answers]
        return tuple(lab for lab in spec.labels if len({p[lab] for p in parts}) > 1)

    # -- report ----------------------------------------------------------------------------------------
    def report_parts(self, spec: "TaskSpec", value: str | None) -> dict[str, str] | None:
        return None if value is None else self.split(spec, value)
