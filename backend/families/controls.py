"""Several controls per item (SummEval's four dimensions, a rating beside a preference): the control is the unit.

A project whose label config holds several controls a judge can answer is audited in one run: each
control keeps its own spec (:class:`~backend.task.spec.ControlSpec`: family, labels, prompts, flag rule),
exactly the spec it would have alone, and this family asks every control's questions of every item
(:class:`backend.scoring.question_engine.QuestionEngine`), then assembles one verdict per control. Nothing about one
control enters another's questions: a dimension's prompt shows the item's inputs and that dimension's own
question, never another dimension's answer.

Label values
------------
An item's value is a JSON object of its controls' values, in control order, holding only the controls
that have one: ``{"coherence":"4","fluency":"5"}`` (compact, so four 1-5 dimensions take 60 characters of
the 255 a ledger column holds). Every per-control reading goes through :meth:`ControlsFamily.control_values`.

Verdicts
--------
The item's :attr:`ItemResult.questions` hold one verdict per control (``id`` = the control's name, with
that control's members, probabilities and flag), so the report and the review read a control exactly as
they read a one-control project. The item is flagged when any control is; its confidence is that of its
most confident flagged control (else its least confident one). A control shown only under a condition
(``visibleWhen``) is asked only where the original answer shows it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from backend.common.defaults import STORE_COLUMN_CHARS
from backend.task.family import Question, TaskFamily, register_family
from backend.task.marks import suspect_marker
from backend.scoring.results import ErrorInfo, ItemResult, input_hash
from backend.scoring.question_engine import NOT_SHOWN

if TYPE_CHECKING:
    from backend.task.dataset import Item
    from backend.scoring.results import ItemResult
    from backend.task.spec import ControlSpec, TaskSpec

__all__ = ["ControlsFamily", "KEY_SEP", "MEMBER_SEP"]

#: Joins a control's name and its own question key (``"pw/ab"``) when the control asks several questions.
KEY_SEP = "/"
#: Qualifies a member id with the control it answered (the ledger keeps one row per item and member id).
MEMBER_SEP = "#"
MAX_VALUE_CHARS = STORE_COLUMN_CHARS  # a ledger label column's width


@register_family
class ControlsFamily(TaskFamily):
    """Every audited control of a project, each judged as its own task (see the module docstring)."""

    name = "controls"
    lacks = {"one_label": "members answer each control on its own; each control has its own figures after "
                          "'Controls audited'"}

    # -- the spec --------------------------------------------------------------------------------------
    def check_spec(self, spec: "TaskSpec") -> None:
        names = [c.name for c in spec.controls]
        if len(names) < 2:
            raise ValueError("a project audited control by control has at least two controls")
        if len(set(names)) != len(names):
            raise ValueError(f"control names must be distinct: {names}")
        joined = [n for n in names if KEY_SEP in n]  # "q/1" beside "q" would be read as q's question "1"
        if joined:
            others = ",".join(n for n in names if KEY_SEP not in n)
            raise ValueError(f"control {joined[0]!r}: a name audited beside others cannot hold {KEY_SEP!r} (it joins "
                             f"a control to its question keys): rename it, or audit it alone "
                             f"(LABEL_AUDIT_CONTROL={joined[0]}) and the others apart (LABEL_AUDIT_CONTROL={others})")
        if tuple(names) != spec.labels:
            raise ValueError("a controls spec's labels are its control names, in order")
        for control in spec.controls:
            if control.spec.family == self.name:
                raise ValueError(f"control {control.name!r} cannot itself hold several controls")
            if control.when is not None and control.when.control not in names:
                raise ValueError(f"control {control.name!r} is shown when {control.when.control!r} is answered, "
                                 "which is not an audited control")
        longest = self.encode_controls(spec, {c.name: max(c.spec.labels, key=len) for c in spec.controls})
        if len(longest) > MAX_VALUE_CHARS:
            raise ValueError(f"an item's answers to all {len(names)} controls take up to {len(longest)} characters, "
                             f"more than the {MAX_VALUE_CHARS} the ledger stores: audit fewer controls at once "
                             "(LABEL_AUDIT_CONTROL)")

    def control(self, spec: "TaskSpec", name: str) -> "ControlSpec":
        """The control named ``name`` (ValueError listing the audited ones)."""
        for control in spec.controls:
            if control.name == name:
                return control
        raise ValueError(f"no audited control {name!r}; audited: {', '.join(c.name for c in spec.controls)}")

    # -- label values ----------------------------------------------------------------------------------
    def control_values(self, spec: "TaskSpec", value: str | None) -> dict[str, str]:
        """A stored value -> ``{control: that control's own label value}`` (ValueError for anything else)."""
        if value is None:
            return {}
        data = json.loads(value) if isinstance(value, str) else value
        if not isinstance(data, Mapping):
            raise ValueError(f"{value!r} is not an object of control answers")
        known = {c.name for c in spec.controls}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"{value!r} answers controls that are not audited: {unknown}")
        return {c.name: str(data[c.name]) for c in spec.controls if data.get(c.name) is not None}

    def encode_controls(self, spec: "TaskSpec", values: Mapping[str, str | None]) -> str:
        """``{control: value}`` -> the canonical stored value (control order, compact, only answered controls)."""
        ordered = {c.name: values[c.name] for c in spec.controls if values.get(c.name) is not None}
        return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))

    def _shown(self, spec: "TaskSpec", values: Mapping[str, str]) -> dict[str, str]:
        """``values`` without the conditional controls that the other answers do not show."""
        return {name: v for name, v in values.items()
                if (when := self.control(spec, name).when) is None or when.holds(values.get(when.control))}

    def normalize_label(self, spec: "TaskSpec", value: Any) -> str | None:
        """An object (or its JSON text) of control -> raw answer -> the stored value; None when nothing is valid."""
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                return None
        if not isinstance(value, Mapping):
            return None
        out = {}
        for control in spec.controls:
            if value.get(control.name) is None:
                continue
            normal = control.spec.normalize_label(value[control.name])
            if normal is None:
                return None
            out[control.name] = normal
        if set(value) - {c.name for c in spec.controls}:
            return None
        return self.encode_controls(spec, self._shown(spec, out)) if out else None

    def original_label(self, spec: "TaskSpec", labels: Iterable[str | None]) -> str | None:
        """Per control, its own family's original over the annotators that answered it; hidden controls dropped."""
        per_annotator = [self.control_values(spec, v) for v in labels if v is not None]
        if not per_annotator:
            return None
        out = {}
        for control in spec.controls:
            answers = [a[control.name] for a in per_annotator if control.name in a]
            if answers:
                original = control.spec.task_family.original_label(control.spec, answers)
                if original is not None:
                    out[control.name] = original
        return self.encode_controls(spec, self._shown(spec, out)) if out else None

    def split(self, spec: "TaskSpec", value: str) -> dict[str, str]:
        """Per question key: each control's own split, keyed ``control`` or ``control/key``."""
        out = {}
        values = self.control_values(spec, value)
        for control in spec.controls:
            if control.name not in values:
                continue
            parts = control.spec.task_family.split(control.spec, values[control.name])
            for key, part in parts.items():
                out[self._key(control, key)] = part
        return out

    def encode(self, spec: "TaskSpec", parts: Mapping[str, str]) -> str:
        values = {}
        for control in spec.controls:
            own = {key.partition(KEY_SEP)[2] if KEY_SEP in key else "": v for key, v in parts.items()
                   if key == control.name or key.startswith(control.name + KEY_SEP)}
            if own:
                values[control.name] = control.spec.task_family.encode(control.spec, own)
        return self.encode_controls(spec, values)

    # -- questions -------------------------------------------------------------------------------------
    @staticmethod
    def _key(control: "ControlSpec", key: str) -> str:
        return control.name if key == "" else f"{control.name}{KEY_SEP}{key}"

    def _owner(self, spec: "TaskSpec", key: str) -> tuple["ControlSpec", str]:
        name, _, own = key.partition(KEY_SEP)
        return self.control(spec, name), own

    def questions(self, spec: "TaskSpec") -> tuple[Question, ...]:
        out = []
        for control in spec.controls:
            for q in control.spec.task_family.questions(control.spec):
                out.append(Question(self._key(control, q.key), q.spec,
                                    conditional=q.conditional or control.when is not None))
        return tuple(out)

    def question_item(self, spec: "TaskSpec", question: Question, item: "Item") -> "Item":
        control, own = self._owner(spec, question.key)
        return control.spec.task_family.question_item(control.spec, Question(own, question.spec), item)

    def question_original(self, spec: "TaskSpec", question: Question, original: str | None) -> str | None:
        control, own = self._owner(spec, question.key)
        value = self.control_values(spec, original).get(control.name) if original is not None else None
        if value is None:
            return None
        return control.spec.task_family.question_original(control.spec, Question(own, question.spec), value)

    def assemble(self, spec: "TaskSpec", item: "Item", answers: Sequence["ItemResult"], *,
                 rules: Sequence[Any] = ()) -> "ItemResult":
        questions = self.questions(spec)
        if len(answers) != len(questions):
            raise ValueError(f"a {len(spec.controls)}-control item asks {len(questions)} questions, got {len(answers)}")
        originals = self.control_values(spec, item.original)
        verdicts: list[ItemResult] = []
        at = 0
        for control in spec.controls:
            n = len(control.spec.task_family.questions(control.spec))
            own, own_rules, at = answers[at:at + n], list(rules[at:at + n]), at + n
            if all(a.reason == NOT_SHOWN for a in own):
                continue
            asked = replace(item, original=originals.get(control.name))
            verdict = own[0] if n == 1 and control.spec.task_family.questions(control.spec)[0].spec is control.spec \
                else control.spec.task_family.assemble(control.spec, asked, own, rules=own_rules)
            verdicts.append(replace(verdict, id=control.name, data={}, line=None))
        members = tuple(replace(m, member_id=f"{m.member_id}{MEMBER_SEP}{v.id}") for v in verdicts for m in v.members)
        common = dict(id=item.id, original=item.original, members=members, line=item.line, data=item.data,
                      suspicious_text=any(a.suspicious_text for a in answers),
                      input_hash=input_hash(item.fields, item.images), questions=tuple(verdicts))
        failed = [v for v in verdicts if v.prediction is None]
        if failed or not verdicts:
            first = (failed[0].error if failed else None) or ErrorInfo("no_member_answered")
            names = ", ".join(v.id for v in failed) or "every control"
            detail = f"no verdict on {len(failed)} of {len(verdicts)} controls ({names}): {first}"
            return ItemResult(prediction=None, confidence=None, probs=None, flagged=False,
                              error=ErrorInfo(first.reason, first.retryable, detail), **common)
        flagged = [v for v in verdicts if v.flagged]
        confidences = [float(v.confidence) for v in (flagged or verdicts)]  # type: ignore[arg-type]
        return ItemResult(
            prediction=self.encode_controls(spec, {v.id: str(v.prediction) for v in verdicts}),
            confidence=max(confidences) if flagged else min(confidences),
            probs={v.id: float(v.confidence) for v in verdicts},  # type: ignore[arg-type]
            flagged=bool(flagged), insufficient=any(v.insufficient for v in verdicts),
            stopped_early=any(v.stopped_early for v in verdicts), **common,
        )

    def prompt_params(self, spec: "TaskSpec") -> dict[str, str]:
        """The first question's values (the templates' placeholders) and every control's, keyed by control
        (they enter the ensemble fingerprint)."""
        first = self.questions(spec)[0].spec
        params = first.task_family.prompt_params(first)
        for control in spec.controls:
            for name, value in control.spec.task_family.prompt_params(control.spec).items():
                params[f"{control.name}:{name}"] = value
        return params

    # -- verdict ---------------------------------------------------------------------------------------
    def disagrees(self, spec: "TaskSpec", prediction: str, original: str | None, *, delta: int | None = None) -> bool:
        if original is None:
            return False
        pred, orig = self.control_values(spec, prediction), self.control_values(spec, original)
        return any(c.spec.task_family.disagrees(c.spec, pred[c.name], orig.get(c.name), delta=delta)
                   for c in spec.controls if c.name in pred)

    def describe_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        rules = "; ".join(f"{c.name}: {c.spec.task_family.describe_flag_rule(c.spec, delta=delta)}"
                          for c in spec.controls)
        return f"per control ({rules}); the item when any control is"

    def short_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        return f", {len(spec.controls)} controls"

    # -- Label Studio ----------------------------------------------------------------------------------
    def read_result(self, spec: "TaskSpec", result: Sequence[Any]) -> str | None:
        """Each control's own reading of the annotation; None when it answers none of them; a control's
        ValueError (an answer that is none of its labels) unless the other answers hide that control."""
        values, errors = {}, {}
        for control in spec.controls:
            try:
                value = control.spec.task_family.read_result(control.spec, result)
            except ValueError as exc:
                errors[control.name] = exc
                continue
            if value is not None:
                values[control.name] = value
        for name, exc in errors.items():
            if (when := self.control(spec, name).when) is None or when.holds(values.get(when.control)):
                raise exc
        shown = self._shown(spec, values)
        return self.encode_controls(spec, shown) if shown else None

    def write_result(self, spec: "TaskSpec", value: str) -> list[dict[str, Any]]:
        values = self.control_values(spec, value)
        return [region for c in spec.controls if c.name in values
                for region in c.spec.task_family.write_result(c.spec, values[c.name])]

    def marked_result(self, spec: "TaskSpec", result: "ItemResult", *, model_version: str) -> list[dict[str, Any]]:
        """Each control's regions; a flagged control's regions carry the suspect marker (one id per region)."""
        values = self.control_values(spec, str(result.prediction))
        verdicts = {q.id: q for q in result.questions}
        out = []
        for control in spec.controls:
            if control.name not in values:
                continue
            own = verdicts.get(control.name)
            regions = control.spec.task_family.write_result(control.spec, values[control.name])
            for i, region in enumerate(regions):
                if own is not None and own.confidence is not None:  # each control's own score beside the task's
                    region = {**region, "score": round(float(own.confidence), 4)}
                flagged = own is not None and own.flagged
                out.append({**region, "id": f"{suspect_marker(model_version)}-{control.name}-{i}"} if flagged else region)
        return out

    # -- review and gold -------------------------------------------------------------------------------
    def _per_control(self, spec: "TaskSpec", values: Sequence[str]) -> list[dict[str, str]]:
        return [self.control_values(spec, v) for v in values]

    def show_answer(self, spec: "TaskSpec", value: str) -> str:
        values = self.control_values(spec, value)
        return "; ".join(f"{c.title or c.name}: {c.spec.task_family.show_answer(c.spec, values[c.name])}"
                         for c in spec.controls if c.name in values) or "(no answer)"

    def disputed(self, spec: "TaskSpec", answers: Sequence[str], *, delta: int | None = None) -> tuple[str, ...]:
        """The controls the experts' answers split on (a control one expert left out is split too; an ordinal
        control by more than its delta)."""
        parts = self._per_control(spec, answers)
        out = []
        for c in spec.controls:
            given = [p.get(c.name) for p in parts]
            if all(g is None for g in given):
                continue
            if any(g is None for g in given) or c.spec.task_family.disputed(c.spec, [str(g) for g in given], delta=delta):
                out.append(c.name)
        return tuple(out)

    def reconciled(self, spec: "TaskSpec", round1: Sequence[str], round2: str) -> str:
        """Per control: what round 1 agreed on where the experts did not split (equal answers, or ordinal
        grades within delta: their median), else the round-2 agreed answer."""
        firsts, second = self._per_control(spec, round1), self.control_values(spec, round2)
        disputed = set(self.disputed(spec, round1)) if round1 else {c.name for c in spec.controls}
        out = {}
        for c in spec.controls:
            if c.name in disputed or not firsts or c.name not in firsts[0]:
                if c.name in second:
                    out[c.name] = second[c.name]
            else:
                out[c.name] = c.spec.task_family.agreed(c.spec, [f[c.name] for f in firsts])
        return self.encode_controls(spec, out)

    def gold(self, spec: "TaskSpec", *, original: str, prediction: str, resolution: str,
             asked: Sequence["ItemResult"] = ()) -> str:
        """Per control: the original where the ensemble agrees with it, else the experts' resolution; a control
        the gold answers hide is dropped (nobody confirmed it: the experts' view hid it)."""
        orig, pred = self.control_values(spec, original), self.control_values(spec, prediction)
        res = self.control_values(spec, resolution)
        out = {}
        for c in spec.controls:
            agrees = c.name in orig and c.name in pred and not c.spec.task_family.disagrees(
                c.spec, pred[c.name], orig[c.name])
            value = orig.get(c.name) if agrees else res.get(c.name, orig.get(c.name))
            if value is not None:
                out[c.name] = value
        return self.encode_controls(spec, self._shown(spec, out))

    def flipped(self, spec: "TaskSpec", result: Any, threshold: float) -> str | None:
        """Only the controls flagged at ``threshold`` or above take the prediction; the rest keep the original."""
        if result.original is None or not result.questions:
            return result.prediction
        values = self.control_values(spec, result.original)
        for q in result.questions:
            if q.flagged and q.prediction is not None and (q.confidence or 0.0) >= threshold:
                values[q.id] = str(q.prediction)
        return self.encode_controls(spec, self._shown(spec, values))

    def export(self, spec: "TaskSpec", value: str) -> Any:
        values = self.control_values(spec, value)
        return {c.name: c.spec.task_family.export(c.spec, values[c.name]) for c in spec.controls if c.name in values}

    # -- report ----------------------------------------------------------------------------------------
    def report_parts(self, spec: "TaskSpec", value: str | None) -> dict[str, str] | None:
        return None if value is None else self.control_values(spec, value)
