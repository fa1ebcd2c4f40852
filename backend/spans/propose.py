"""The proposal step: each judge model lists the entities it sees; the lists become exact spans.

One call per (model, item) — not per member: a member is model × wording, and the proposal prompt
has one wording. Temperature 0 and ``n=1`` through the providers' ``sample_texts`` (every provider
kind has it), so the answer is the model's greedy reply; it is cached in the call cache like every
call (key: provider, model, the proposal template and version, the prompt, the provider's params),
so a re-run asks nothing twice. Proposals are only ever *questions*: they reach a prediction only
after the ensemble has judged them (:mod:`backend.spans.questions`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from backend.scoring.cache import CallCache, call_key
from backend.providers.base import ClassDistribution, ProviderError
from backend.scoring.retry import RetryPolicy, call_with_retry
from backend.spans.align import align
from backend.spans.model import Span, sorted_spans
from backend.spans.proposal_parse import parse_proposals
from backend.spans.proposal_prompt import TEMPLATE_ID, TEMPLATE_VERSION, proposal_prompt

#: Room for a JSON object listing a sentence's entities; a longer reply is cut and may not parse.
MAX_TOKENS = 200
PROPOSAL_LABELS = ("<proposals>",)  # stands in for the label set in the cache key


@dataclass
class Proposals:
    """Spans proposed for one item (union over models) and what went wrong, per model."""

    spans: tuple[Span, ...] = ()
    by_model: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    calls: int = 0
    cached: int = 0


@dataclass(frozen=True)
class ModelProposal:
    """One model's answer for one item, kept whole so a benchmark can judge each step.

    ``problem`` is why the reply proposes nothing usable (None when it parsed); ``unfound`` the
    proposed strings found nowhere in the text, ``phrases`` those too long to be a name; ``seconds`` the call's latency (the original
    call's when the answer came from the cache, None when the cache does not know it).
    """

    reply: str
    spans: tuple[Span, ...]
    problem: str | None
    unfound: tuple[str, ...]
    cached: bool
    seconds: float | None
    phrases: tuple[str, ...] = ()


def _models(providers: Sequence[Any]) -> list[Any]:
    """One provider per distinct (kind, model): members sharing a model propose once."""
    seen: dict[tuple[str, str], Any] = {}
    for provider in providers:
        seen.setdefault((str(provider.name), str(provider.model)), provider)
    return list(seen.values())


def _key(provider: Any, prompt: str) -> str:
    params = {**dict(provider.cache_params()), "temperature": 0.0, "n": 1, "max_tokens": MAX_TOKENS}
    return call_key(provider=provider.name, model=provider.model, template_id=TEMPLATE_ID,
                    template_version=TEMPLATE_VERSION, prompt=prompt, labels=PROPOSAL_LABELS, params=params)


def _reply(provider: Any, prompt: str, *, cache: CallCache | None, timeout: float) -> tuple[str, bool, float | None]:
    """``(reply, cached, seconds)`` for ``prompt``: from the cache, else one greedy call."""
    key = _key(provider, prompt)
    hit = cache.get_many([key]).get(key) if cache is not None else None
    if hit is not None:
        return hit[0].text or "", True, hit[1]
    began = time.perf_counter()
    texts = call_with_retry(lambda: provider.sample_texts(prompt, n=1, temperature=0.0, seed=0,
                                                          max_tokens=MAX_TOKENS, timeout=timeout),
                            RetryPolicy(max_attempts=3))
    seconds = time.perf_counter() - began
    reply = texts[0] if texts else ""
    if cache is not None:
        cache.put(key, ClassDistribution(probs={}, raw_mass=0.0, method="generated", text=reply),
                  provider=provider.name, model=provider.model, template_id=TEMPLATE_ID,
                  template_version=TEMPLATE_VERSION, latency_s=seconds)
    return reply, False, seconds


def propose_with(provider: Any, text: str, *, types: Sequence[str], cache: CallCache | None, hints: Sequence[str] = (),
                 guidelines: str = "", timeout: float = 120.0) -> ModelProposal:
    """One model's proposals for ``text``; a failing provider raises ``ProviderError``."""
    prompt = proposal_prompt(text, types=types, hints=hints, guidelines=guidelines)
    reply, cached, seconds = _reply(provider, prompt, cache=cache, timeout=timeout)
    parsed, problem = parse_proposals(reply, types=types)
    aligned = align(text, parsed)
    return ModelProposal(reply, aligned.spans, problem, aligned.unfound, cached, seconds, aligned.phrases)


def propose(text: str, *, types: Sequence[str], providers: Sequence[Any], cache: CallCache | None,
            hints: Sequence[str] = (), guidelines: str = "", timeout: float = 120.0) -> Proposals:
    """Ask each distinct model for the entities of ``text``; a failed model is counted, never raised."""
    out = Proposals()
    found: list[Span] = []
    for provider in _models(providers):
        where = f"{provider.name}:{provider.model}"
        try:
            got = propose_with(provider, text, types=types, cache=cache, hints=hints, guidelines=guidelines,
                               timeout=timeout)
        except ProviderError as exc:
            out.problems.append(f"{where}: {exc.reason}")
            continue
        out.cached += got.cached
        out.calls += not got.cached
        if got.problem:
            out.problems.append(f"{where}: {got.problem}")
        if got.unfound:
            out.problems.append(f"{where}: {len(got.unfound)} proposed strings not in the text")
        if got.phrases:
            out.problems.append(f"{where}: {len(got.phrases)} proposed phrases too long for a name")
        out.by_model[where] = len(got.spans)
        found.extend(got.spans)
    out.spans = sorted_spans(found)
    return out
