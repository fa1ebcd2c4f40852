"""What the backend and its workers judge with: the ensemble view of :class:`backend.config.settings.Settings`.

The web backend computes the ``model_version`` it reports to Label Studio from this config and the
project's label config, without building any provider (:func:`backend.scoring.members.spec_fingerprint`).
Each worker builds the same view from its own settings and refuses a job whose model version differs
(see :mod:`backend.worker.jobs`): what a job may ask for is never trusted to choose endpoints or keys.
Secrets are never part of it: providers read API keys from the worker's environment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from backend.common import defaults
from backend.images.vision import check_entries_see
from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.members import Member, MemberSpec, build_members, parse_member_arg, spec_fingerprint
from backend.config.settings import Settings, check_ensemble_values
from backend.task.spec import TaskSpec

MODEL_VERSION_PREFIX = "label-audit-"


@dataclass(frozen=True)
class EnsembleConfig:
    """The ensemble and task options of a backend deployment.

    Parameters
    ----------
    spec_name : str
        ``auto`` (default): a built-in spec when the project has its fields and labels, else the generic
        prompts built from the project itself; or a built-in name (used when the project has its fields).
    members : tuple of MemberSpec
        Model entries; members-file dicts are accepted and converted by :meth:`MemberSpec.from_dict`.
    label_field : str, optional
        Take the original label from this data field instead of the tasks' annotations.
    control : str, optional
        The controls to audit, comma-separated (default: every control a judge can answer).
    threshold : float, optional
        Flag confidence threshold (default: the engine's per-family default).
    delta : int, optional
        Ordinal flag distance: flag when ``|pred - orig| > delta`` (None: the task spec's own rule, as in
        `label-audit score` without ``--delta``; see :func:`backend.scoring.ensemble.flag_rule`).
    batch_size : int
        Tasks per RQ job.
    """

    spec_name: str = defaults.SPEC
    members: tuple[MemberSpec, ...] = field(default_factory=lambda: (parse_member_arg(defaults.MEMBER),))
    label_field: str | None = None
    control: str | None = None
    threshold: float | None = None
    delta: int | None = None
    batch_size: int = defaults.BATCH_SIZE
    max_item_chars: int = defaults.MAX_ITEM_CHARS

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", tuple(MemberSpec.from_dict(m) for m in self.members))
        check_ensemble_values(members=self.members, batch_size=self.batch_size, threshold=self.threshold,
                              delta=self.delta)
        if self.max_item_chars < 1:
            raise ValueError(f"max_item_chars must be >= 1, got {self.max_item_chars}")

    @classmethod
    def from_settings(cls, settings: Settings) -> "EnsembleConfig":
        """The backend's and workers' view of the run settings."""
        return cls(spec_name=settings.spec_name, members=settings.members, label_field=settings.label_field,
                   control=settings.control, threshold=settings.threshold, delta=settings.delta,
                   batch_size=settings.batch_size, max_item_chars=settings.max_item_chars)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "EnsembleConfig":
        """The ensemble view of :meth:`backend.config.settings.Settings.from_env`."""
        return cls.from_settings(Settings.from_env(env))

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (for display and tests; jobs no longer carry it)."""
        return {
            "spec_name": self.spec_name, "members": [m.to_dict() for m in self.members],
            "label_field": self.label_field, "control": self.control, "threshold": self.threshold,
            "delta": self.delta, "batch_size": self.batch_size,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "EnsembleConfig":
        known = set(cls.__dataclass_fields__)
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["members"] = tuple(data.get("members", ()))
        return cls(**kwargs)

    def spec(self, label_config: str) -> TaskSpec:
        """The project's task spec, derived from its label config (raises ValueError if unusable).

        An image project whose members all take no images is unusable: refused here, once, before any
        task is queued (:mod:`backend.images.vision`).
        """
        spec = spec_from_label_config(
            label_config, label_field=self.label_field, name=self.spec_name, control=self.control
        )
        check_entries_see(spec, self.members)
        return spec

    def member_specs(self) -> list[MemberSpec]:
        return list(self.members)

    def build(self, spec: TaskSpec) -> list[Member]:
        """The ensemble's members for a spec (providers load their models lazily)."""
        return build_members(self.members, spec)

    def model_version(self, spec: TaskSpec) -> str:
        """``label-audit-<fingerprint>``: changes exactly when a re-score could change; builds no provider."""
        return MODEL_VERSION_PREFIX + spec_fingerprint(self.members, spec)

    def ls_version(self, spec: TaskSpec) -> str:
        """The ``model_version`` written to Label Studio: judges and rule, then :meth:`model_version` (the key
        every reader maps it back to, :func:`backend.labelstudio.modelname.version_key`)."""
        from backend.labelstudio.modelname import readable_version

        return readable_version(self.model_version(spec), self.members, spec, threshold=self.threshold,
                                delta=self.delta)
