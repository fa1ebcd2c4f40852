"""Score items of any family: one :class:`~backend.scoring.engine.Engine` per question, answers assembled per item.

A single-choice family asks one question, the task itself, and gets the plain engine (nothing changes for
binary, ordinal and nominal tasks). A family with several questions per item (multi-label: one per label)
gets a :class:`QuestionEngine`: each question's engine judges every item exactly as it judges a binary
item (cache, retries, quorum, early exit, flag rule), then the family assembles the item's verdict
(:meth:`~backend.task.family.TaskFamily.assemble`). Items go through in chunks so that results stream
(``score`` writes as it goes, an interrupted run resumes from the cache).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Iterable, Iterator, Sequence

from backend.task.dataset import Item, ItemError
from backend.scoring.engine import Engine
from backend.scoring.engine_config import EngineConfig
from backend.scoring.members import Member
from backend.scoring.order_skip import margin_skippable, skippable
from backend.scoring.results import ErrorInfo, ItemResult
from backend.scoring.run_stats import EngineStats
from backend.task.family import Question
from backend.task.spec import TaskSpec

__all__ = ["NOT_SHOWN", "QuestionEngine", "make_engine", "not_shown"]

#: The reason code of a conditional question not asked of an item (its condition does not hold).
NOT_SHOWN = "not_shown"

#: Items judged per question before their verdicts are assembled and yielded.
CHUNK = 16
#: What the engine counts itself (not read off results): summed over the question engines.
_CALL_COUNTS = ("llm_calls", "attempts", "items_with_calls", "early_exit_skipped", "call_seconds")


def make_engine(spec: TaskSpec, members: Sequence[Member], *, cache: Any, config: EngineConfig | None = None,
                budget: Any = None, secrets: Iterable[str] = ()) -> "Engine | QuestionEngine":
    """The engine for ``spec``: the plain one for a one-question task, else a :class:`QuestionEngine`."""
    own = spec.task_family.make_engine(spec, members, cache=cache, config=config, budget=budget, secrets=secrets)
    if own is not None:
        return own
    questions = spec.task_family.questions(spec)
    if len(questions) == 1 and questions[0].spec is spec:
        return Engine(spec, members, cache=cache, config=config, budget=budget, secrets=secrets)
    return QuestionEngine(spec, members, questions, cache=cache, config=config, budget=budget, secrets=secrets)


def _reads_order(member: Member) -> bool:
    """Whether ``member``'s answer can depend on the options' order (a confident-learning member's cannot)."""
    return bool(getattr(member.provider, "reads_order", True))


def _members_asked(question: Question, members: Sequence[Member]) -> Sequence[Member]:
    """The members asked ``question``: a repeat of the first question in another option order leaves out
    those whose answer does not depend on the order (when none does, the question is not asked at all:
    :attr:`QuestionEngine.repeats`; its engine keeps every member only to state the rule)."""
    if not question.reorders:
        return members
    return [m for m in members if _reads_order(m)] or members


def _bases(questions: Sequence[Question]) -> list[int]:
    """For each question, the index of the first order it asks again (:attr:`Question.reorders`), else its own."""
    bases: list[int] = []
    for k, question in enumerate(questions):
        bases.append(bases[-1] if question.reorders and bases else k)
    return bases


def _score_asked(engine: Engine, asked: Sequence[Item], *, conditional: bool) -> list[ItemResult]:
    """``engine``'s verdicts on ``asked``, in order; a conditional question skips items without an original.

    A skipped item gets a ``not_shown`` result (no prediction, no call, never flagged): its family leaves
    the question out of the item's verdict.
    """
    if not conditional:
        return list(engine.score(asked))
    shown = [it for it in asked if it.original is not None]
    judged = iter(engine.score(shown))
    return [next(judged) if it.original is not None else not_shown(it) for it in asked]


def not_shown(item: Item) -> ItemResult:
    """The verdict of a conditional question on an item whose original answer does not show it."""
    return ItemResult(id=item.id, original=None, prediction=None, confidence=None, probs=None, flagged=False,
                      error=ErrorInfo(NOT_SHOWN, False, "the control is not shown for the original answer"),
                      line=item.line)


class ChunkedScoring:
    """``score`` in chunks of ``chunk_size`` items, so results stream and an interrupted run resumes.

    Shared by the engines that judge several questions per item (:class:`QuestionEngine`, the span
    family's engine): a subclass sets ``stats`` and implements ``_chunk``.
    """

    chunk_size = CHUNK
    stats: EngineStats

    def score(self, items: Iterable[Item | ItemError], *, progress: bool = False) -> Iterator[ItemResult]:
        """Yield one ItemResult per input, in input order (input errors pass through as error results)."""
        self.stats = EngineStats()
        started = time.perf_counter()
        chunk: list[Item | ItemError] = []
        try:
            for entry in items:
                chunk.append(entry)
                if len(chunk) >= self.chunk_size:
                    yield from self._chunk(chunk)
                    chunk = []
            if chunk:
                yield from self._chunk(chunk)
        finally:
            self.stats.wall_seconds = time.perf_counter() - started

    def _chunk(self, entries: list[Item | ItemError]) -> Iterator[ItemResult]:
        raise NotImplementedError


class QuestionEngine(ChunkedScoring):
    """The engine API (``score``, ``stats``, ``threshold``, ``members``, ``cache``) over several questions.

    ``engines`` holds one engine per question, in the family's question order.
    """

    def __init__(self, spec: TaskSpec, members: Sequence[Member], questions: Sequence[Question], *, cache: Any,
                 config: EngineConfig | None = None, budget: Any = None, secrets: Iterable[str] = ()):
        if not questions:
            raise ValueError(f"family {spec.family!r} asks no question")
        self.spec = spec
        self.members = tuple(members)
        self.cache = cache
        self.config = config or EngineConfig()
        self.questions = tuple(questions)
        self.engines = [Engine(q.spec, _members_asked(q, self.members), cache=cache, config=self.config,
                               budget=budget, secrets=secrets) for q in self.questions]
        #: Per question: a repeat in another order that no member's answer depends on, so the first order's
        #: verdicts stand for it (without their members: merging counts each answer once, no second call).
        self.repeats = tuple(q.reorders and not any(_reads_order(m) for m in self.members) for q in self.questions)
        #: Per question: the index of the first order it repeats (its own index when it repeats none).
        self.bases = tuple(_bases(self.questions))
        self.threshold = self.engines[0].threshold
        self.rules = tuple(engine.rule for engine in self.engines)
        self.stats = EngineStats()

    def _settled(self, index: int, per_question: Sequence[Sequence[ItemResult]], n: int) -> list[bool]:
        """Per item: whether question ``index``, a later option order, can be left unasked (``order_skip`` on:
        :func:`backend.scoring.order_skip.skippable` on its first order's verdict when exact,
        :func:`backend.scoring.order_skip.margin_skippable` when margin). The item's merged verdict then rests
        on its first order alone, as for a member whose answer does not read the order."""
        base, policy = self.bases[index], self.config.order_skip
        if not policy or base == index:
            return [False] * n
        first = self.engines[base]
        if policy.margin is not None:
            return [margin_skippable(r, r.original, first.rule, margin=policy.margin) for r in per_question[base]]
        ids, again = [m.id for m in first.members], {m.id for m in self.engines[index].members}
        orders = self.bases.count(base)
        return [skippable(r, ids, again, first.rule, orders=orders) for r in per_question[base]]

    def _chunk(self, entries: list[Item | ItemError]) -> Iterator[ItemResult]:
        family = self.spec.task_family
        judged = [e for e in entries if isinstance(e, Item)]
        per_question: list[list[ItemResult]] = []
        for question, engine, repeat in zip(self.questions, self.engines, self.repeats):
            if repeat and per_question:  # its own first order's verdicts (not the item's first question's)
                per_question.append([replace(r, members=()) for r in per_question[self.bases[len(per_question)]]])
                continue
            asked = [replace(family.question_item(self.spec, question, it),
                             original=family.question_original(self.spec, question, it.original)) for it in judged]
            skip = self._settled(len(per_question), per_question, len(asked))
            kept = [a for a, s in zip(asked, skip) if not s]
            scored = iter(_score_asked(engine, kept, conditional=question.conditional))
            base = per_question[self.bases[len(per_question)]] if any(skip) else []
            per_question.append([replace(base[i], members=()) if s else next(scored) for i, s in enumerate(skip)])
            for name in _CALL_COUNTS:
                setattr(self.stats, name, getattr(self.stats, name) + getattr(engine.stats, name))
        answers = iter(zip(*per_question)) if per_question else iter(())
        for entry in entries:
            if isinstance(entry, ItemError):
                result = next(self.engines[0].score([entry]))
            else:
                result = family.assemble(self.spec, entry, list(next(answers)), rules=self.rules)
            self.stats.add_result(result)
            yield result
