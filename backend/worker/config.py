"""What the backend and its workers judge with: one JSON-able ensemble config shared by both.

The web backend computes the ``model_version`` it reports to Label Studio from this config and the
project's label config; the RQ job carries the same config, so the worker scores with exactly the
ensemble the backend advertised (no drift between two processes' environments). Secrets are never
part of it: providers read API keys from the worker's environment (``api_key_env`` names them).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from backend.labelstudio.projectspec import spec_from_label_config
from backend.members import (
    DEFAULT_MEMBER,
    Member,
    MemberSpec,
    build_members,
    ensemble_fingerprint,
    member_specs_from_config,
    parse_member_arg,
)
from backend.taskspec import TaskSpec

MODEL_VERSION_PREFIX = "label-audit-"


@dataclass(frozen=True)
class EnsembleConfig:
    """The ensemble and task options of a backend deployment.

    Parameters
    ----------
    spec_name : str
        ``auto`` (default): a built-in spec when the project has its fields and labels, else the generic
        prompts built from the project itself; or a built-in name (used when the project has its fields).
    members : tuple of dict
        Model entries (``provider``, ``model``, ``base_url``, ``prompts``, ``options``) as in a members file.
    label_field : str, optional
        Take the original label from this data field instead of the tasks' annotations.
    control : str, optional
        The ``<Choices>`` control to audit when the label config has several.
    threshold : float, optional
        Flag confidence threshold (default: the engine's per-family default).
    batch_size : int
        Tasks per RQ job.
    """

    spec_name: str = "auto"
    members: tuple[Mapping[str, Any], ...] = field(default_factory=lambda: (_entry(parse_member_arg(DEFAULT_MEMBER)),))
    label_field: str | None = None
    control: str | None = None
    threshold: float | None = None
    batch_size: int = 16

    def __post_init__(self) -> None:
        if not self.members:
            raise ValueError("the ensemble needs at least one member")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size}")
        if self.threshold is not None and not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be within [0, 1], got {self.threshold}")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "EnsembleConfig":
        """Read ``LABEL_AUDIT_{SPEC,MEMBERS,MEMBERS_FILE,LABEL_FIELD,CONTROL,THRESHOLD,BATCH}``."""
        env = os.environ if env is None else env
        if env.get("LABEL_AUDIT_MEMBERS_FILE"):
            entries = member_specs_from_config(env["LABEL_AUDIT_MEMBERS_FILE"])
        else:
            args = [a for a in env.get("LABEL_AUDIT_MEMBERS", DEFAULT_MEMBER).split(",") if a.strip()]
            entries = [parse_member_arg(a) for a in args]
        threshold = env.get("LABEL_AUDIT_THRESHOLD")
        return cls(
            spec_name=env.get("LABEL_AUDIT_SPEC", "auto"),
            members=tuple(_entry(e) for e in entries),
            label_field=env.get("LABEL_AUDIT_LABEL_FIELD") or None,
            control=env.get("LABEL_AUDIT_CONTROL") or None,
            threshold=float(threshold) if threshold else None,
            batch_size=int(env.get("LABEL_AUDIT_BATCH", "16")),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form carried by every job."""
        out = asdict(self)
        out["members"] = [dict(m) for m in self.members]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "EnsembleConfig":
        known = set(cls.__dataclass_fields__)
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["members"] = tuple(dict(m) for m in data.get("members", ()))
        return cls(**kwargs)

    def spec(self, label_config: str) -> TaskSpec:
        """The project's task spec, derived from its label config (raises ValueError if unusable)."""
        return spec_from_label_config(
            label_config, label_field=self.label_field, name=self.spec_name, control=self.control
        )

    def member_specs(self) -> list[MemberSpec]:
        return [
            MemberSpec(
                provider=m["provider"],
                model=m["model"],
                base_url=m.get("base_url"),
                prompts=tuple(m["prompts"]) if m.get("prompts") else None,
                options=dict(m.get("options") or {}),
            )
            for m in self.members
        ]

    def build(self, spec: TaskSpec) -> list[Member]:
        """The ensemble's members for a spec (providers load their models lazily)."""
        return build_members(self.member_specs(), spec)

    def model_version(self, spec: TaskSpec, members: list[Member] | None = None) -> str:
        """``label-audit-<fingerprint>``: changes exactly when a re-score could change."""
        return MODEL_VERSION_PREFIX + ensemble_fingerprint(members or self.build(spec), spec)


def _entry(spec: MemberSpec) -> dict[str, Any]:
    return {
        "provider": spec.provider,
        "model": spec.model,
        "base_url": spec.base_url,
        "prompts": list(spec.prompts) if spec.prompts else None,
        "options": dict(spec.options or {}),
    }
