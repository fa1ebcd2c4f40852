"""Ensemble members: provider x model x prompt template (Nahum et al. 2024, §3 and C.3).

A member id reads ``provider:model/template_id@vN`` (e.g. ``local:smollm2/fc-premise-hypothesis@v1``);
it names the member in results, the ledger and summaries. Members come from

- ``--member PROVIDER:MODEL[@BASE_URL]`` arguments: each adds one model with all of the family's prompts;
- a YAML members file: a list (or ``{members: [...]}``) of entries with ``provider``, ``model`` and
  optionally ``base_url``, ``prompts`` (``all`` or a list of template ids) and ``options`` (passed to
  the provider, e.g. ``temperature`` or ``api_key_env``);
- the embedded default: ``local:smollm2`` with every prompt.

A member can be left out (``LABEL_AUDIT_EXCLUDE_MEMBERS``, ``--exclude-member``, or ``exclude:`` in a
members-file entry): :func:`exclude_members` records the prompt on its model entry
(:attr:`MemberSpec.exclude`), so every view of the ensemble — the members built, the fingerprint the
model version comes from, the judges named in Label Studio — leaves it out alike.

Providers are built by ``backend.providers.registry.make_provider`` (one provider per model entry,
shared by that model's prompts), with the API keys and models folder the caller's settings resolved
(``Settings.provider_settings()``); the prompt templates come from the settings' ``prompts_dir`` when the
caller passes it (``prompts_root``), else the shipped folder.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.parse
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import yaml

from backend.scoring.confident_template import KIND as CONFIDENT_KIND, feature_template
from backend.scoring.order_skip import OrderSkip
from backend.scoring.prompting import PromptTemplate, spec_params, templates_for_spec
from backend.providers.base import Provider
from backend.providers.provider_settings import ProviderSettings
from backend.task.spec import TaskSpec

from backend.common.defaults import MEMBER as DEFAULT_MEMBER
from backend.providers.registry import make_provider
_MEMBER_ARG = re.compile(r"^(?P<kind>[A-Za-z][\w-]*):(?P<model>[^@\s]+)(?:@(?P<url>\S+))?$")


@dataclass(frozen=True)
class Member:
    """One judge of the ensemble.

    Attributes
    ----------
    id : str
        ``provider:model/template_id@vN``.
    provider : Provider
        Does the calls (shared by all members of the same model entry).
    template : PromptTemplate
        The wording this member uses.
    kind : str
        Provider kind as configured (``local``, ``openai``, ``gemini``...): the concurrency bucket.
        Derived from ``id`` when not given.
    model : str
        The model name as configured (enters the cache key). Derived from ``id`` when not given.
    """

    id: str
    provider: Provider
    template: PromptTemplate
    kind: str = ""
    model: str = ""

    def __post_init__(self) -> None:
        kind, sep, rest = self.id.partition(":")
        if not sep or "/" not in rest:
            raise ValueError(f"member id must read provider:model/template@vN, got {self.id!r}")
        if not self.kind:
            object.__setattr__(self, "kind", kind)
        if not self.model:
            object.__setattr__(self, "model", rest.rsplit("/", 1)[0])


@dataclass(frozen=True)
class MemberSpec:
    """One model entry before its provider is built."""

    provider: str
    model: str
    base_url: str | None = None
    prompts: tuple[str, ...] | None = None  # None = all
    options: Mapping[str, Any] | None = None
    exclude: tuple[str, ...] = ()  # prompts left out: a template id (every version) or ``id@vN``

    def to_dict(self) -> dict[str, Any]:
        """The members-file entry for this model (what a YAML members file holds)."""
        out = {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "prompts": list(self.prompts) if self.prompts else None,
            "options": dict(self.options or {}),
        }
        if self.exclude:
            out["exclude"] = list(self.exclude)
        return out

    @classmethod
    def from_dict(cls, raw: Any, *, where: str = "member") -> "MemberSpec":
        """Validate one members-file entry (or a :meth:`to_dict` result); the only dict -> spec conversion."""
        return _entry_from_mapping(raw, where)


def member_id(kind: str, model: str, template: PromptTemplate) -> str:
    """``kind:model/template_id@vN``."""
    return f"{kind}:{model}/{template.key}"


def parse_member_arg(arg: str) -> MemberSpec:
    """Parse ``PROVIDER:MODEL[@BASE_URL]`` (e.g. ``openai:qwen@http://127.0.0.1:8000/v1``)."""
    match = _MEMBER_ARG.match(arg.strip())
    if not match:
        raise ValueError(f"--member must look like PROVIDER:MODEL or PROVIDER:MODEL@BASE_URL, got {arg!r}")
    return MemberSpec(provider=match["kind"].lower(), model=match["model"], base_url=match["url"])


def _make_provider(entry: MemberSpec, settings: ProviderSettings | None = None) -> Provider:
    return make_provider(entry.provider, entry.model, base_url=entry.base_url, options=dict(entry.options or {}),
                         settings=settings)


def _chosen_templates(entry: MemberSpec, templates: Sequence[PromptTemplate], spec: TaskSpec) -> list[PromptTemplate]:
    """The entry's prompts (all when unspecified) less its excluded ones; ValueError on an unknown prompt id.

    A confident-learning entry (``cleanlab:``) has one template of its own, the item's inputs
    (:mod:`backend.scoring.confident_template`), whatever the family's prompts are. An exclusion that names no
    prompt of this task is no error: a deployment's setting serves projects of several kinds.
    """
    if entry.provider == CONFIDENT_KIND:
        templates = [feature_template(spec)]
    chosen = list(templates)
    if entry.prompts is not None:
        by_id = {t.id: t for t in templates}
        unknown = [p for p in entry.prompts if p not in by_id]
        if unknown:
            raise ValueError(f"unknown prompt ids {unknown} for {spec.prompt_dir}; known: {sorted(by_id)}")
        chosen = [by_id[p] for p in entry.prompts]
    return [t for t in chosen if t.id not in entry.exclude and t.key not in entry.exclude]


def exclude_members(entries: Sequence[MemberSpec], names: Sequence[str]) -> tuple[MemberSpec, ...]:
    """``entries`` with the members ``names`` leave out recorded on their model entries.

    A name is a member id (``local:smollm2/generic-definitions@v1``; without ``@vN``: every version), or a
    bare prompt id (``generic-definitions``: that prompt for every model). ValueError on a name that
    names a model the ensemble does not have, or has no prompt part.
    """
    excluded: dict[int, list[str]] = {}
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        model_part, sep, prompt = name.rpartition("/")
        if not sep:
            prompt, model_part = name, ""
        if not prompt or (model_part and ":" not in model_part):
            raise ValueError(f"exclude {raw!r}: give a member id (provider:model/prompt@vN) or a prompt id")
        hits = [i for i, e in enumerate(entries) if not model_part or model_part == f"{e.provider}:{e.model}"]
        if not hits:
            known = ", ".join(f"{e.provider}:{e.model}" for e in entries)
            raise ValueError(f"exclude {raw!r}: the ensemble has no model {model_part!r} (models: {known})")
        for i in hits:
            excluded.setdefault(i, []).append(prompt)
    return tuple(replace(e, exclude=tuple(dict.fromkeys((*e.exclude, *excluded[i])))) if i in excluded else e
                 for i, e in enumerate(entries))


def entry_templates(entry: MemberSpec, spec: TaskSpec, *, prompts_root: Path | None = None) -> list[PromptTemplate]:
    """The prompts a model entry judges ``spec`` with (ValueError on an unknown prompt id)."""
    return _chosen_templates(entry, templates_for_spec(spec, root=prompts_root), spec)


def build_members(entries: Iterable[MemberSpec], spec: TaskSpec, *, provider_factory=None,
                  providers: ProviderSettings | None = None, prompts_root: Path | None = None) -> list[Member]:
    """Members for model entries x their prompts, in entry order then template order.

    ``providers``: the API keys and models folder the providers are built with (``Settings.provider_settings()``;
    None: no key, the default folder). ``prompts_root``: the templates' folder (``Settings.prompts_dir``; None:
    the shipped one). ``provider_factory(entry) -> Provider`` replaces the registry (tests use it). Raises
    ValueError on an unknown prompt id, an empty ensemble, or two members with the same id.
    """
    factory = provider_factory or (lambda entry: _make_provider(entry, providers))
    entries = list(entries)
    templates = templates_for_spec(spec, root=prompts_root)
    members: list[Member] = []
    for entry in entries:
        chosen = _chosen_templates(entry, templates, spec)
        provider = factory(entry)
        for template in chosen:
            members.append(
                Member(member_id(entry.provider, entry.model, template), provider, template, entry.provider, entry.model)
            )
    if not members:
        left_out = sorted({p for e in entries for p in e.exclude})
        raise ValueError("the ensemble has no member" + (f" (left out: {', '.join(left_out)})" if left_out else ""))
    ids = [m.id for m in members]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"duplicate ensemble members {dupes}: give each model entry a distinct model name")
    return members


def _entry_from_mapping(raw: Any, where: str) -> MemberSpec:
    if isinstance(raw, MemberSpec):
        return raw
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: each member entry is a mapping with provider and model")
    missing = [k for k in ("provider", "model") if not raw.get(k)]
    if missing:
        raise ValueError(f"{where}: member entry is missing {', '.join(missing)}")
    unknown = sorted(set(raw) - {"provider", "model", "base_url", "prompts", "options", "exclude"})
    if unknown:
        raise ValueError(f"{where}: unknown member keys {unknown}")
    prompts = raw.get("prompts", "all")
    if prompts in (None, "all"):
        chosen = None
    elif isinstance(prompts, str):
        chosen = (prompts,)
    elif isinstance(prompts, Sequence) and all(isinstance(p, str) for p in prompts):
        chosen = tuple(prompts)
    else:
        raise ValueError(f"{where}: prompts is 'all' or a list of template ids")
    options = raw.get("options") or {}
    if not isinstance(options, Mapping):
        raise ValueError(f"{where}: options is a mapping")
    exclude = raw.get("exclude") or ()
    if isinstance(exclude, str):
        exclude = (exclude,)
    if not isinstance(exclude, Sequence) or not all(isinstance(p, str) for p in exclude):
        raise ValueError(f"{where}: exclude is a list of prompt ids")
    return MemberSpec(
        provider=str(raw["provider"]).lower(),
        model=str(raw["model"]),
        base_url=str(raw["base_url"]) if raw.get("base_url") else None,
        prompts=chosen,
        options=dict(options),
        exclude=tuple(exclude),
    )


def member_specs_from_config(path: str | Path) -> list[MemberSpec]:
    """Parse a YAML members file into model entries (no provider is built)."""
    path = Path(path)
    data = yaml.safe_load(path.read_text("utf-8"))
    if isinstance(data, Mapping) and "members" in data:
        data = data["members"]
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path}: expected a non-empty list of members (or a 'members:' list)")
    return [MemberSpec.from_dict(raw, where=f"{path}: member {n}") for n, raw in enumerate(data, start=1)]


def members_from_config(path: str | Path, spec: TaskSpec, *, provider_factory=None) -> list[Member]:
    """Members described by a YAML file (see the module docstring)."""
    return build_members(member_specs_from_config(path), spec, provider_factory=provider_factory)


def members_from_args(args: Sequence[str], spec: TaskSpec, *, provider_factory=None) -> list[Member]:
    """Members for ``--member`` arguments: each model with all of the family's prompts."""
    return build_members([parse_member_arg(a) for a in args], spec, provider_factory=provider_factory)


def default_members(spec: TaskSpec, *, provider_factory=None) -> list[Member]:
    """The embedded default: SmolLM2-135M in-process with every prompt of the family."""
    return members_from_args([DEFAULT_MEMBER], spec, provider_factory=provider_factory)


def ensemble_fingerprint(members: Sequence[Member], spec: TaskSpec, *, prior_correction: str = "none",
                         order_skip: OrderSkip | None = None) -> str:
    """A short stable hash of what decides the ensemble's verdicts (members, their parameters, task, correction).

    Used as the Label Studio ``model_version``: it changes exactly when a re-score could change.
    Member order does not matter. ``prior_correction`` (`score --prior-correction`) re-reads every verdict of the
    run, so two corrections are two versions; ``none`` adds nothing, so the versions written before stay as they were.
    ``order_skip``: a lossy skip of later option orders answers some items from one order, so it enters too
    (:attr:`OrderSkip.version_tag`); off and exact add nothing (the exact skip gives the same flags).
    """
    payload: dict[str, Any] = {
        "task": {"name": spec.name, "family": spec.family, "labels": list(spec.labels), "fields": dict(spec.fields),
                 **({"image_fields": list(spec.image_fields)} if spec.image_fields else {})},
        "params": spec_params(spec),
        "members": sorted(
            [m.id, json.dumps(dict(m.provider.cache_params()), sort_keys=True, default=str)] for m in members
        ),
    }
    _add_prior_correction(payload, prior_correction, spec)
    _add_order_skip(payload, order_skip)
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def _add_prior_correction(payload: dict[str, Any], mode: str, spec: TaskSpec) -> None:
    """The correction's mode into a fingerprint's payload when it re-reads this task's verdicts; nothing for ``none``
    or a family it leaves as judged (their versions stay as they were)."""
    from backend.scoring.project_pass import corrects  # at call time: project_pass is not needed to build members

    if corrects(mode, spec.family):
        payload["prior_correction"] = mode


def _add_order_skip(payload: dict[str, Any], order_skip: OrderSkip | None) -> None:
    """The lossy order skip's tag into a fingerprint's payload; nothing when off or exact (versions kept)."""
    tag = order_skip.version_tag if order_skip is not None else None
    if tag is not None:
        payload["order_skip"] = tag


def spec_fingerprint(entries: Sequence[MemberSpec], spec: TaskSpec, *, prompts_root: Path | None = None,
                     order_skip: OrderSkip | None = None, prior_correction: str = "none") -> str:
    """The ensemble's fingerprint from its configuration alone: no provider is built or even imported.

    Hashes each member id with its entry's public endpoint and options, plus the task and prompt
    parameters. The web backend reports it as the model version before any model is loaded or any key
    is looked up (Label Studio gives /setup 3 s). Provider defaults are not part of it: a release that
    changes what a provider answers by default changes the call cache key, not this version.
    ``prompts_root``: the templates' folder (``Settings.prompts_dir``; None: the shipped one); ``order_skip`` and
    ``prior_correction`` (the audit's project pass re-reads every verdict with it: ``none`` adds nothing, so the
    versions written before stay as they were): as for :func:`ensemble_fingerprint`.
    """
    templates = templates_for_spec(spec, root=prompts_root)
    rows = []
    for entry in entries:
        chosen = _chosen_templates(entry, templates, spec)
        described = {
            "base_url": _public_endpoint(entry.base_url),
            "options": dict(entry.options or {}),
        }
        for template in chosen:
            rows.append([member_id(entry.provider, entry.model, template), json.dumps(described, sort_keys=True, default=str)])
    payload = {
        "task": {"name": spec.name, "family": spec.family, "labels": list(spec.labels), "fields": dict(spec.fields),
                 **({"image_fields": list(spec.image_fields)} if spec.image_fields else {})},
        "params": spec_params(spec),
        "members": sorted(rows),
    }
    _add_prior_correction(payload, prior_correction, spec)
    _add_order_skip(payload, order_skip)
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def _public_endpoint(url: str | None) -> str | None:
    """``url`` without user info, query or fragment (where credentials could hide)."""
    if not url:
        return None
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))
