"""What the review needs from the source project: its label config, spec, and the items' inputs only.

Inputs are re-read from Label Studio (never from the ledger's copy of the item) and filtered to the
fields the blind config shows, so a label imported as a data field, a hidden column or any extra
metadata cannot leak into a review task.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping, Sequence

from label_studio_sdk import LabelStudio

from backend.labelstudio.client import iter_tasks
from backend.labelstudio.taskshape import field
from backend.labelstudio.expertcontrols import expert_controls_config, review_fields, round1_fields
from backend.labelstudio.expertview import expert_label_config
from backend.controls.parse import parse_label_config
from backend.labelstudio.labelconfig import expert_field, find_inputs
from backend.labelstudio.projectspec import spec_from_label_config
from backend.review.ambiguous import check_offerable, extra_choices, shown_answer
from backend.task.spec import TaskSpec

REF_FIELD = "review_ref"  # the one non-input field of a review task: the opaque reference


@dataclass(frozen=True)
class SourceProject:
    """A source project as the review sees it."""

    project_id: int
    label_config: str
    spec: TaskSpec
    label_field: str
    guidelines: str = ""  # the project's labelling guidelines (HTML), shown only once checked

    @cached_property
    def root(self) -> ET.Element:
        """The label config's tree, parsed once for every review config built from it (read, never changed)."""
        return parse_label_config(self.label_config)

    @property
    def key(self) -> str:
        """The project key of the ledger and the review store."""
        return str(self.project_id)

    @property
    def control(self) -> str:
        if self.spec.binding is None:
            raise ValueError(f"spec {self.spec.name!r} is not bound to a Label Studio control")
        return self.spec.binding.from_name

    @property
    def controls(self) -> tuple[str, ...]:
        """Every audited control's name, in the project's order (one for a single-control spec)."""
        subs = getattr(self.spec, "controls", ())
        return tuple(c.name for c in subs) if subs else (self.control,)

    @property
    def single_choices(self) -> bool:
        """One ``<Choices>`` control: the review keeps its single-control view and round-2 layout."""
        binding = self.spec.binding
        return not getattr(self.spec, "controls", ()) and getattr(binding, "kind", "choices") == "choices"

    def control_spec(self, name: str) -> TaskSpec:
        """The audited control ``name``'s own spec (the spec itself for a one-control project)."""
        subs = getattr(self.spec, "controls", ())
        if not subs:
            if name != self.control:
                raise ValueError(f"no audited control {name!r}; audited: {self.control}")
            return self.spec
        return self.spec.task_family.control(self.spec, name).spec

    def control_values(self, value: str | None) -> dict[str, str]:
        """A stored answer -> ``{control: that control's own value}`` (the controls it answers)."""
        if value is None:
            return {}
        if getattr(self.spec, "controls", ()):
            return self.spec.task_family.control_values(self.spec, value)
        return {self.control: value}

    def disputed_controls(self, answers: Sequence[str]) -> set[str]:
        """The controls the experts' answers split on (the family's rule; ordinal: by more than delta)."""
        if len(answers) < 2:
            return set()
        split = self.spec.task_family.disputed(self.spec, list(answers))
        if getattr(self.spec, "controls", ()):
            return set(split)
        return {self.control} if split else set()

    def check_ambiguous_choice(self) -> None:
        """ValueError unless the review can offer "More than one answer may be right" (:mod:`backend.review.ambiguous`)."""
        check_offerable(self.spec, single_choices=self.single_choices)

    def review_config(self, guidelines_html: str = "", *, ambiguous_choice: bool = False) -> str:
        """Round 1: titled inputs and every audited control, nothing selected (``guidelines_html``: checked ones);
        ``ambiguous_choice`` adds "More than one answer may be right" after the choices (checked first)."""
        if ambiguous_choice:
            self.check_ambiguous_choice()
            return expert_label_config(self.root, control=self.control, exclude_fields=(self.label_field,),
                                       guidelines_html=guidelines_html, extra_choices=extra_choices(True))
        own = self.spec.task_family.review_config(self.spec, self.root)
        if own is not None:
            return own
        return expert_controls_config(self.root, controls=self.controls, exclude_fields=(self.label_field,),
                                      guidelines_html=guidelines_html)

    def reconcile_config(self, n_experts: int, *, ambiguous_choice: bool = False) -> str:
        """Round 2: the round-1 config plus the experts' answers ("Expert A: ..."), per control when several;
        ``ambiguous_choice``: round 1 offered "More than one answer may be right", so round 2 does too."""
        if n_experts < 2:
            raise ValueError("reconciliation needs at least two experts")
        if ambiguous_choice:
            self.check_ambiguous_choice()
            return expert_label_config(
                self.root, control=self.control, exclude_fields=(self.label_field,),
                answer_fields=[expert_field(i) for i in range(n_experts)], choices_title="Agreed label",
                extra_choices=extra_choices(True))
        own = self.spec.task_family.review_config(self.spec, self.root,
                                                  answer_fields=[expert_field(i) for i in range(n_experts)])
        if own is not None:
            return own
        if not self.single_choices:
            return expert_controls_config(self.root, controls=self.controls,
                                          exclude_fields=(self.label_field,),
                                          round1=self.round1_fields())
        return expert_label_config(
            self.root, control=self.control, exclude_fields=(self.label_field,),
            answer_fields=[expert_field(i) for i in range(n_experts)], choices_title="Agreed label",
        )

    def round1_fields(self) -> dict[str, str]:
        """Control -> the round-2 task's data field with the experts' round-1 answers on it (all distinct, and
        distinct from the inputs' fields: :func:`backend.labelstudio.expertcontrols.round1_fields`)."""
        return round1_fields(self.controls, taken={*self.input_fields(), *self.review_fields().values()})

    def review_fields(self) -> dict[str, str]:
        """Source field -> the data key a review task holds it under, where they differ (a preference's two
        responses: :func:`backend.labelstudio.expertcontrols.response_fields`)."""
        if self.single_choices:
            return {}
        return review_fields(self.root, controls=self.controls)

    def input_fields(self) -> list[str]:
        """The source's data fields a reviewer sees (those of the blind config, under their source names)."""
        root = parse_label_config(self.review_config())
        back = {shown: source for source, shown in self.review_fields().items()}
        return list(dict.fromkeys(back.get(obj.field, obj.field) for obj in find_inputs(root)))

    def shown_label(self, label: str | None) -> str:
        """What an annotator saw for a stored label (the choice's value when it has an alias)."""
        if label is None:
            return "(no answer)"
        if shown_answer(label) is not None:
            return str(shown_answer(label))
        return self.spec.task_family.show_answer(self.spec, label)


def load_source(
    client: LabelStudio, project_id: int, *, label_field: str | None = None, control: str | None = None,
    spec_options: Mapping[str, Any] | None = None,
) -> SourceProject:
    """Read the source project's label config and derive its spec (ValueError when unusable).

    ``spec_options``: the settings the spec is derived with (``Settings.spec_options()`` of the command: the
    named negative class, option orders, calibration); None: the defaults.
    """
    project = client.projects.get(id=project_id)
    config = project.label_config
    if not config:
        raise ValueError(f"project {project_id} has no label config")
    spec = spec_from_label_config(config, label_field=label_field, control=control, **dict(spec_options or {}))
    return SourceProject(project_id=project_id, label_config=config, spec=spec, label_field=spec.label_field,
                         guidelines=str(getattr(project, "expert_instruction", None) or ""))


def load_audited_source(client: LabelStudio, ledger: Any, project_id: int, *, label_field: str | None = None,
                        spec_options: Mapping[str, Any] | None = None) -> SourceProject:
    """The source project as it was audited: its config read now, the label field and control(s) the ledger
    stored with it (``label_field`` given here wins), so every reader derives the spec the verdicts were made with.

    A project audited on one control of several before the ledger stored the control (its control is
    unknown, its verdicts are one control's labels) is refused with what to do, instead of being read as
    a project of every control. ``spec_options``: as :func:`load_source`'s.
    """
    stored = ledger.project(str(project_id)) or {}
    source = load_source(client, project_id, label_field=label_field or stored.get("label_field"),
                         control=stored.get("control"), spec_options=spec_options)
    if not stored.get("control"):
        check_stored_control(source, ledger)
    return source


def check_stored_control(source: SourceProject, ledger: Any) -> None:
    """ValueError with what to do when ``source`` (derived with every control) was audited on one of them.

    A ledger from before revision 0004 stored no control: a project audited on one control of several has
    that control's plain values, which no reader of every control can decode. The check reads the first
    stored row that holds a value (:meth:`backend.ledger.store.Ledger.first_value`): the first row may be an
    error row (workers record errors first), and an error row's empty value passed the check before, so
    every stored value then failed to decode downstream.
    """
    if not getattr(source.spec, "controls", ()):
        return
    version = ledger.latest_version(source.key)
    value = ledger.first_value(source.key, version) if version else None
    try:
        source.control_values(value)
    except ValueError:
        names = ", ".join(source.controls)
        raise ValueError(
            f"project {source.project_id} was audited on one of its controls ({names}) before label-audit stored "
            f"which: run `label-audit audit --project {source.project_id}` again with LABEL_AUDIT_CONTROL set to "
            "that control (stored verdicts are reused), then review or report it") from None


def fetch_inputs(
    client: LabelStudio, source: SourceProject, task_ids: Sequence[str]
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The shown inputs of each source task, and an error per task that cannot be reviewed.

    Returns
    -------
    inputs : dict
        task id -> ``{field: value}`` restricted to the blind config's fields (under their review keys).
    errors : dict
        task id -> reason (deleted task, missing input, non-integer id).
    """
    fields = source.input_fields()
    renamed = source.review_fields()
    errors: dict[str, str] = {}
    numeric = []
    for task_id in task_ids:
        try:
            numeric.append(int(task_id))
        except (TypeError, ValueError):
            errors[str(task_id)] = "not a Label Studio task id"
    found: dict[str, dict[str, Any]] = {}
    for task in iter_tasks(client, source.project_id, task_ids=numeric):
        data = field(task, "data", None) or {}
        missing = [f for f in fields if f not in data or data[f] is None]
        if missing:
            errors[str(field(task, "id"))] = f"missing input field(s): {', '.join(missing)}"
            continue
        found[str(field(task, "id"))] = {renamed.get(f, f): data[f] for f in fields}
    for task_id in numeric:
        if str(task_id) not in found and str(task_id) not in errors:
            errors[str(task_id)] = "source task not found in Label Studio"
    return found, errors
