"""Result records shared by the engine, the ledger, the Label Studio backend and the reports.

One JSON-able shape per item keeps `label-audit score` output, the audit ledger and `audit-stats`
reading the same thing. Errors are :class:`ErrorInfo` records (reason, retryable, detail), never a
joined string that a reader would have to split again; in JSON they are three flat keys,
``error`` (the reason code), ``error_detail`` and ``error_retryable``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from typing import Any, Mapping, Sequence

__all__ = ["ErrorInfo", "ItemResult", "MemberResult", "QUESTION_SEP", "base_member_id", "input_hash"]

#: Joins a member id and the question it answered (``provider:model/template@v1#Sports``): a family that asks
#: several questions per item (multi-label, spans) keeps one member row per member and question.
QUESTION_SEP = "#"


def base_member_id(member_id: str) -> str:
    """The ensemble member a row belongs to: ``"local:m/t@v1#Sports"`` -> ``"local:m/t@v1"``.

    Why: per-member figures (calls, cache hits, health) are the member x prompt's, whatever the questions.
    """
    return member_id.partition(QUESTION_SEP)[0]


def input_hash(fields: Mapping[str, Any], images: Sequence[Any] = ()) -> str:
    """A short hash of the input fields the prompts use: a stored verdict is only valid for these inputs.

    ``images`` (:class:`backend.providers.image_part.ImagePart`, in spec order) enter by content hash: an edited
    image is re-scored even where its reference stays the same. Without images the hash is the text one.
    """
    payload: Any = {str(k): v for k, v in fields.items()}
    if images:
        payload = {"fields": payload, "images": [str(image.sha256) for image in images]}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class ErrorInfo:
    """Why an item or a member call has no answer.

    ``reason`` is a short stable code counted in summaries (``timeout``, ``no_class_token``,
    ``missing_field``...); ``retryable`` says whether a later attempt can succeed (kept from the
    provider's own judgement, see :class:`backend.providers.base.ProviderError`); ``detail`` is the
    human-readable, secret-free explanation.
    """

    reason: str
    retryable: bool = False
    detail: str | None = None

    def __str__(self) -> str:
        return self.reason if not self.detail else f"{self.reason}: {self.detail}"

    def to_json(self) -> dict[str, Any]:
        return {"error": self.reason, "error_detail": self.detail, "error_retryable": self.retryable}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ErrorInfo | None":
        """Read the three flat keys; a stored ``"reason: detail"`` string from older runs is split once."""
        reason = data.get("error")
        if not reason:
            return None
        detail = data.get("error_detail")
        if detail is None and ": " in str(reason) and "error_retryable" not in data:
            reason, detail = str(reason).split(": ", 1)
        return cls(str(reason), bool(data.get("error_retryable", False)), detail)


def _coerce_error(record: Any) -> None:
    """Accept a bare reason code (``error="timeout"``) as shorthand for ``ErrorInfo("timeout")``.

    Only a code: a detail travels in :class:`ErrorInfo`, never joined into the string and split again.
    """
    if isinstance(record.error, str):
        if ": " in record.error:
            raise ValueError(f"error must be a reason code or an ErrorInfo, got {record.error!r} "
                             "(pass the detail as ErrorInfo(reason, retryable, detail))")
        object.__setattr__(record, "error", ErrorInfo(record.error))


def _json(record: Any, skip: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(record):
        if f.name in ("error", skip):
            continue
        out[f.name] = getattr(record, f.name)
    error = record.error
    out.update(error.to_json() if error is not None else {"error": None, "error_detail": None, "error_retryable": False})
    return out


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
    error: ErrorInfo | None = None
    cached: bool = False
    latency_s: float | None = None
    usage: Mapping[str, Any] | None = None  # the provider's token counts (cost accounting)

    def __post_init__(self) -> None:
        _coerce_error(self)

    @property
    def ok(self) -> bool:
        return self.probs is not None

    @property
    def reason(self) -> str | None:
        """The error's reason code, or None when the member answered."""
        return None if self.error is None else self.error.reason

    def to_json(self) -> dict[str, Any]:
        out = _json(self)
        out["probs"] = None if self.probs is None else dict(self.probs)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "MemberResult":
        known = {f.name for f in fields(cls)} - {"error"}
        return cls(error=ErrorInfo.from_json(data), **{k: v for k, v in data.items() if k in known})


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
    error: ErrorInfo | None = None
    line: int | None = None
    suspicious_text: bool = False  # instruction-like content aimed at the judge (see probes)
    insufficient: bool = False  # fewer members answered than the quorum: never flagged
    stopped_early: bool = False  # early exit: the members not called could not change flag or prediction
    data: Mapping[str, Any] = field(default_factory=dict)
    input_hash: str | None = None  # :func:`input_hash` of the fields the prompts used
    #: A family that asks several questions per item (multi-label): each question's verdict, ``id`` its key.
    questions: tuple["ItemResult", ...] = ()

    def __post_init__(self) -> None:
        _coerce_error(self)

    @property
    def reason(self) -> str | None:
        """The error's reason code, or None when the item was scored."""
        return None if self.error is None else self.error.reason

    def to_json(self) -> dict[str, Any]:
        out = _json(self, skip="members")
        out["probs"] = None if self.probs is None else dict(self.probs)
        out["data"] = dict(self.data)
        out["members"] = [m.to_json() for m in self.members]
        if self.questions:
            out["questions"] = [q.to_json() for q in self.questions]
        else:
            out.pop("questions", None)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ItemResult":
        members = tuple(MemberResult.from_json(m) for m in data.get("members", ()))
        questions = tuple(cls.from_json(q) for q in data.get("questions") or ())
        known = {f.name for f in fields(cls)} - {"members", "error", "questions"}
        kwargs = {k: v for k, v in data.items() if k in known}
        return cls(members=members, questions=questions, error=ErrorInfo.from_json(data), **kwargs)
