"""What the report printed, and what it should have printed: its figures read from the JSON beside the planted truth.

Every figure with an interval is found by its shape (a mapping with ``low`` and ``high``), wherever a section
keeps it, so a figure added later is listed without a change here; the ones whose estimand the harness knows
(:data:`TRUTHS`) are checked against it, the others are listed as "no planted truth". The planted truth of a
control is counted over the items that show it (its domain): an item's label is an error when the true value
and the original differ as the control's family calls a disagreement (an ordinal control: beyond ``delta``),
the item is flagged when the control's own verdict is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

from backend.api import parse_qid
from backend.families.controls import MEMBER_SEP
from backend.spans.value import decode_spans
from stats_cli.report.sections.spans import _error_kind
from stats_cli.stats.span_stats import ERROR_KINDS, QUESTION_OF_KIND
from backend.scoring.ensemble import disagrees, model_of
from backend.task.spec import TaskSpec

from .pipeline import Replicate

__all__ = ["ControlTruth", "EXACT", "Figure", "ROW_TRUTHS", "TRUTHS", "control_truths", "figures", "truth_of"]


@dataclass(frozen=True)
class ControlTruth:
    """A control's planted counts over its domain (``name`` ``""``: the project's one control)."""

    name: str
    population: int
    errors: int
    flagged: int
    flagged_errors: int
    annotators: Mapping[str, float] = field(default_factory=dict)  # each annotator's share of true answers
    judges: Mapping[str, float] = field(default_factory=dict)  # each member's and model's top-1 accuracy
    #: A span task's questions per error kind: (questions that can hold it, errors of it, flagged, flagged errors).
    kinds: Mapping[str, tuple[int, int, int, int]] = field(default_factory=dict)

    def ratio(self, num: int, den: int) -> float | None:
        return num / den if den else None


@dataclass(frozen=True)
class Figure:
    """One printed figure: where it is (section, control, path), its value and interval (None: none printed)."""

    section: str
    control: str
    path: str
    value: float | None
    low: float | None = None
    high: float | None = None

    @property
    def name(self) -> str:
        return f"{self.section}: {self.path}"


def _verdict(spec: TaskSpec, item: Any, name: str) -> Any:
    if not name:
        return item
    return next((q for q in item.questions if str(q.id) == name), None)


def control_truths(rep: Replicate) -> dict[str, ControlTruth]:
    """Planted counts per control (``""`` for a one-control project)."""
    spec = rep.spec
    controls = tuple(getattr(spec, "controls", ()) or ())
    by_id = {str(r.id): r for r in rep.results}
    out = {}
    for control in controls or (None,):
        name = control.name if control is not None else ""
        own = control.spec if control is not None else spec
        population = errors = flagged = flagged_errors = 0
        right: dict[str, int] = {}
        judged: dict[str, list[bool]] = {}
        for p in rep.planted:
            if control is not None:
                original = spec.task_family.control_values(spec, p.original).get(name)
                truth = spec.task_family.control_values(spec, p.truth).get(name)
            else:
                original, truth = p.original, p.truth
            if original is None:
                continue
            population += 1
            wrong = truth is None or disagrees(truth, original, own)
            verdict = _verdict(spec, by_id[p.id], name)
            flag = bool(verdict is not None and verdict.flagged)
            errors += wrong
            flagged += flag
            flagged_errors += wrong and flag
            if control is None:
                for annotator, answer in p.crowd.items():
                    right[annotator] = right.get(annotator, 0) + (answer == truth)
            if verdict is not None and truth is not None and not spec.task_family.span_valued:
                for source, top in _tops(verdict, own).items():
                    judged.setdefault(source, []).append(top == truth)
        out[name] = ControlTruth(name, population, errors, flagged, flagged_errors,
                                 {a: k / population for a, k in right.items()} if population else {},
                                 {j: sum(v) / len(v) for j, v in judged.items()},
                                 span_kinds(rep) if spec.task_family.span_valued else {})
    return out


def span_kinds(rep: Replicate) -> dict[str, tuple[int, int, int, int]]:
    """Per error kind, over the questions asked of every item: what the true spans make of each (the spans
    section's definition of an error kind, :func:`stats_cli.report.sections.spans._error_kind`)."""
    truth = {p.id: decode_spans(p.truth) for p in rep.planted}
    counts = {kind: [0, 0, 0, 0] for kind in ERROR_KINDS}
    for item in rep.results:
        for part in item.questions if item.prediction is not None else ():
            question = parse_qid(str(part.id))
            found = _error_kind(question, truth[str(item.id)])
            for kind in ERROR_KINDS:
                if QUESTION_OF_KIND[kind] != question.kind:
                    continue
                c = counts[kind]
                c[0] += 1
                c[1] += found == kind
                c[2] += bool(part.flagged)
                c[3] += bool(part.flagged) and found == kind
    return {kind: (c[0], c[1], c[2], c[3]) for kind, c in counts.items()}


def _tops(verdict: Any, spec: TaskSpec) -> dict[str, str]:
    """Each member's and each model's (its prompts averaged) top label on one verdict."""
    labels = list(spec.labels)
    out, by_model = {}, {}
    for m in verdict.members:
        if not m.probs:
            continue
        member = m.member_id.split(MEMBER_SEP)[0]
        out[member] = max(labels, key=lambda lab: (m.probs.get(lab, 0.0), -labels.index(lab)))
        by_model.setdefault(model_of(member), []).append(m.probs)
    for model, dists in by_model.items():
        out[model] = max(labels, key=lambda lab: (sum(d.get(lab, 0.0) for d in dists), -labels.index(lab)))
    return out


Truth = Callable[[ControlTruth], float | None]

#: Figures with an interval whose estimand the harness knows: (section, path) -> the planted value.
TRUTHS: dict[tuple[str, str], Truth] = {
    ("errors", "estimate.rate"): lambda t: t.ratio(t.errors, t.population),
    ("errors", "estimate.errors_estimate"): lambda t: float(t.errors),
    ("errors", "estimate.precision"): lambda t: t.ratio(t.flagged_errors, t.flagged),
    ("errors", "estimate.recall"): lambda t: t.ratio(t.flagged_errors, t.errors),
    ("errors", "estimate.errors_left"): lambda t: float(t.errors - t.flagged_errors),
}
for _kind in ERROR_KINDS:  # a span task's figures per error kind (the spans section)
    TRUTHS[("spans", f"errors.{_kind}.rate")] = lambda t, k=_kind: t.ratio(*t.kinds[k][1::-1]) if k in t.kinds else None
    TRUTHS[("spans", f"errors.{_kind}.confirmed among the reviewed flags")] = \
        lambda t, k=_kind: t.ratio(t.kinds[k][3], t.kinds[k][2]) if k in t.kinds else None
#: Figures without an interval that are exact once every item is reviewed: (section, path) -> the planted value.
EXACT: dict[tuple[str, str], Truth] = {
    ("errors", "floor.rate"): lambda t: t.ratio(t.errors, t.population),
    ("errors", "floor.confirmed_errors"): lambda t: float(t.errors),
    ("errors", "floor.population"): lambda t: float(t.population),
    ("errors", "reviewed.n_errors"): lambda t: float(t.errors),
    ("errors", "reviewed.sample"): lambda t: float(t.population),
}


#: Per-row figures of a table: (section, table title, column) -> the planted value for the row's first cell.
ROW_TRUTHS: dict[tuple[str, str, str], Callable[[ControlTruth, str], float | None]] = {
    ("crowd", "Each annotator against gold", "accuracy vs gold"): lambda t, who: t.annotators.get(who),
}


def truth_of(figure: "Figure", truths: Mapping[str, ControlTruth]) -> tuple[bool, float | None]:
    """(whether the harness knows the figure's estimand, its planted value in this replicate)."""
    control = truths.get(figure.control) or truths.get("")
    known = TRUTHS.get((figure.section, figure.path)) or EXACT.get((figure.section, figure.path))
    if known is not None:
        return True, None if control is None else known(control)
    if figure.section == "triage" and figure.path.startswith("sources[") and control is not None:
        source = figure.path[len("sources["):-1]  # an annotator, a member or a model (prompts averaged)
        if source.startswith("annotator:"):  # the truth model names the crowd's sources so
            return True, control.annotators.get(source.split(":", 1)[1])
        return True, control.judges.get(source)
    parts = figure.path.split(" | ")
    if len(parts) == 3 and (figure.section, parts[0], parts[2]) in ROW_TRUTHS:
        return True, None if control is None else ROW_TRUTHS[figure.section, parts[0], parts[2]](control, parts[1])
    return False, None


def _number(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def _walk(node: Any, path: str) -> Iterator[tuple[str, Any]]:
    yield path, node
    if isinstance(node, Mapping):
        for key, value in node.items():
            yield from _walk(value, f"{path}.{key}" if path else str(key))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            yield from _walk(value, f"{path}[{_name(value, k)}]")


def _name(node: Any, index: int) -> str:
    """A list element's name: its source, member, annotator or label when it says one, else its place."""
    if isinstance(node, Mapping):
        for key in ("source", "member", "annotator", "model", "label", "name"):
            if isinstance(node.get(key), str):
                return node[key]
    return str(index)


def _point(node: Mapping[str, Any]) -> float | None:
    for key in ("value", "rate", "estimate", "accuracy", "kappa", "alpha", "mean", "share", "point"):
        if key in node:
            return _number(node[key])
    return None


def _table_figures(key: str, control: str, table: Mapping[str, Any]) -> Iterator[Figure]:
    """Rows of a table with a value column followed by its low and high columns (``estimate, low, high``)."""
    columns = [str(c).lower() for c in table.get("columns", ())]
    title = str(table.get("title", "")).split(" (")[0]
    for at in range(1, len(columns) - 2):
        if "low" in columns[at + 1] and "high" in columns[at + 2]:
            for k, row in enumerate(table.get("rows", ())):
                label = f"row {k + 1}" if _number(row[0]) is not None or "–" in str(row[0]) else row[0]
                yield Figure(key, control, f"{title} | {label} | {table['columns'][at]}", _number(row[at]),
                             _number(row[at + 1]), _number(row[at + 2]))


def figures(report: Mapping[str, Any]) -> Iterator[Figure]:
    """Every figure with an interval (in the values, else in a table), and every figure of :data:`EXACT`."""
    exact = {path for section, path in EXACT}
    for section in report.get("sections", ()):
        key, control = section.get("key", ""), section.get("control") or ""
        found = False
        for path, node in _walk(section.get("values") or {}, ""):
            if isinstance(node, Mapping) and "low" in node and "high" in node:
                found = True
                yield Figure(key, control, path, _point(node), _number(node["low"]), _number(node["high"]))
            elif (key, path) in EXACT and path in exact:
                yield Figure(key, control, path, _number(node))
        if key == "spans":  # each kind's share confirmed among the reviewed flags (flat Clopper-Pearson bounds)
            for kind, e in ((section.get("values") or {}).get("errors") or {}).items():
                if isinstance(e, Mapping) and e.get("reviewed_flagged"):
                    yield Figure(key, control, f"errors.{kind}.confirmed among the reviewed flags",
                                 e["confirmed"] / e["reviewed_flagged"], _number(e.get("precision_low")),
                                 _number(e.get("precision_high")))
            found = True  # its tables repeat these
        if not found:  # a section that keeps its intervals in its tables only
            for table in section.get("tables") or ():
                yield from _table_figures(key, control, table)
