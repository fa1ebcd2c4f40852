"""Task specs: which dataset fields feed which template variables, and what the label set is.

A spec is the one place that says how to read an item, so the engine, the Label Studio backend and the
probes all agree on ids, labels and class order. Built-in specs ship as YAML in ``backend/specs``;
any other spec is a YAML or TOML file with the same keys.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Mapping

import yaml

from backend.labels import normalize_label as canonical_label

Family = Literal["binary", "ordinal", "nominal"]
FAMILIES = ("binary", "ordinal", "nominal")
BUILTIN_SPECS = ("factual-consistency", "likert", "relevance")


@dataclass(frozen=True)
class TaskSpec:
    """How to read and judge one dataset.

    Parameters
    ----------
    name : str
        Spec name, enters reports and the Label Studio model version.
    family : {"binary", "ordinal", "nominal"}
        Binary and nominal (k >= 2 unordered labels) flag any disagreement; ordinal flags
        ``|prediction - original| > delta``.
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

    Examples
    --------
    >>> spec = load_spec("factual-consistency")
    >>> spec.labels, spec.family
    (('0', '1'), 'binary')
    >>> spec.normalize_label(1.0)
    '1'
    """

    name: str
    family: Family
    prompt_dir: str
    fields: Mapping[str, str]
    labels: tuple[str, ...]
    id_field: str = "id"
    label_field: str = "label"
    negative_label: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    answer_tokens: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {self.family!r}")
        if len(self.labels) < 2:
            raise ValueError("a task needs at least two labels")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"labels must be distinct: {self.labels}")
        if self.family == "binary" and len(self.labels) != 2:
            raise ValueError("a binary task has exactly two labels")
        if not self.fields:
            raise ValueError("a task spec maps at least one template variable to a field")
        if self.negative_label == "" and self.family != "nominal" and self._numeric:
            object.__setattr__(self, "negative_label", self.labels[0])  # 0 / the lowest grade
        if self.negative_label and self.negative_label not in self.labels:
            raise ValueError(f"negative_label {self.negative_label!r} is not in labels {self.labels}")
        tokens = tuple(str(t) for t in self.answer_tokens)
        object.__setattr__(self, "answer_tokens", tokens)
        if tokens and (len(tokens) != len(self.labels) or len(set(tokens)) != len(tokens)):
            raise ValueError(f"answer_tokens must be {len(self.labels)} distinct tokens, one per label: {tokens}")

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
        """Map a raw label (``1``, ``"1"``, ``1.0``, ``" 1 "``) to the spec's label string, or None.

        An exact label wins; otherwise the one normaliser of :mod:`backend.labels` decides.
        """
        if value is None:
            return None
        text = str(value).strip()
        if text in self.labels:
            return text
        canonical = canonical_label(value)
        if canonical is not None and canonical in self.labels:
            return canonical
        try:
            float(text)
        except ValueError:
            return self._casefold_match(text) if self.family == "nominal" or not self._numeric else None
        return None

    def _casefold_match(self, text: str) -> str | None:
        folded = [lab for lab in self.labels if lab.casefold() == text.casefold()]
        return folded[0] if len(folded) == 1 else None

    @property
    def _numeric(self) -> bool:
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
        }


def spec_from_mapping(data: Mapping[str, Any]) -> TaskSpec:
    """Build a spec from parsed YAML/TOML, raising ValueError with the missing key's name."""
    missing = [k for k in ("name", "family", "fields", "labels") if k not in data]
    if missing:
        raise ValueError(f"task spec is missing {', '.join(missing)}")
    known = {"name", "family", "prompt_dir", "fields", "labels", "id_field", "label_field", "negative_label",
             "answer_tokens"}
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
