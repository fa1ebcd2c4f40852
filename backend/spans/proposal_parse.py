"""A judge's proposal reply -> ``{entity type: [strings]}``, tolerant of how real models write.

Why tolerant: the reply is free text from a model at temperature 0, and every form below was seen
from a real instruct model or is one step from it (``tests/backend/spans/data/``): the object in a
```` ```json ```` block or bare, text after it, single quotes (a Python dict), a trailing comma,
a list of ``{"text": ..., "type": ...}`` records, or a reply cut by the token limit in the middle of
the object. Each complete ``"type": [...]`` pair of a cut reply is still used. Anything that yields
no pair proposes nothing and says why; it never fails the item.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Iterator, Sequence

_FENCED = re.compile(r"```[a-zA-Z]*\s*(.*?)(?:```|$)", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_PAIR = re.compile(r"""["']([^"'\n]{1,40})["']\s*:\s*(\[[^\[\]]*\]|"[^"\n]*"|'[^'\n]*')""")
_QUOTED = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'([^\'\n]*)\'')
_TEXT_KEYS = ("text", "entity", "name", "span", "value")
_TYPE_KEYS = ("type", "label", "entity_type", "category", "tag")


def _candidates(reply: str) -> Iterator[tuple[str, bool]]:
    """``(text, anchored)`` that may hold the answer: each fenced block, then the reply from each ``{``
    on and from each ``[`` before the first ``{`` (a list inside an object is never the whole answer).
    ``anchored``: a fenced block or the reply's start, where an empty ``{}`` is an answer, not prose."""
    for match in _FENCED.finditer(reply):
        yield match.group(1), True
    first_brace, start = reply.find("{"), len(reply) - len(reply.lstrip())
    for match in re.finditer(r"[\[{]", reply):
        if match.group() == "{" or first_brace == -1 or match.start() < first_brace:
            yield reply[match.start():], match.start() == start


def _load(text: str) -> Any:
    """The first JSON (or Python literal) value at the start of ``text``; None when there is none."""
    text = text.strip()
    if not text or text[0] not in "[{":
        return None
    for attempt in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return json.JSONDecoder().raw_decode(attempt)[0]
        except json.JSONDecodeError:
            pass
    closing = "}" if text[0] == "{" else "]"
    for end in (i for i, char in enumerate(text) if char == closing):  # a Python literal, single quotes
        try:
            return ast.literal_eval(text[:end + 1])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    return None


def _pairs(data: Any) -> list[tuple[str, Any]]:
    """(type, value) pairs of an object, or of a list of records / ``[text, type]`` pairs."""
    if isinstance(data, dict):
        return [(str(k), v) for k, v in data.items()]
    if not isinstance(data, list):
        return []
    out: list[tuple[str, Any]] = []
    for entry in data:
        if isinstance(entry, dict):
            folded = {str(k).casefold(): v for k, v in entry.items()}
            text = next((folded[k] for k in _TEXT_KEYS if k in folded), None)
            label = next((folded[k] for k in _TYPE_KEYS if k in folded), None)
            if label is not None:
                out.append((str(label), text))
        elif isinstance(entry, (list, tuple)) and len(entry) == 2 and all(isinstance(x, str) for x in entry):
            out.append((entry[1], entry[0]))
    return out


def _collect(pairs: list[tuple[str, Any]], types: Sequence[str]) -> tuple[dict[str, list[str]], bool]:
    """Known types only (matched without case), strings only, stripped, each string once per type;
    and whether any known type came with a string or a list (the reply answered the question)."""
    folded = {t.casefold(): t for t in types}
    out: dict[str, list[str]] = {}
    answered = False
    for key, values in pairs:
        label = folded.get(key.strip().casefold())
        values = [values] if isinstance(values, str) else values
        if label is None or not isinstance(values, (list, tuple)):
            continue
        answered = True
        kept = out.setdefault(label, [])
        kept.extend(s for s in dict.fromkeys(v.strip() for v in values if isinstance(v, str)) if s and s not in kept)
    return out, answered


def _salvage(reply: str, types: Sequence[str]) -> dict[str, list[str]]:
    """The complete ``"type": [...]`` pairs of a reply whose object does not parse (cut, say)."""
    pairs = []
    for match in _PAIR.finditer(reply):
        strings = [a if a else b for a, b in _QUOTED.findall(match.group(2))]
        pairs.append((match.group(1), [_unescape(s) for s in strings]))
    return _collect(pairs, types)[0]


def _unescape(text: str) -> str:
    try:
        return json.loads(f'"{text}"')
    except json.JSONDecodeError:
        return text


def parse_proposals(reply: str, *, types: Sequence[str]) -> tuple[dict[str, list[str]], str | None]:
    """``({type: [strings]}, problem)`` from a judge's reply; unknown types and non-strings are dropped.

    ``problem`` is None when the reply held a usable answer — an object or a list of records naming
    at least one of ``types`` with its strings, or at least one complete type/list pair of a cut
    object — else a short reason (counted, never raised). An empty ``{}`` (or ``[]``) is usable where
    it is the answer (fenced, or the reply's start): the judge saw no entity. The same braces inside
    prose are not an answer.
    """
    reply = reply or ""
    seen_json = False
    for text, anchored in _candidates(reply):
        data = _load(text)
        if data is None:
            continue
        seen_json = True
        found, answered = _collect(_pairs(data), types)
        if answered or (anchored and data in ({}, [])):
            return found, None
    salvaged = _salvage(reply, types)
    if salvaged:
        return salvaged, None
    if seen_json:
        return {}, "the JSON lists no entity type with its strings"
    if "{" in reply or "[" in reply:
        return {}, "the JSON object does not parse"
    return {}, "no JSON object in the reply"
