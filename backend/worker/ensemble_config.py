"""What the backend and its workers judge with: the ensemble view of :class:`backend.config.settings.Settings`.

The web backend computes the ``model_version`` it reports to Label Studio from this view and the
project's label config, without building any provider (:func:`backend.scoring.members.spec_fingerprint`).
Each worker takes the same view of the settings its process resolved at start (:mod:`backend.worker.start`)
and refuses a job whose model version differs (see :mod:`backend.worker.jobs`): what a job may ask for is
never trusted to choose endpoints or keys. The view holds the settings, it copies none of their fields.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from backend.config.settings import Settings
from backend.images.vision import check_entries_see
from backend.labelstudio.modelname import readable_version
from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.members import Member, MemberSpec, build_members, spec_fingerprint
from backend.task.spec import TaskSpec

MODEL_VERSION_PREFIX = "label-audit-"


class EnsembleConfig:
    """The ensemble and task options of a backend deployment: a view of one :class:`Settings`.

    ``EnsembleConfig(settings)`` reads everything from ``settings``; keyword options (``members``,
    ``batch_size``, ``threshold``...; members-file dicts are accepted) replace those fields of it, or of
    the default settings, as tests and benchmarks build one. The fields read are ``spec_name``,
    ``members``, ``label_field``, ``control``, ``threshold``, ``delta`` (None: the task spec's own flag
    rule, see :func:`backend.scoring.ensemble.flag_rule`), ``batch_size`` (tasks per RQ job),
    ``max_item_chars``, ``prior_correction`` (the audit's project pass), what a spec is derived with
    (``Settings.spec_options()``: option orders, calibration, the named negative class), the prompts folder,
    and the providers' keys and models folder.
    """

    __slots__ = ("settings",)

    def __init__(self, settings: Settings | None = None, **options: Any) -> None:
        if "members" in options:
            options["members"] = tuple(MemberSpec.from_dict(m) for m in options["members"])
        base = settings if settings is not None else Settings()
        resolved = replace(base, **options) if options else base
        if resolved.max_item_chars < 1:
            raise ValueError(f"max_item_chars must be >= 1, got {resolved.max_item_chars}")
        object.__setattr__(self, "settings", resolved)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("EnsembleConfig is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EnsembleConfig) and other.settings == self.settings

    def __hash__(self) -> int:
        return hash(self.settings)

    def __repr__(self) -> str:
        return f"EnsembleConfig({self.settings!r})"

    spec_name = property(lambda self: self.settings.spec_name)
    members = property(lambda self: self.settings.members)
    label_field = property(lambda self: self.settings.label_field)
    control = property(lambda self: self.settings.control)
    threshold = property(lambda self: self.settings.threshold)
    delta = property(lambda self: self.settings.delta)
    batch_size = property(lambda self: self.settings.batch_size)
    max_item_chars = property(lambda self: self.settings.max_item_chars)
    prior_correction = property(lambda self: self.settings.prior_correction)

    @classmethod
    def from_settings(cls, settings: Settings) -> "EnsembleConfig":
        """The backend's and workers' view of the run settings."""
        return cls(settings)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (for display and tests; jobs no longer carry it)."""
        return {
            "spec_name": self.spec_name, "members": [m.to_dict() for m in self.members],
            "label_field": self.label_field, "control": self.control, "threshold": self.threshold,
            "delta": self.delta, "batch_size": self.batch_size,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "EnsembleConfig":
        known = {"spec_name", "members", "label_field", "control", "threshold", "delta", "batch_size",
                 "max_item_chars"}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["members"] = tuple(data.get("members", ()))
        return cls(**kwargs)

    def spec(self, label_config: str) -> TaskSpec:
        """The project's task spec, derived from its label config (raises ValueError if unusable).

        An image project whose members all take no images is unusable: refused here, once, before any
        task is queued (:mod:`backend.images.vision`).
        """
        spec = spec_from_label_config(
            label_config, label_field=self.label_field, name=self.spec_name, control=self.control,
            **self.settings.spec_options(),
        )
        check_entries_see(spec, self.members)
        return spec

    def member_specs(self) -> list[MemberSpec]:
        return list(self.members)

    def build(self, spec: TaskSpec) -> list[Member]:
        """The ensemble's members for a spec (providers load their models lazily)."""
        return build_members(self.members, spec, providers=self.settings.provider_settings(),
                             prompts_root=self.settings.prompts_dir)

    def model_version(self, spec: TaskSpec) -> str:
        """``label-audit-<fingerprint>``: changes exactly when a re-score could change; builds no provider.

        The prior correction enters when not ``none`` (the audit's project pass re-reads every verdict with it,
        :mod:`backend.worker.audit_pass`): a corrected audit never shares a version with an uncorrected one.
        """
        return MODEL_VERSION_PREFIX + spec_fingerprint(self.members, spec, prompts_root=self.settings.prompts_dir,
                                                       order_skip=self.settings.order_skip,
                                                       prior_correction=self.prior_correction)

    def ls_version(self, spec: TaskSpec) -> str:
        """The ``model_version`` written to Label Studio: judges and rule, then :meth:`model_version` (the key
        every reader maps it back to, :func:`backend.labelstudio.modelname.version_key`)."""
        return readable_version(self.model_version(spec), self.members, spec, threshold=self.threshold,
                                delta=self.delta, prompts_root=self.settings.prompts_dir,
                                prior_correction=self.prior_correction)
