"""Result records shared by the engine, the ledger, the Label Studio backend and the reports.

One JSON-able shape per item keeps `label-audit score` output, the audit ledger and `audit-stats`
reading the same thing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class MemberResult:
    """One ensemble member (provider x model x prompt) on one item.

    Exactly one of ``probs`` and ``error`` is set: a member that errored, timed out or produced no
    class token is excluded from the item's average and keeps its reason here.
    """

    member_id: str
    probs: Mapping[str, float] | None = None
    raw_mass: float | None = None
    method: str | None = None
    error: str | None = None  # reason code, e.g. "timeout", "no_class_token"
    error_detail: str | None = None
    cached: bool = False
    latency_s: float | None = None
    usage: Mapping[str, Any] | None = None  # the provider's token counts (cost accounting)

    @property
    def ok(self) -> bool:
        return self.probs is not None


@dataclass(frozen=True)
class ItemResult:
    """The ensemble's verdict on one item.

    ``prediction``/``confidence``/``probs`` are None when no member produced probabilities
    (then ``error`` says why). ``line`` is the 1-based input line for file inputs.
    """

    id: str
    original: str | None
    prediction: str | None
    confidence: float | None
    probs: Mapping[str, float] | None
    flagged: bool
    members: tuple[MemberResult, ...] = ()
    error: str | None = None
    line: int | None = None
    suspicious_text: bool = False  # instruction-like content aimed at the judge (see probes)
    insufficient: bool = False  # fewer members answered than the quorum: never flagged
    stopped_early: bool = False  # early exit: the members not called could not change flag or prediction
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["members"] = [asdict(m) for m in self.members]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ItemResult":
        known_member = set(MemberResult.__dataclass_fields__)
        members = tuple(MemberResult(**{k: v for k, v in m.items() if k in known_member}) for m in data.get("members", ()))
        known = {f for f in cls.__dataclass_fields__}
        kwargs = {k: v for k, v in data.items() if k in known and k != "members"}
        return cls(members=members, **kwargs)
