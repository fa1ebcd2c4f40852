"""Blindness audit of review projects, read only through the Label Studio API (what an expert could see).

For every review and reconciliation project of a source project it reads the project settings, its ML
backends, every task (task listing with annotations and predictions, and the JSON export) and lists
each leak it finds: a prediction, an ML backend, a data column other than the inputs and the opaque
ref, an input that differs from the source item, an original label / ensemble prediction / score /
source task id anywhere in a task, or another expert's annotation in a round-1 project.
"""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET
from typing import Any, Mapping

from backend.labelstudio.client import iter_tasks
from backend.labelstudio.expert_instances import as_review_clients
from backend.labelstudio.tasks import annotation_results
from backend.labelstudio.taskshape import field
from backend.labelstudio.labelconfig import expert_field, expert_name
from backend.review.source import REF_FIELD
from backend.review.review_store import ROUND_REVIEW, ReviewStore

FORBIDDEN_WORDS = ("original", "llm", "prediction", "confidence", "score", "ensemble", "suspect", "flag")


def _dump(obj: Any) -> str:
    data = obj.model_dump() if hasattr(obj, "model_dump") else obj
    return json.dumps(data, default=str)


def _guessable_forms(task_id: str) -> set[str]:
    forms = {task_id, f"task-{task_id}", f"task_{task_id}"}
    for algo in ("md5", "sha1", "sha256"):
        forms.add(hashlib.new(algo, task_id.encode()).hexdigest())
    return forms


def blindness_leaks(
    client: Any,
    store: ReviewStore,
    source_key: str,
    *,
    source_inputs: Mapping[str, Mapping[str, Any]],
    secrets_by_task: Mapping[str, tuple[str | None, str | None, float | None]],
) -> list[str]:
    """Every leak found; an empty list means the review projects are blind.

    Parameters
    ----------
    client : LabelStudio or ReviewClients
        The review instance, or every review instance (each project is read on its own).
    source_inputs : mapping
        Source task id -> the inputs the expert may see (read from the source project).
    secrets_by_task : mapping
        Source task id -> (original label, ensemble prediction, confidence) that must not appear.
    """
    leaks: list[str] = []
    experts = store.experts(source_key)
    refs = {a.ref: a for a in store.assignments(source_key)}
    clients = as_review_clients(client)
    for project in store.projects(source_key):
        client = clients.for_instance(project.instance)
        pid = project.ls_project_id
        where = f"project {pid} ({project.display_name})"
        info = client.projects.get(id=pid)
        if info.show_collab_predictions:
            leaks.append(f"{where}: show_collab_predictions is on")
        if info.model_version:
            leaks.append(f"{where}: model_version {info.model_version!r} is set")
        if client.ml.list(project=pid):
            leaks.append(f"{where}: an ML backend is connected")
        text = " ".join(str(x or "") for x in (info.title, info.description, info.expert_instruction)).lower()
        for word in FORBIDDEN_WORDS:
            if word in text or word in (info.label_config or "").lower():
                leaks.append(f"{where}: title/description/config mentions {word!r}")
        root = ET.fromstring(info.label_config)
        shown = {el.get("value", "")[1:] for el in root.iter() if el.get("value", "").startswith("$")}
        allowed = set().union(*(set(v) for v in source_inputs.values())) if source_inputs else set()
        if project.round != ROUND_REVIEW:
            allowed |= {expert_field(i) for i in range(len(experts))}
        if shown - allowed:
            leaks.append(f"{where}: config shows fields {sorted(shown - allowed)}")
        if any(el.get("selected") for el in root.iter("Choice")):
            leaks.append(f"{where}: a choice is pre-selected")
        listed = list(iter_tasks(client, pid, with_annotations=True))
        exported = client.projects.exports.as_json(pid)
        for task in [*listed, *exported]:
            leaks.extend(_task_leaks(task, where, project, refs, experts, allowed, source_inputs, secrets_by_task))
    return leaks


def _task_leaks(task, where, project, refs, experts, allowed, source_inputs, secrets_by_task) -> list[str]:
    leaks: list[str] = []
    data = dict(field(task, "data", None) or {})
    tid = field(task, "id")
    ref = data.pop(REF_FIELD, None)
    assignment = refs.get(ref)
    if assignment is None or (assignment.round, assignment.expert) != (project.round, project.expert):
        return [f"{where} task {tid}: its ref is unknown or belongs to another project"]
    source_id = assignment.task_id
    if field(task, "predictions", None):
        leaks.append(f"{where} task {tid}: has predictions")
    if field(task, "meta", None):
        leaks.append(f"{where} task {tid}: has meta {field(task, 'meta')}")
    if set(data) - allowed:
        leaks.append(f"{where} task {tid}: extra data fields {sorted(set(data) - allowed)}")
    for name, value in source_inputs[source_id].items():
        if data.get(name) != value:
            leaks.append(f"{where} task {tid}: input {name!r} differs from the source item")
    if ref in _guessable_forms(source_id) or source_id in ref.split("-"):
        leaks.append(f"{where} task {tid}: ref is derived from the source task id")
    original, prediction, confidence = secrets_by_task[source_id]
    dumped = _dump(task)
    if confidence is not None and (repr(confidence) in dumped or f"{confidence:.6f}" in dumped):
        leaks.append(f"{where} task {tid}: the ensemble's confidence appears in the task")
    extra = {k: v for k, v in data.items() if k not in source_inputs[source_id]}
    expert_fields = [expert_field(i) for i in range(len(experts))]
    for name, value in extra.items():  # round 2: "Expert A: <answer>" only
        if name in expert_fields and not str(value).startswith(f"{expert_name(expert_fields.index(name))}: "):
            leaks.append(f"{where} task {tid}: {name} = {value!r} is not an expert answer")
    for label, what in ((original, "original label"), (prediction, "ensemble prediction")):
        if label is not None and any(str(v).strip() == label for v in extra.values()):
            leaks.append(f"{where} task {tid}: the {what} is shown as a bare value")
    if project.round == ROUND_REVIEW:
        others = [uid for _, uid, _ in annotation_results(task) if uid != project.expert_user_id]
        if others:
            leaks.append(f"{where} task {tid}: annotations by other users {others}")
    return leaks
