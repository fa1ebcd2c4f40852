"""Read labelled items from JSONL or CSV through a task spec, one bad record never stopping the rest.

``read_items`` yields an :class:`Item` for every good record and an :class:`ItemError` (with its 1-based
line number) for every bad one, in file order, so a run can report each problem and score the rest.
``item_from_record`` turns one already-parsed record (a JSON object, a CSV row, a Label Studio task's
``data``) into an Item, raising ValueError with the reason.

Rules
-----
- Every template variable's field (``spec.fields`` values) must be present and not null; numbers are
  turned into text; lists/objects are rejected.
- The id field: a string or integer. A record with no id field gets ``line:<n>`` when it has a line
  number (a file), else it is rejected.
- The label field: absent, null or empty means "unlabelled" (``original`` is None: scored, never
  flagged); any other value must normalise into the label set (``1``, ``"1"`` and ``1.0`` are all ``"1"``).
- A repeated id is an error on every occurrence after the first.
- An id longer than 255 characters, or inputs longer than ``max_chars`` (default 20 000,
  ``LABEL_AUDIT_MAX_ITEM_CHARS``) together, are that item's error.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from backend.common import defaults
from backend.providers.image_part import ImagePart
from backend.common.records import RecordProblem, RecordReader
from backend.task.spec import TaskSpec


@dataclass(frozen=True)
class Item:
    """One labelled item ready to judge.

    Attributes
    ----------
    id : str
        The item id (from ``spec.id_field``).
    original : str or None
        The original label in the spec's label strings; None when the item is unlabelled.
    fields : mapping of str to str
        Template variable -> text (``spec.fields`` applied to the record).
    line : int or None
        1-based line of the record in its file (first line of a multi-line CSV record).
    data : mapping
        The record as read.
    images : tuple of ImagePart
        The fetched images of the spec's ``image_fields``, in spec order (:mod:`backend.images`); their
        variables' ``fields`` hold :func:`backend.providers.image_part.placeholder` texts once fetched.
    """

    id: str
    original: str | None
    fields: Mapping[str, str]
    line: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    images: tuple[ImagePart, ...] = ()


@dataclass(frozen=True)
class ItemError:
    """A record that could not become an Item.

    ``reason`` is a short stable code counted in summaries: ``invalid_json``, ``not_an_object``,
    ``unreadable``, ``missing_field``, ``bad_value``, ``bad_label``, ``missing_id``, ``duplicate_id``,
    ``csv_error``.
    """

    line: int | None
    id: str | None
    reason: str
    detail: str

    def message(self) -> str:
        where = f"line {self.line}" if self.line is not None else "record"
        who = f" (id {self.id})" if self.id else ""
        return f"{where}{who}: {self.reason}: {self.detail}"


class RecordError(ValueError):
    """ValueError carrying a reason code and the record's id when known."""

    def __init__(self, reason: str, detail: str, *, item_id: str | None = None):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.item_id = item_id


def _text(value: Any, what: str, item_id: str | None) -> str:
    if isinstance(value, bool) or isinstance(value, (list, dict)):
        raise RecordError("bad_value", f"field {what!r} must be text, got {type(value).__name__}", item_id=item_id)
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            raise RecordError("unreadable", f"field {what!r} is not valid UTF-8", item_id=item_id)
        return value
    raise RecordError("bad_value", f"field {what!r} must be text, got {type(value).__name__}", item_id=item_id)


#: ``spec.extra`` key naming the variables whose field holds structured data (a ``<List>``'s items): kept as
#: canonical JSON text, so the input hash covers it and the family that reads it decodes it.
JSON_FIELDS_KEY = "json_fields"


def _json_text(value: Any, what: str, item_id: str | None) -> str:
    if not isinstance(value, (list, dict)):
        raise RecordError("bad_value", f"field {what!r} must be a list, got {type(value).__name__}", item_id=item_id)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def item_from_record(record: Mapping[str, Any], spec: TaskSpec, *, line: int | None = None,
                     max_chars: int = defaults.MAX_ITEM_CHARS) -> Item:
    """Build an Item from one parsed record; raise ValueError (a :class:`RecordError`) saying why not.

    An id longer than the ledger's key columns (``id_too_long``) or inputs longer than ``max_chars``
    characters together (``too_long``: each is sent through every prompt of every member) are that
    item's error, never the batch's.
    """
    if not isinstance(record, Mapping):
        raise RecordError("not_an_object", f"expected an object with fields, got {type(record).__name__}")
    raw_id = record.get(spec.id_field)
    if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
        if spec.id_field in record or line is None:
            raise RecordError("missing_id", f"no value in id field {spec.id_field!r}")
        item_id = f"line:{line}"
    elif isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
        raise RecordError("missing_id", f"id field {spec.id_field!r} must be a string or an integer")
    else:
        item_id = _text(raw_id, spec.id_field, None).strip()
        if len(item_id) > defaults.MAX_ID_CHARS:
            raise RecordError("id_too_long", f"the id has {len(item_id)} characters, more than the "
                              f"{defaults.MAX_ID_CHARS} the ledger keys hold", item_id=short_id(item_id))

    fields: dict[str, str] = {}
    for variable, source in spec.fields.items():
        if source not in record or record[source] is None:
            raise RecordError("missing_field", f"field {source!r} is missing", item_id=item_id)
        fields[variable] = _json_text(record[source], source, item_id) if variable in spec.extra.get(
            JSON_FIELDS_KEY, ()) else _text(record[source], source, item_id)
    # An image field holds a reference (a path, a URL, a data URL): the judges get its bytes, not its text.
    size = sum(len(text) for variable, text in fields.items() if variable not in spec.image_fields)
    if size > max_chars:
        raise RecordError("too_long", f"the inputs have {size} characters, more than the cap of {max_chars} "
                          "(LABEL_AUDIT_MAX_ITEM_CHARS; each call would send them all)", item_id=item_id)

    raw_label = record.get(spec.label_field)
    if raw_label is None or (isinstance(raw_label, str) and not raw_label.strip()):
        original = None
    else:
        try:  # the family refuses what is no label of its (bool, dict...)
            original = spec.normalize_label(raw_label)
        except (OverflowError, ValueError):  # an integer no float holds (a JSON 1 followed by 400 zeros)
            original = None
        if original is None:
            raise RecordError(
                "bad_label",
                f"label {_shown(raw_label)} is not in the label set {list(spec.labels)}",
                item_id=item_id,
            )
    return Item(id=item_id, original=original, fields=fields, line=line, data=dict(record))


def _shown(raw: Any) -> str:
    """``repr(raw)`` cut to 60 characters (an integer of 5000 digits cannot even be printed whole)."""
    try:
        text = repr(raw)
    except ValueError:
        return f"<an {type(raw).__name__} too long to show>"
    return text if len(text) <= 60 else text[:60] + "..."


def short_id(item_id: str) -> str:
    """An over-long id made storable: its head and a hash of the whole (so its error row can be kept)."""
    if len(item_id) <= defaults.MAX_ID_CHARS:
        return item_id
    digest = hashlib.sha256(item_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{item_id[:200]}...#{digest}"


def _jsonl(path: str | Path) -> bool:
    """``label-audit score`` reads JSONL unless the name ends in ``.csv`` or ``.tsv``."""
    return Path(path).suffix.lower() not in (".csv", ".tsv")


def read_items(path: str | Path, spec: TaskSpec, *, max_chars: int = defaults.MAX_ITEM_CHARS
               ) -> Iterator[Item | ItemError]:
    """Yield Items and ItemErrors in file order (JSONL by default; ``.csv``/``.tsv`` by suffix).

    The file is read by the shared :class:`backend.common.records.RecordReader` (short CSV rows keep their
    trailing fields absent, reported as missing fields). Raises OSError only when the file itself
    cannot be opened; every per-record problem is yielded.
    """
    seen: set[str] = set()
    for record in RecordReader(Path(path), fmt="jsonl" if _jsonl(path) else None, short_rows="partial"):
        if isinstance(record, RecordProblem):
            yield ItemError(record.line, None, record.reason, record.detail)
            continue
        number = record.line
        try:
            item = item_from_record(record.data, spec, line=number, max_chars=max_chars)
        except RecordError as exc:
            yield ItemError(number, exc.item_id, exc.reason, exc.detail)
            continue
        if item.id in seen:
            yield ItemError(number, item.id, "duplicate_id", f"id {item.id!r} already appeared earlier in the file")
            continue
        seen.add(item.id)
        yield item


def item_error_from_exception(exc: ValueError, *, line: int | None = None, item_id: str | None = None) -> ItemError:
    """Turn the ValueError of :func:`item_from_record` into an ItemError (for callers like the LS backend)."""
    if isinstance(exc, RecordError):
        return ItemError(line, exc.item_id or item_id, exc.reason, exc.detail)
    return ItemError(line, item_id, "bad_value", str(exc))


__all__ = ["Item", "ItemError", "RecordError", "item_from_record", "read_items", "item_error_from_exception"]
