"""Score a probe set with an ensemble through the engine, with and without data fencing.

Going through :class:`backend.scoring.engine.Engine` gives the probes what every other call has: the call
cache (a re-run costs nothing), retries, concurrency limits and the per-member error reasons that
become the "unparsable" column. Scoring the same probes with ``delimit=False`` (the same templates,
the item texts pasted in unfenced) measures what the fencing of :mod:`backend.scoring.prompting` buys against
planted instructions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from backend.scoring.cache import CallCache
from backend.scoring.engine import Engine, EngineConfig
from backend.scoring.members import Member
from backend.probes.construct import Condition, ProbeSet
from backend.probes.metrics import ConditionStats, Outcome, summarize
from backend.task.spec import TaskSpec

ENSEMBLE = "ensemble"


@dataclass(frozen=True)
class ScoredProbes:
    """The probe table of one scoring pass (one ``delimit`` setting).

    Attributes
    ----------
    rows : list of ConditionStats
        One per member (plus ``ensemble``) and condition.
    guard_marked : dict
        Condition name -> share of its probes the instruction heuristic marked as suspicious.
    engine_stats : dict
        The engine's counts for this pass (calls, cache hits, errors).
    """

    delimit: bool
    rows: tuple[ConditionStats, ...]
    guard_marked: dict[str, float]
    engine_stats: dict[str, Any]


def score_probes(
    probe_set: ProbeSet,
    spec: TaskSpec,
    members: Sequence[Member],
    *,
    cache: CallCache | None,
    config: EngineConfig | None = None,
    delimit: bool = True,
    progress: bool = False,
) -> ScoredProbes:
    """Score every probe with every member and summarise per member and condition.

    A member that fails on a probe yields an error outcome (counted, never fatal); the ensemble row
    uses the averaged distribution of the members that answered.
    """
    engine = Engine(spec, members, cache=cache, config=replace(config or EngineConfig(), delimit=delimit))
    probes = probe_set.probes
    outcomes: list[Outcome] = []
    marked: dict[Condition, list[bool]] = {}
    # Drain the generator fully: the engine finalises its stats (wall time) when it ends.
    results = list(engine.score([p.item for p in probes], progress=progress))
    for probe, result in zip(probes, results, strict=True):
        marked.setdefault(probe.condition, []).append(bool(result.suspicious_text))
        for member in result.members:
            outcomes.append(
                Outcome(member.member_id, probe.condition, probe.source_id, probs=member.probs,
                        error=None if member.probs is not None else (member.reason or "unknown"))
            )
        outcomes.append(
            Outcome(ENSEMBLE, probe.condition, probe.source_id, probs=result.probs,
                    error=None if result.probs is not None else (result.reason or "no_member_answered"))
        )
    rows = summarize(outcomes, spec, delimit=delimit)
    guard = {cond.name: sum(flags) / len(flags) for cond, flags in marked.items() if flags}
    return ScoredProbes(delimit, tuple(rows), guard, engine.stats.to_dict())


def delimiting_effect(delimited: ScoredProbes, undelimited: ScoredProbes) -> list[dict[str, Any]]:
    """How far each manipulation moved p(positive) with and without fencing, per member and condition.

    ``shift_*`` is the paired change of mean p(positive) against the unmodified items;
    ``fencing_gain = shift_undelimited - shift_delimited`` is positive when fencing made the member
    less gullible.
    """
    plain = {(r.member_id, r.condition): r for r in undelimited.rows}
    out = []
    for row in delimited.rows:
        other = plain.get((row.member_id, row.condition))
        if row.injection == "none" or other is None:
            continue
        gain = None
        if row.delta_p_positive is not None and other.delta_p_positive is not None:
            gain = other.delta_p_positive - row.delta_p_positive
        out.append(
            {
                "member_id": row.member_id,
                "condition": row.condition,
                "injection": row.injection,
                "shift_delimited": row.delta_p_positive,
                "shift_undelimited": other.delta_p_positive,
                "fencing_gain": gain,
                "p_positive_delimited": row.mean_p_positive,
                "p_positive_undelimited": other.mean_p_positive,
            }
        )
    return out
