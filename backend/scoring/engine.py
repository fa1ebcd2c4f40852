"""The scoring engine: items x members -> class probabilities -> ensemble verdicts, cached and resumable.

This is the API that ``label-audit score``, the RQ worker and the gullibility probes call::

    engine = Engine(spec, members, cache=CallCache(url), config=EngineConfig(concurrency=8))
    for result in engine.score(items):          # Items and/or ItemErrors, any iterable
        ...                                     # ItemResult, in input order
    engine.stats.to_dict()                      # counts of the last score() call

What it guarantees
------------------
- Results come back in input order, one per input (an ItemError becomes an ItemResult with ``error``
  and ``line`` set and no prediction).
- Each (item, member) call looks in the cache first; every successful call is written to the cache the
  moment it returns, so a killed run loses nothing and the next run repeats nothing. Errors are not
  cached: the next run retries them. Identical prompts within a run are called once.
- Calls run in a bounded thread pool (``concurrency``) and, per provider kind, under
  ``per_provider_concurrency``; retryable provider errors are retried with backoff honouring
  Retry-After (:mod:`backend.scoring.retry`); the per-call timeout is handed to the provider.
- A member that fails on an item is left out of that item's average and keeps its reason in
  ``ItemResult.members``. When one provider fails ``breaker_after`` calls in a row even after retries
  (a server that went away), its remaining calls fail fast with reason ``provider_down`` for
  ``breaker_cooldown`` seconds instead of each waiting through its own retries.
- ``ItemResult.suspicious_text`` marks items whose text looks like instructions aimed at the judge
  (:func:`backend.scoring.injection_guard.item_has_instructions`).
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from backend.scoring.confident_template import KIND as CONFIDENT_KIND
from backend.scoring.cache import CallCache, call_key
from backend.scoring.contextual_calibration import calibrate, calibration_of, content_free_prior
from backend.task.dataset import Item, ItemError
from backend.scoring.early_exit_scheduling import EarlyExitScheduling
from backend.scoring.engine_calls import CallOutcome, CallRunner
from backend.scoring.engine_config import EngineConfig
from backend.scoring.ensemble import Decision, VerdictRule, model_of, normalize, resolve_threshold, verdict
from backend.scoring.injection_guard import item_has_instructions
from backend.providers.image_part import ImagePart
from backend.scoring.members import Member
from backend.scoring.prompting import spec_params
from backend.providers.base import ClassDistribution, accepts_images
from backend.scoring.results import ErrorInfo, ItemResult, MemberResult, input_hash
from backend.scoring.run_stats import EngineStats
from backend.task.spec import TaskSpec
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

__all__ = ["Engine", "EngineConfig", "EngineStats"]  # they live in backend.scoring.engine_config and backend.scoring.run_stats


@dataclass
class _Slot:
    member: Member
    result: MemberResult | None = None  # known at submission (cache hit, render error)
    future: Future | None = None
    key: str = ""
    owner: bool = False  # this slot made the call (False: shares another slot's identical call)
    prompt: str = ""
    lazy: bool = False  # early exit: not sent yet (sent only if the verdict is still open)
    images: tuple[ImagePart, ...] = ()  # sent beside the prompt (only to a member that sees)
    blind: bool = False  # left out of an image item: the member's provider takes no images (no_vision)


@dataclass
class _Pending:
    entry: Item | ItemError
    slots: list[_Slot]
    suspicious: bool = False
    decision: Decision | None = None  # early exit: the settled verdict
    queued: int = 0  # calls counted against the read-ahead window when it was submitted

    @property
    def calls(self) -> int:
        return sum(1 for s in self.slots if s.owner)

    @property
    def seeing(self) -> list[_Slot]:
        """The slots that judge this item (all but the members left out for not seeing its images)."""
        return [s for s in self.slots if not s.blind]


class Engine(EarlyExitScheduling):
    """Score items with an ensemble of members (see the module docstring for the guarantees).

    Parameters
    ----------
    spec : TaskSpec
        How to read items and which labels exist.
    members : sequence of Member
        The ensemble (at least one).
    cache : CallCache or None
        Where answers are kept; None disables caching (every run calls again).
    config : EngineConfig, optional
        Thresholds, concurrency, timeouts, retries.

    One :meth:`score` call at a time per Engine (``stats`` describes the latest call); build one
    Engine per concurrent job.
    """

    def __init__(
        self,
        spec: TaskSpec,
        members: Sequence[Member],
        *,
        cache: CallCache | None,
        config: EngineConfig | None = None,
        budget: Any = None,
        secrets: Iterable[str] = (),
    ):
        if not members:
            raise ValueError("an engine needs at least one member")
        self.spec = spec
        self.members = tuple(members)
        self.cache = cache
        self.budget = budget  # backend.costs.budget.Budget: checked before every call (--max-cost)
        self.config = config or EngineConfig()
        self.threshold = resolve_threshold(spec, self.config.threshold)
        self.rule = VerdictRule(spec, threshold=self.threshold, delta=self.config.delta, quorum=self.config.quorum)
        self.stats = EngineStats()
        self._models = [model_of(m.id) for m in self.members]
        self._params = spec_params(spec)
        self._stopping = threading.Event()
        self._calls = CallRunner(self.members, labels=spec.tokens, cache=cache, config=self.config,
                                 stopping=self._stopping, budget=budget, secrets=secrets)
        self._call = self._calls.call  # the early-exit scheduler submits this
        self._priors: dict[str, dict[str, float]] | None = None  # content-free priors, asked once per engine

    # -- public API --------------------------------------------------------------------------------

    def prompt_for(self, member: Member, item: Item) -> str:
        """The exact prompt ``member`` sends for ``item``."""
        return member.template.render(item.fields, delimit=self.config.delimit, params=self._params)

    def key_for(self, member: Member, prompt: str, images: Sequence[ImagePart] = ()) -> str:
        """The cache key of ``member`` sending ``prompt`` (and ``images``, by content hash)."""
        params = dict(member.provider.cache_params())
        if images:  # text-only keys stay as they were
            params["images"] = [image.sha256 for image in images]
        tokens = list(self.spec.answer_tokens)
        if tokens != sorted(tokens):  # another order of the options (backend.task.option_orders): letters moved
            params["answer_tokens"] = tokens
        return call_key(
            provider=member.kind,
            model=member.model,
            template_id=member.template.id,
            template_version=member.template.version,
            prompt=prompt,
            labels=self.spec.labels,
            params=params,
        )

    def score(self, items: Iterable[Item | ItemError], *, progress: bool = False) -> Iterator[ItemResult]:
        """Yield one ItemResult per input, in input order; :attr:`stats` counts this call.

        ``progress`` shows a rich progress bar on stderr (with a total when ``items`` has a length).
        Closing the generator early stops submitting work; calls already running finish and are cached.
        """
        self.stats = EngineStats()
        self._stopping.clear()
        started = time.perf_counter()
        if self._priors is None:
            self._priors = self._content_free_priors()
        total = len(items) if hasattr(items, "__len__") else None  # type: ignore[arg-type]
        bar = _progress_bar(total) if progress else None
        try:
            for result in self._run(items):
                if bar is not None:
                    bar[0].advance(bar[1])
                yield result
        finally:
            self.stats.wall_seconds = time.perf_counter() - started
            if bar is not None:
                bar[0].stop()

    @property
    def priors(self) -> dict[str, dict[str, float]]:
        """Per member id, the content-free prior its answers are divided by (empty until :meth:`score`; empty
        when the spec is not calibrated, :mod:`backend.scoring.contextual_calibration`)."""
        return dict(self._priors or {})

    # -- internals ---------------------------------------------------------------------------------

    def _content_free_priors(self) -> dict[str, dict[str, float]]:
        """Each judge's prior on content-free items (cache first, then one call each), when the spec asks."""
        if calibration_of(self.spec) == "none":
            return {}
        priors = {}
        for member in self.members:
            if member.kind == CONFIDENT_KIND:  # fitted on the data's own features: no prior to divide by
                continue

            def ask(item: Item, member: Member = member) -> ClassDistribution | None:
                prompt = self.prompt_for(member, item)
                key = self.key_for(member, prompt)
                hit = self.cache.get_many([key]).get(key) if self.cache is not None else None
                if hit is not None:
                    return hit[0]
                outcome = self._calls.call(member, prompt, key)
                self.stats.llm_calls += outcome.called
                self.stats.attempts += outcome.attempts
                self.stats.call_seconds += outcome.latency or 0.0
                return outcome.dist

            prior = content_free_prior(self.spec, ask, lambda d: normalize(self.spec.probs_by_label(d.probs),
                                                                           self.spec.labels))
            if prior is not None:
                priors[member.id] = prior
        return priors

    def _member_result(
        self, member: Member, dist: ClassDistribution, *, latency: float | None, cached: bool
    ) -> MemberResult:
        """A member's answer, normalised over the label set: the one normalisation (downstream only checks it).

        A distribution with no mass on the labels is the member's error ``bad_distribution``.
        """
        try:
            probs = normalize(self.spec.probs_by_label(dist.probs), self.spec.labels)
            prior = (self._priors or {}).get(member.id)
            if prior is not None:
                probs = calibrate(probs, prior, self.spec.labels)
        except ValueError as exc:
            return MemberResult(member.id, error=ErrorInfo("bad_distribution", False, str(exc)), cached=cached,
                                latency_s=latency)
        return MemberResult(
            member.id, probs=probs, raw_mass=dist.raw_mass, method=dist.method, cached=cached, latency_s=latency,
            usage=dict(dist.usage) or None,
        )

    def _run(self, items: Iterable[Item | ItemError]) -> Iterator[ItemResult]:
        window = max(4 * self.config.concurrency, len(self.members))
        pool = self._pool = ThreadPoolExecutor(max_workers=self.config.concurrency, thread_name_prefix="label-audit-call")
        inflight: dict[str, Future] = {}
        pending: deque[_Pending] = deque()
        queued_calls = 0
        source = iter(items)
        exhausted = False
        try:
            while True:
                # Read ahead while calls are few in flight, and never more than ``window`` items
                # (cache hits queue no call, so without the second bound a cached run would read all).
                while not exhausted and (not pending or (queued_calls < window and len(pending) < window)):
                    try:
                        entry = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    job = self._submit(entry, pool, inflight)
                    pending.append(job)
                    job.queued = job.calls
                    queued_calls += job.queued
                if not pending:
                    return
                job = pending.popleft()
                queued_calls -= job.queued
                yield self._finish(job, inflight)
        finally:
            # Calls already sent finish (and are cached); queued ones are dropped without a call.
            self._stopping.set()
            pool.shutdown(wait=True, cancel_futures=True)

    def _submit(self, entry: Item | ItemError, pool: ThreadPoolExecutor, inflight: dict[str, Future]) -> _Pending:
        if isinstance(entry, ItemError):
            return _Pending(entry, [])
        job = _Pending(entry, [], suspicious=item_has_instructions(entry.fields))
        keyed: list[tuple[_Slot, str, str]] = []
        for member in self.members:
            slot = _Slot(member, images=tuple(entry.images))
            job.slots.append(slot)
            if entry.images and not accepts_images(member.provider):  # no call: the member cannot see the item
                slot.blind = True
                slot.result = MemberResult(member.id, error=ErrorInfo(
                    "no_vision", False, f"{member.kind}:{member.model} takes no images; left out of image items"))
                continue
            try:
                prompt = self.prompt_for(member, entry)
            except ValueError as exc:
                slot.result = MemberResult(member.id, error=ErrorInfo("render_error", False, str(exc)))
                continue
            keyed.append((slot, prompt, self.key_for(member, prompt, entry.images)))
        hits = self.cache.get_many(k for _, _, k in keyed) if self.cache is not None else {}
        for slot, prompt, key in keyed:
            if key in hits:
                dist, latency = hits[key]
                slot.result = self._member_result(slot.member, dist, latency=latency, cached=True)
            else:
                slot.prompt, slot.key, slot.lazy = prompt, key, True
                if not self.config.early_exit:
                    self._send(slot, inflight)
        if self.config.early_exit:
            self._send_first_wave(job, inflight)
        return job

    def _finish(self, job: _Pending, inflight: dict[str, Future]) -> ItemResult:
        """The item's result, counted by the run's tally (:meth:`EngineStats.add_result`)."""
        entry = job.entry
        result = _input_error(entry) if isinstance(entry, ItemError) else self._judge(job, entry, inflight)
        self.stats.add_result(result)
        return result

    def _judge(self, job: _Pending, entry: Item, inflight: dict[str, Future]) -> ItemResult:
        """Wait for the item's calls and read the verdict; counts what only the engine knows."""
        fresh = self._drive_early_exit(job, inflight) if self.config.early_exit else False
        called = [s for s in job.slots if not s.lazy]
        for slot in called:
            fresh |= self._resolve(slot, inflight)
        self.stats.early_exit_skipped += len(job.slots) - len(called)
        self.stats.items_with_calls += fresh
        results: tuple[MemberResult, ...] = tuple(s.result for s in called)  # type: ignore[misc]
        seeing = [s for s in called if not s.blind]  # a member left out (no_vision) neither answers nor counts
        decision = job.decision if self.config.early_exit else verdict(
            [s.result.probs for s in seeing], [model_of(s.member.id) for s in seeing], entry.original, self.rule)  # type: ignore[union-attr]
        common = dict(id=entry.id, original=entry.original, members=results, line=entry.line,
                      suspicious_text=job.suspicious, data=entry.data,
                      input_hash=input_hash(entry.fields, entry.images))
        if decision is None:
            return ItemResult(prediction=None, confidence=None, probs=None, flagged=False,
                              error=_no_answer(results), **common)
        return ItemResult(prediction=decision.prediction, confidence=decision.confidence, probs=decision.probs,
                          flagged=decision.flagged, insufficient=decision.insufficient,
                          stopped_early=len(called) < len(job.slots), **common)

    def _resolve(self, slot: _Slot, inflight: dict[str, Future]) -> bool:
        """Wait for the slot's call and keep its result (once); True when a fresh call was made."""
        if slot.result is not None:
            return False
        outcome: CallOutcome = slot.future.result()  # type: ignore[union-attr]
        fresh = False
        if slot.owner:
            inflight.pop(slot.key, None)
            self.stats.attempts += outcome.attempts
            if outcome.called:
                self.stats.llm_calls += 1
                self.stats.call_seconds += outcome.latency or 0.0
                fresh = True
        if outcome.dist is not None:
            slot.result = self._member_result(slot.member, outcome.dist, latency=outcome.latency, cached=not slot.owner)
        else:
            error = ErrorInfo(outcome.error or "unknown", outcome.retryable, outcome.detail)
            slot.result = MemberResult(slot.member.id, error=error, latency_s=outcome.latency)
        return fresh


def _input_error(entry: ItemError) -> ItemResult:
    """The result of an input record that could not be read (no member runs on it)."""
    return ItemResult(
        id=entry.id or (f"line:{entry.line}" if entry.line is not None else ""),
        original=None, prediction=None, confidence=None, probs=None, flagged=False,
        error=ErrorInfo(entry.reason, False, entry.detail), line=entry.line,
    )


def _no_answer(results: Sequence[MemberResult]) -> ErrorInfo:
    """Why an item has no verdict: its members' reasons, retryable when any of them is."""
    reasons = Counter(r.reason for r in results)
    detail = ", ".join(f"{r} x{n}" for r, n in sorted(reasons.items()))
    return ErrorInfo("no_member_answered", any(r.error is not None and r.error.retryable for r in results), detail)


def _progress_bar(total: int | None):
    bar = Progress(
        TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
        console=Console(stderr=True), transient=True,
    )
    task = bar.add_task("scoring", total=total)
    bar.start()
    return bar, task
