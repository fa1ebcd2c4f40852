"""Per-project task spec and model version, derived from the project's label config and cached.

Label Studio sends the label config with /setup and /predict, and PROJECT_UPDATED webhooks carry the
new one; the spec (and so the ``model_version``) is re-derived whenever it changes. Building the
ensemble for its fingerprint is not free (a local provider loads its model), hence the cache keyed by
the label config text.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from backend.labelstudio.projectspec import attach_guidelines, split_guidelines
from backend.ledger import Ledger
from backend.task.spec import TaskSpec
from backend.worker.ensemble_config import EnsembleConfig


@dataclass(frozen=True)
class ProjectContext:
    """What /predict and the webhooks need for one project."""

    project: str
    label_config: str
    spec: TaskSpec
    model_version: str  # the key: ledger, jobs, workers
    ls_version: str = ""  # what Label Studio stores and shows (readable name + key, backend.labelstudio.modelname)

    @property
    def label_studio_version(self) -> str:
        """The ``model_version`` written to Label Studio (the key itself when no name was derived)."""
        return self.ls_version or self.model_version


def project_id(raw: object) -> str:
    """LS sends ``"<id>.<timestamp>"`` in /setup and /predict, an object in webhooks, an int elsewhere."""
    if isinstance(raw, dict):
        raw = raw.get("id")
    text = str(raw if raw is not None else "").strip()
    head = text.split(".", 1)[0]
    if not head.isdigit():
        raise ValueError(f"not a Label Studio project id: {text!r}")
    return head


class ProjectSpecs:
    """Cache of label config -> (spec, model_version), remembering each project's latest config."""

    def __init__(self, ledger: Ledger, config: EnsembleConfig) -> None:
        self.ledger = ledger
        self.config = config
        self._by_config: dict[str, tuple[TaskSpec, str, str]] = {}
        self._lock = threading.Lock()

    def context(self, project: str, label_config: str | None = None, *, guidelines: str | None = None) -> ProjectContext:
        """The project's context; a new ``label_config`` is validated, then stored (ValueError if unusable).

        An unusable config is never stored: the project keeps its last good one. ``guidelines`` (the
        project's instructions) travel with the label config; None keeps the ones already known for the
        project, so a /predict that only sends the config does not drop them.
        """
        if label_config:
            known = self.ledger.project(project)
            if guidelines is None and known and known["label_config"]:
                guidelines = split_guidelines(known["label_config"])[1]
            label_config = attach_guidelines(label_config, guidelines)
            spec, version, name = self._derive(label_config)  # raises before anything is stored
            if known is None or (known["label_config"], known["control"]) != (label_config, self.config.control):
                self.ledger.set_project(project, label_config=label_config, label_field=self.config.label_field,
                                        control=self.config.control)
            return ProjectContext(project=project, label_config=label_config, spec=spec, model_version=version,
                                  ls_version=name)
        known = self.ledger.project(project)
        if not known or not known["label_config"]:
            raise ValueError(f"project {project}: no label config known yet (connect the backend first)")
        label_config = known["label_config"]
        spec, version, name = self._derive(label_config)
        return ProjectContext(project=project, label_config=label_config, spec=spec, model_version=version,
                              ls_version=name)

    def _derive(self, label_config: str) -> tuple[TaskSpec, str, str]:
        with self._lock:
            hit = self._by_config.get(label_config)
            if hit is None:
                spec = self.config.spec(label_config)
                hit = (spec, self.config.model_version(spec), self.config.ls_version(spec))
                self._by_config[label_config] = hit
            return hit
