"""Task specs: which dataset fields feed which template variables, and what the label set is.

A spec is the one place that says how to read an item, so the engine, the Label Studio backend and the
probes all agree on ids, labels and class order. Built-in specs ship as YAML in ``backend/specs``;
any other spec is a YAML or TOML file with the same keys. Everything that differs between label types
is the spec's family (:attr:`TaskSpec.task_family`, :mod:`backend.task.family`); the typed parts below
say where a spec came from (its Label Studio control) and what the generic prompts show.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

import yaml

from backend.controls.element import Condition
from backend.controls.registry import result_kinds
from backend.task.family import TaskFamily, family_names, get_family

Family = str
#: The built-in families at import time (the registry is the authority: :func:`backend.task.family.family_names`).
FAMILIES = family_names()
BUILTIN_SPECS = ("factual-consistency", "likert", "relevance")
#: Result types of the per-item controls a judge can answer (Label Studio's ``type`` of a result region): a
#: view of the control registry (:mod:`backend.controls`).
RESULT_KINDS = result_kinds()


@dataclass(frozen=True)
class ChoiceBinding:
    """The Label Studio control a spec is read from and written to.

    ``labels`` are what Label Studio stores in a result (the alias when set, else the value), ``shown``
    what the annotator sees for each of them, in the same order.
    """

    from_name: str
    to_name: str
    labels: tuple[str, ...] = ()
    shown: tuple[str, ...] = ()
    source: str = "labelstudio"
    #: The result type the control reads and writes: ``choices``, ``rating``, ``number`` or ``pairwise``.
    kind: str = "choices"

    def __post_init__(self) -> None:
        if self.kind not in RESULT_KINDS:
            raise ValueError(f"a choice binding's kind is one of {', '.join(RESULT_KINDS)}, got {self.kind!r}")
        object.__setattr__(self, "labels", tuple(str(x) for x in self.labels))
        object.__setattr__(self, "shown", tuple(str(x) for x in self.shown))
        if self.shown and len(self.shown) != len(self.labels):
            raise ValueError("a choice binding shows one text per label")

    def shown_for(self, label: str) -> str:
        """What the annotator sees for ``label`` (the label itself when the control shows it as is)."""
        return dict(zip(self.labels, self.shown)).get(label, label)


@dataclass(frozen=True)
class ControlSpec:
    """One control of a project audited with others (the ``controls`` family): its own spec and place.

    ``spec`` is the control's own task (family, labels, prompts, flag rule) exactly as if the project had
    this control alone; ``title`` introduces it (its ``<Header>``, else its name) for prompts, the expert's
    view and the report; ``when`` makes it conditional.
    """

    name: str
    tag: str
    spec: "TaskSpec"
    title: str = ""
    when: Condition | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a control needs a name")
        if self.when is not None and self.when.control == self.name:
            raise ValueError(f"control {self.name!r} cannot be conditional on itself")


@dataclass(frozen=True)
class PromptText:
    """What the generic prompts show: guidelines, each label's text and hint, input titles, the question."""

    guidelines: str = ""
    shown: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()
    titles: Mapping[str, str] = field(default_factory=dict)
    question: str = ""


@dataclass(frozen=True)
class TaskSpec:
    """How to read and judge one dataset.

    Parameters
    ----------
    name : str
        Spec name, enters reports and the Label Studio model version.
    family : str
        The family's name (``binary``, ``ordinal``, ``nominal``, ``multilabel``...): what an answer is and
        how it is judged (:mod:`backend.task.family`). Binary and nominal flag any disagreement; ordinal
        ``|prediction - original| > delta``; multi-label judges each label.
    prompt_dir : str
        Folder under ``prompts/`` holding this family's templates.
    fields : mapping of str to str
        Template variable -> dataset field.
    labels : tuple of str
        The label set, in class order (ordinal specs: ascending). Labels are strings; numeric
        labels in the data (``1``, ``1.0``) are normalised by :meth:`normalize_label`.
    id_field, label_field : str
        Dataset fields holding the item id and its original label.
    negative_label : str
        The "nothing here" class (0 / lowest): expected answer of gullibility probes and the
        class the ``strict`` crowd aggregation falls to. Numeric labels default to the first
        (lowest); word labels (and every nominal spec) have none unless one is named: ``""`` then,
        and the sections that need one say NOT APPLICABLE.
    answer_tokens : tuple of str
        What the judge answers with, one per label in the same order (``A``, ``B``... for prompts
        that list lettered options); empty means the labels themselves are the answer tokens.
    binding : ChoiceBinding, optional
        The Label Studio control the spec was read from (None: a file's spec, written to ``label``/``text``).
    prompt : PromptText, optional
        What the generic prompts show; None for a spec with its own prompt folder.
    flag : mapping, optional
        The ordinal flag rule (``delta`` and/or ``boundary``), see :func:`backend.scoring.ensemble.flag_rule`.
    dimension, dimension_definition : str
        The quality dimension the built-in prompts name (default consistency).
    probes : mapping, optional
        The gullibility probes' layout (:func:`backend.probes.layout.layout_for`).
    controls : tuple of ControlSpec
        The ``controls`` family only: every audited control of the project, each with its own spec.
    image_fields : tuple of str
        Template variables whose field holds an image reference (a Label Studio ``<Image>``), not text:
        the item carries the fetched bytes (:attr:`backend.task.dataset.Item.images`), only judges that see
        are asked (:mod:`backend.images`).
    extra : mapping
        Options only the family reads (other keys of the spec file).

    Examples
    --------
    >>> spec = load_spec("factual-consistency")
    >>> spec.labels, spec.family
    (('0', '1'), 'binary')
    >>> spec.normalize_label(1.0)
    '1'
    """

    name: str
    family: str
    prompt_dir: str
    fields: Mapping[str, str]
    labels: tuple[str, ...]
    id_field: str = "id"
    label_field: str = "label"
    negative_label: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    answer_tokens: tuple[str, ...] = ()
    binding: ChoiceBinding | None = None
    prompt: PromptText | None = None
    flag: Mapping[str, Any] | None = None
    dimension: str = ""
    dimension_definition: str = ""
    probes: Mapping[str, Any] | None = None
    image_fields: tuple[str, ...] = ()
    controls: tuple[ControlSpec, ...] = ()

    def __post_init__(self) -> None:
        family = get_family(str(self.family))  # ValueError naming the known families
        if len(self.labels) < 2:
            raise ValueError("a task needs at least two labels")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"labels must be distinct: {self.labels}")
        if not self.fields:
            raise ValueError("a task spec maps at least one template variable to a field")
        object.__setattr__(self, "image_fields", tuple(str(v) for v in self.image_fields))
        unknown = [v for v in self.image_fields if v not in self.fields]
        if unknown:
            raise ValueError(f"image_fields {unknown} are not template variables of the spec ({sorted(self.fields)})")
        family.check_spec(self)
        if self.negative_label == "":
            object.__setattr__(self, "negative_label", family.default_negative(self))
        if self.negative_label and self.negative_label not in self.labels:
            raise ValueError(f"negative_label {self.negative_label!r} is not in labels {self.labels}")
        tokens = tuple(str(t) for t in self.answer_tokens)
        object.__setattr__(self, "answer_tokens", tokens)
        if tokens and (len(tokens) != len(self.labels) or len(set(tokens)) != len(tokens)):
            raise ValueError(f"answer_tokens must be {len(self.labels)} distinct tokens, one per label: {tokens}")

    @property
    def task_family(self) -> TaskFamily:
        """The family object: everything that differs between label types (:mod:`backend.task.family`)."""
        return get_family(self.family)

    @property
    def positive_label(self) -> str:
        """The highest class (binary: the non-negative one; nominal without a negative: the last)."""
        others = [lab for lab in self.labels if lab != self.negative_label]
        return others[-1]

    @property
    def tokens(self) -> tuple[str, ...]:
        """The tokens a judge answers with, in label order (the labels unless options are lettered)."""
        return self.answer_tokens or self.labels

    def probs_by_label(self, token_probs: Mapping[str, float]) -> dict[str, float]:
        """A judge's distribution over answer tokens -> the same distribution keyed by label.

        Distributions already keyed by label (cached answers of label-token specs) pass through.
        """
        if not self.answer_tokens:
            return dict(token_probs)
        return {label: float(token_probs.get(token, 0.0)) for label, token in zip(self.labels, self.answer_tokens)}

    def normalize_label(self, value: Any) -> str | None:
        """Map a raw label (``1``, ``"1"``, ``1.0``, ``" 1 "``; a list for a set) to the spec's label value, or None.

        The family decides (single-choice: an exact label wins, else :mod:`backend.common.labels`' normaliser).
        """
        return self.task_family.normalize_label(self, value)

    @property
    def numeric_labels(self) -> bool:
        """Every label is a number (then the lowest is the default negative class)."""
        try:
            [float(lab) for lab in self.labels]
        except ValueError:
            return False
        return True

    def label_index(self, label: str) -> int:
        """Position of a label in class order (ordinal distance uses it)."""
        return self.labels.index(label)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "family": self.family,
            "prompt_dir": self.prompt_dir,
            "fields": dict(self.fields),
            "labels": list(self.labels),
            "id_field": self.id_field,
            "label_field": self.label_field,
            "negative_label": self.negative_label,
            **({"answer_tokens": list(self.answer_tokens)} if self.answer_tokens else {}),
            **({"flag": dict(self.flag)} if self.flag is not None else {}),
            **({"dimension": self.dimension} if self.dimension else {}),
            **({"dimension_definition": self.dimension_definition} if self.dimension_definition else {}),
            **({"probes": dict(self.probes)} if self.probes is not None else {}),
            **({"image_fields": list(self.image_fields)} if self.image_fields else {}),
        }


def spec_from_mapping(data: Mapping[str, Any]) -> TaskSpec:
    """Build a spec from parsed YAML/TOML, raising ValueError with the missing key's name."""
    missing = [k for k in ("name", "family", "fields", "labels") if k not in data]
    if missing:
        raise ValueError(f"task spec is missing {', '.join(missing)}")
    known = {"name", "family", "prompt_dir", "fields", "labels", "id_field", "label_field", "negative_label",
             "answer_tokens", "flag", "dimension", "dimension_definition", "probes", "image_fields"}
    family = str(data["family"])
    return TaskSpec(
        name=str(data["name"]),
        family=family,  # type: ignore[arg-type]
        prompt_dir=str(data.get("prompt_dir", str(data["name"]).replace("-", "_"))),
        fields={str(k): str(v) for k, v in dict(data["fields"]).items()},
        labels=tuple(str(lab) for lab in data["labels"]),
        id_field=str(data.get("id_field", "id")),
        label_field=str(data.get("label_field", "label")),
        negative_label=str(data.get("negative_label", "")),
        answer_tokens=tuple(str(t) for t in data.get("answer_tokens") or ()),
        flag=data.get("flag"),
        dimension=str(data.get("dimension") or ""),
        dimension_definition=str(data.get("dimension_definition") or ""),
        probes=data.get("probes"),
        image_fields=tuple(str(v) for v in data.get("image_fields") or ()),
        extra={k: v for k, v in data.items() if k not in known},
    )


def load_spec(name_or_path: str | Path) -> TaskSpec:
    """Load a built-in spec by name (``factual-consistency``, ``likert``, ``relevance``) or a file."""
    text_name = str(name_or_path)
    if text_name in BUILTIN_SPECS:
        raw = resources.files("backend").joinpath("specs", f"{text_name}.yaml").read_text("utf-8")
        return spec_from_mapping(yaml.safe_load(raw))
    path = Path(name_or_path)
    if not path.is_file():
        raise ValueError(f"unknown task spec {text_name!r}: not a built-in ({', '.join(BUILTIN_SPECS)}) nor a file")
    raw = path.read_text("utf-8")
    data = tomllib.loads(raw) if path.suffix == ".toml" else yaml.safe_load(raw)
    if not isinstance(data, Mapping):
        raise ValueError(f"{path}: a task spec is a mapping of keys")
    return spec_from_mapping(data)
