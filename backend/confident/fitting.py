"""Hand a run's labelled items to its confident-learning members, or leave a member out with the reason.

``label-audit score`` calls :func:`prepare_members` once with every item of the file (one fit per run);
a worker calls it with every labelled task of the project (one fit per project version, shared through
the call cache: :func:`cache_priming_hook`). A member that cannot be fitted (too few items per class, a family
where it makes no sense) is removed from the ensemble before scoring, with the reason: a member that
failed on every item would instead fail the quorum of every item.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from backend.scoring.cache import CallCache
from backend.scoring.confident_template import KIND, not_applicable
from backend.task.dataset import Item, ItemError
from backend.scoring.members import Member
from backend.scoring.prompting import spec_params
from backend.task.spec import TaskSpec


@dataclass
class Prepared:
    """The members to score with, and the confident-learning members left out (member id -> reason)."""

    members: list[Member]
    left_out: dict[str, str] = field(default_factory=dict)
    trained: dict[str, int] = field(default_factory=dict)  # member id -> labelled items it learns from

    def notes(self) -> list[str]:
        return [f"{member} left out: {reason}" for member, reason in self.left_out.items()]


def is_confident(member: Member) -> bool:
    """True for a ``cleanlab:`` member."""
    return member.kind == KIND


def render(member: Member, item: Item, *, delimit: bool, spec: TaskSpec) -> str:
    """What the engine hands ``member`` for ``item`` (:meth:`backend.scoring.engine.Engine.prompt_for`)."""
    return member.template.render(item.fields, delimit=delimit, params=spec_params(spec))


def prepare_members(members: Sequence[Member], entries: Iterable[Item | ItemError], spec: TaskSpec, *,
                    delimit: bool) -> Prepared:
    """Train every confident-learning member on ``entries`` (read errors skipped); drop those that cannot learn.

    Raises ValueError when no member is left.
    """
    items = [e for e in entries if isinstance(e, Item)]
    prepared = Prepared(members=[])
    reason_for_spec = not_applicable(spec)
    for member in members:
        if not is_confident(member):
            prepared.members.append(member)
            continue
        reason = reason_for_spec or member.provider.train_on(
            [render(member, it, delimit=delimit, spec=spec) for it in items], [it.fields for it in items],
            [it.original for it in items], spec.labels)
        if reason:
            prepared.left_out[member.id] = reason
        else:
            prepared.members.append(member)
            prepared.trained[member.id] = sum(1 for it in items if it.original is not None)
    if not prepared.members:
        raise ValueError("the ensemble has no member left: " + "; ".join(prepared.notes()))
    return prepared


def cache_priming_hook(engine: Any, member: Member, items: Sequence[Item],
                       cache: CallCache) -> Callable[[Mapping[str, Mapping[str, float]]], None]:
    """The provider's ``on_fit`` hook of a worker: after a fit, store the answer of every training item.

    Other jobs of the same project version then find every answer in the call cache and fit nothing (a
    job that starts while another one fits may fit too; both store the same answers).
    """
    # heavy: backend.confident.provider imports scikit-learn (~0.18 s), not loaded by label-audit --help
    from backend.confident.provider import as_tokens, prompt_digest

    def store(table: Mapping[str, Mapping[str, float]]) -> None:
        for item in items:
            prompt = engine.prompt_for(member, item)
            probs = table.get(prompt_digest(prompt))
            if probs is not None:
                cache.put(engine.key_for(member, prompt), as_tokens(probs, engine.spec.tokens),
                          provider=member.kind, model=member.model, template_id=member.template.id,
                          template_version=member.template.version, latency_s=0.0)

    return store
