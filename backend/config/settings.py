"""The settings of a deployment or run, resolved once from CLI options, the environment and files.

The environment is read through :mod:`backend.common.environment` only: :meth:`Settings.from_env` takes one
snapshot and turns it into typed values (defaults from :mod:`backend.common.defaults`), and the parts of the
program take views of the result — :meth:`Settings.engine_config` for the scoring engine,
:meth:`backend.worker.ensemble_config.EnsembleConfig.from_settings` for the Label Studio backend and its workers
(the view depends on the settings, never the other way round). CLI options override the environment
through ``overrides`` (``Settings.from_env(threshold=0.7)``).

Secrets (the Label Studio token, the backend's password, provider keys) are fields with
``repr=False`` and are listed by :meth:`Settings.secrets` for redaction. The API keys are resolved here too,
by variable name (each provider's default variables and every ``options.api_key_env`` a member names), and
reach the providers through :meth:`Settings.provider_settings`; the values a task spec is derived with
(option orders, multi-label orders, calibration, the named negative class) through :meth:`Settings.spec_options`, the prompt
templates' folder as :attr:`Settings.prompts_dir`. No module below the edges reads the environment.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from backend.common import defaults
from backend.common.environment import environment, parse_bool
from backend.scoring.ensemble import Quorum
from backend.providers.provider_settings import ProviderSettings
from backend.providers.registry import default_key_variables
from backend.task.calibration_setting import CALIBRATION_ENV, check_mode
from backend.scoring.prior_shift import check_mode as check_prior_correction
from backend.task.option_orders import OPTION_ORDERS_ENV, resolve_orders
from backend.task.multilabel_orders import MULTILABEL_ORDERS_ENV, check_multilabel_orders
from backend.scoring.members import MemberSpec, exclude_members, member_specs_from_config, parse_member_arg
from backend.scoring.engine_config import EngineConfig
from backend.scoring.order_skip import OrderSkip

__all__ = ["Settings", "check_ensemble_values"]

#: Environment variables holding provider keys and other tokens (redacted when set): every provider's
#: default key variables (declared beside its registration) and the review instance's token.
PROVIDER_KEY_VARIABLES = (*default_key_variables(), "LABEL_AUDIT_REVIEW_API_KEY")


def check_ensemble_values(*, members: tuple, batch_size: int, threshold: float | None, delta: int | None) -> None:
    """The checks shared by :class:`Settings` and its view :class:`backend.worker.ensemble_config.EnsembleConfig` (ValueError)."""
    if not members:
        raise ValueError("the ensemble needs at least one member")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be within [0, 1], got {threshold}")
    if delta is not None and delta < 0:
        raise ValueError(f"delta must be >= 0, got {delta}")


def _number(env: Mapping[str, str], name: str, kind: type, default: Any) -> Any:
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(f"{name} must be a {kind.__name__}, got {raw!r}") from None


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    """A yes/no variable: unset or empty keeps ``default``; anything but yes/no words is a ValueError."""
    raw = (env.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw not in {"1", "true", "yes", "on", "0", "false", "no", "off"}:
        raise ValueError(f"{name} must be true or false, got {raw!r}")
    return parse_bool(raw)


def _orders(env: Mapping[str, str]) -> int:
    """``LABEL_AUDIT_OPTION_ORDERS``: an integer >= 1 (ValueError naming the variable), unset the default."""
    raw = (env.get(OPTION_ORDERS_ENV) or "").strip()
    return resolve_orders(raw or defaults.OPTION_ORDERS)


def _members(env: Mapping[str, str]) -> tuple[MemberSpec, ...]:
    if env.get("LABEL_AUDIT_MEMBERS_FILE"):
        return tuple(member_specs_from_config(env["LABEL_AUDIT_MEMBERS_FILE"]))
    args = [a for a in (env.get("LABEL_AUDIT_MEMBERS") or defaults.MEMBER).split(",") if a.strip()]
    return tuple(parse_member_arg(a) for a in args)


def _names(raw: str | None) -> tuple[str, ...]:
    """A comma-separated list of names (``LABEL_AUDIT_EXCLUDE_MEMBERS``), blanks dropped."""
    return tuple(n.strip() for n in (raw or "").split(",") if n.strip())


@dataclass(frozen=True)
class Settings:
    """Everything a run or a deployment is configured with (see the module docstring)."""

    members: tuple[MemberSpec, ...] = (parse_member_arg(defaults.MEMBER),)
    exclude_members: tuple[str, ...] = ()  # members left out (already recorded on ``members``, kept for display)
    spec_name: str = defaults.SPEC
    label_field: str | None = None
    control: str | None = None
    threshold: float | None = None
    delta: int | None = None  # None: the task spec's own flag rule (a boundary rule stays boundary-only)
    quorum_share: float = defaults.QUORUM_SHARE
    quorum_models: bool = defaults.QUORUM_MODELS
    early_exit: bool = defaults.EARLY_EXIT  # set by `score --early-exit` only: workers have no price order
    # LABEL_AUDIT_ORDER_SKIP: false, true/exact (later orders only where they can flip the flag) or margin:M (lossy)
    order_skip: OrderSkip = OrderSkip.parse(defaults.ORDER_SKIP)
    batch_size: int = defaults.BATCH_SIZE
    concurrency: int = defaults.CONCURRENCY
    timeout: float = defaults.TIMEOUT
    max_attempts: int = defaults.MAX_ATTEMPTS
    database_url: str | None = field(default=None, repr=False)  # may hold a password
    home: Path = Path(defaults.HOME)
    redis_url: str = field(default=defaults.REDIS_URL, repr=False)  # may hold a password
    queue: str = defaults.QUEUE
    import_wait: float = defaults.IMPORT_WAIT  # see backend.worker.importer
    label_studio_url: str | None = None
    label_studio_token: str | None = field(default=None, repr=False)
    auth_user: str | None = None
    auth_password: str | None = field(default=None, repr=False)
    insecure_no_auth: bool = False
    max_request_bytes: int = defaults.MAX_REQUEST_BYTES
    max_item_chars: int = defaults.MAX_ITEM_CHARS
    image_hosts: tuple[str, ...] = ()  # storage hosts images may be fetched from besides Label Studio
    image_max_bytes: int = defaults.IMAGE_MAX_BYTES
    provider_keys: tuple[str, ...] = field(default=(), repr=False)
    review_url: str | None = None  # the shared review instance (LABEL_AUDIT_REVIEW_URL)
    review_token: str | None = field(default=None, repr=False)  # its token (LABEL_AUDIT_REVIEW_API_KEY)
    expert_instances: str | None = None  # the expert -> own instance map file (LABEL_AUDIT_EXPERT_INSTANCES)
    # Resolved API keys, (variable name, value) for every key variable set: each provider's defaults and the
    # variables members name (options.api_key_env). Providers get them, never the environment.
    api_keys: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    models_dir: Path = Path(defaults.MODELS_DIR)  # named local judges (LABEL_AUDIT_MODELS_DIR)
    prompts_dir: Path | None = None  # the prompt templates' folder (LABEL_AUDIT_PROMPTS); None: the shipped one
    # What a task spec is derived with (see spec_options): they enter its model version.
    option_orders: int = defaults.OPTION_ORDERS  # LABEL_AUDIT_OPTION_ORDERS, --option-orders
    calibration: str = defaults.CALIBRATION  # LABEL_AUDIT_CALIBRATION
    multilabel_orders: int = defaults.MULTILABEL_ORDERS  # LABEL_AUDIT_MULTILABEL_ORDERS: 1 or 2
    # LABEL_AUDIT_PRIOR_CORRECTION (`score --prior-correction`; the audit's project pass): enters the model version
    prior_correction: str = defaults.PRIOR_CORRECTION
    negative_label: str | None = None  # the "nothing here" class, where a project's labels hold it (LABEL_AUDIT_NEGATIVE_LABEL)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> "Settings":
        """Settings from ``env`` (default: the process environment), then ``overrides`` (CLI options).

        An override of None means "not given" and keeps the environment's value; members given as an
        override are used without reading (or validating) the environment's members. The members left out
        (``exclude_members``, else ``LABEL_AUDIT_EXCLUDE_MEMBERS``) are taken out of them here, once.
        """
        env = environment() if env is None else env
        overrides = dict(overrides)
        left_out = tuple(overrides.pop("exclude_members", None) or
                         _names(env.get("LABEL_AUDIT_EXCLUDE_MEMBERS") or defaults.EXCLUDE_MEMBERS))
        members = exclude_members(overrides.pop("members", None) or _members(env), left_out)
        key_names = set(PROVIDER_KEY_VARIABLES) | {
            str(m.options["api_key_env"]) for m in members if m.options and m.options.get("api_key_env")
        }
        api_keys = tuple((n, env[n]) for n in sorted(key_names) if env.get(n))
        values: dict[str, Any] = {
            "members": members,
            "exclude_members": left_out,
            "spec_name": env.get("LABEL_AUDIT_SPEC") or defaults.SPEC,
            "label_field": env.get("LABEL_AUDIT_LABEL_FIELD") or None,
            "control": env.get("LABEL_AUDIT_CONTROL") or None,
            "threshold": _number(env, "LABEL_AUDIT_THRESHOLD", float, None),
            "delta": _number(env, "LABEL_AUDIT_DELTA", int, None),
            "quorum_share": _number(env, "LABEL_AUDIT_QUORUM", float, defaults.QUORUM_SHARE),
            "quorum_models": _flag(env, "LABEL_AUDIT_QUORUM_MODELS", defaults.QUORUM_MODELS),
            "batch_size": _number(env, "LABEL_AUDIT_BATCH", int, defaults.BATCH_SIZE),
            "concurrency": _number(env, "LABEL_AUDIT_CONCURRENCY", int, defaults.CONCURRENCY),
            "timeout": _number(env, "LABEL_AUDIT_TIMEOUT", float, defaults.TIMEOUT),
            "max_attempts": _number(env, "LABEL_AUDIT_MAX_ATTEMPTS", int, defaults.MAX_ATTEMPTS),
            "database_url": env.get("DATABASE_URL") or None,
            "home": Path(env.get("LABEL_AUDIT_HOME") or defaults.HOME),
            "redis_url": env.get("REDIS_URL") or defaults.REDIS_URL,
            "queue": env.get("LABEL_AUDIT_QUEUE") or defaults.QUEUE,
            "import_wait": _number(env, "LABEL_AUDIT_IMPORT_WAIT", float, defaults.IMPORT_WAIT),
            "label_studio_url": env.get("LABEL_STUDIO_URL") or None,
            "label_studio_token": env.get("LABEL_STUDIO_API_KEY") or None,
            "auth_user": env.get("BASIC_AUTH_USER") or None,
            "auth_password": env.get("BASIC_AUTH_PASS") or None,
            "insecure_no_auth": parse_bool(env.get("LABEL_AUDIT_INSECURE_NO_AUTH")),
            "max_request_bytes": _number(env, "LABEL_AUDIT_MAX_REQUEST_BYTES", int, defaults.MAX_REQUEST_BYTES),
            "max_item_chars": _number(env, "LABEL_AUDIT_MAX_ITEM_CHARS", int, defaults.MAX_ITEM_CHARS),
            "image_hosts": tuple(h.strip() for h in (env.get("LABEL_AUDIT_IMAGE_HOSTS") or "").split(",") if h.strip()),
            "image_max_bytes": _number(env, "LABEL_AUDIT_IMAGE_MAX_BYTES", int, defaults.IMAGE_MAX_BYTES),
            "provider_keys": tuple(value for _name, value in api_keys),
            "api_keys": api_keys,
            "review_url": env.get("LABEL_AUDIT_REVIEW_URL") or None,
            "review_token": env.get("LABEL_AUDIT_REVIEW_API_KEY") or None,
            "expert_instances": env.get("LABEL_AUDIT_EXPERT_INSTANCES") or None,
            "models_dir": Path(env.get("LABEL_AUDIT_MODELS_DIR") or defaults.MODELS_DIR).expanduser(),
            "prompts_dir": Path(env["LABEL_AUDIT_PROMPTS"]) if env.get("LABEL_AUDIT_PROMPTS") else None,
            "option_orders": _orders(env),
            "order_skip": OrderSkip.parse(env.get("LABEL_AUDIT_ORDER_SKIP") or defaults.ORDER_SKIP),
            "calibration": check_mode(env.get(CALIBRATION_ENV) or defaults.CALIBRATION),
            "multilabel_orders": check_multilabel_orders((env.get(MULTILABEL_ORDERS_ENV) or "").strip()
                                                         or defaults.MULTILABEL_ORDERS),
            "prior_correction": env.get("LABEL_AUDIT_PRIOR_CORRECTION") or defaults.PRIOR_CORRECTION,
            "negative_label": env.get("LABEL_AUDIT_NEGATIVE_LABEL") or None,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def __post_init__(self) -> None:
        object.__setattr__(self, "order_skip", OrderSkip.parse(self.order_skip))  # a bool or text given directly
        check_ensemble_values(members=self.members, batch_size=self.batch_size, threshold=self.threshold,
                              delta=self.delta)
        self.quorum()  # ValueError on a share outside [0, 1]
        if not 0.0 <= self.import_wait <= 3600.0:
            raise ValueError(f"LABEL_AUDIT_IMPORT_WAIT must be within [0, 3600] seconds, got {self.import_wait}")
        if self.image_max_bytes < 1:
            raise ValueError(f"LABEL_AUDIT_IMAGE_MAX_BYTES must be positive, got {self.image_max_bytes}")
        resolve_orders(self.option_orders)  # ValueError below 1
        check_mode(self.calibration)
        object.__setattr__(self, "multilabel_orders", check_multilabel_orders(self.multilabel_orders))  # 1 or 2
        check_prior_correction(self.prior_correction)
        if (self.auth_user is None) != (self.auth_password is None):
            raise ValueError("set both BASIC_AUTH_USER and BASIC_AUTH_PASS, or neither")

    def with_options(self, **overrides: Any) -> "Settings":
        """A copy with the given (non-None) values replaced."""
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    @property
    def store_url(self) -> str:
        """The SQL URL of the ledger and call cache: ``DATABASE_URL``, else the SQLite file under ``home``."""
        return self.database_url or f"sqlite:///{self.default_sqlite_path()}"

    def default_sqlite_path(self) -> Path:
        return self.home / "audit.sqlite"

    def secrets(self) -> tuple[str, ...]:
        """Every configured secret value, for redaction of logs and stored errors."""
        found = [self.label_studio_token, self.auth_password, self.review_token, *self.provider_keys,
                 *(value for _name, value in self.api_keys)]
        return tuple(dict.fromkeys(s for s in found if s))

    def provider_settings(self) -> ProviderSettings:
        """What the providers take from the settings: the API keys by variable name, the models folder."""
        return ProviderSettings(keys=dict(self.api_keys), models_dir=self.models_dir)

    def spec_options(self) -> dict[str, Any]:
        """The keyword arguments a task spec is derived with (:func:`backend.labelstudio.projectspec.spec_from_label_config`,
        :func:`backend.commands.task_options.resolve_task`): the same settings give the same spec and model version."""
        return {"named_negative": self.negative_label, "option_orders": self.option_orders,
                "calibration": self.calibration, "multilabel_orders": self.multilabel_orders}

    def quorum(self) -> Quorum:
        """How many members must answer before a verdict counts (the engine's and the summary's)."""
        return Quorum(min_share=self.quorum_share, every_model=self.quorum_models)

    def engine_config(self, **overrides: Any):
        """The scoring engine's view (:class:`backend.scoring.engine_config.EngineConfig`): `score`, probes, workers."""
        base = {"threshold": self.threshold, "delta": self.delta, "quorum": self.quorum(),
                "early_exit": self.early_exit, "concurrency": self.concurrency, "timeout": self.timeout,
                "max_attempts": self.max_attempts, "order_skip": self.order_skip}
        return EngineConfig(**{**base, **overrides})


def setting_names() -> list[str]:
    """Field names, for documentation and tests."""
    return [f.name for f in fields(Settings)]
