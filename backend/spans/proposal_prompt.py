"""The proposal step's prompt and the parsing of its answer (a fenced JSON object).

Why its own prompt and no class tokens: listing what is missing is open-ended, so the judge writes
``{"<type>": ["exact words", ...], ...}`` in a ```` ```json ```` block. The item text is fenced exactly as
in every other prompt (:func:`backend.scoring.prompting.fence`), so text inside it cannot pose as instructions.
An answer that is not such an object proposes nothing and says why; it never fails the item.
"""

from __future__ import annotations

import json
import re
from typing import Sequence

from backend.scoring.prompting import DATA_NOTICE, fence

TEMPLATE_ID = "spans-propose"
TEMPLATE_VERSION = 1
_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)
_BARE = re.compile(r"\{.*\}", re.DOTALL)


def proposal_prompt(text: str, *, types: Sequence[str], hints: Sequence[str] = (), guidelines: str = "") -> str:
    """The rendered prompt asking for every entity of each type, copied word for word."""
    hints = list(hints) or [""] * len(types)
    lines = [f"- {t}: {h}" if h else f"- {t}" for t, h in zip(types, hints)]
    example = json.dumps({t: [] for t in types}, ensure_ascii=False)
    return "\n".join([
        DATA_NOTICE,
        "",
        "Task: list every named entity in the text, by type. Copy each entity exactly as it is written in",
        "the text. List an entity once even if it occurs several times.",
        "",
        "Guidelines:",
        guidelines or "(none beyond the entity types)",
        "",
        "Entity types:",
        *lines,
        "",
        "Text:",
        fence(text),
        "",
        f"Reply with one JSON object in a ```json block, one key per type, for example: {example}",
        "Answer: ",
    ])


def parse_proposals(reply: str, *, types: Sequence[str]) -> tuple[dict[str, list[str]], str | None]:
    """``({type: [strings]}, problem)`` from a judge's reply; unknown types and non-strings are dropped.

    ``problem`` is None when the reply held a usable object, else a short reason (counted, never raised).
    """
    match = _FENCED.search(reply or "") or _BARE.search(reply or "")
    if match is None:
        return {}, "no JSON object in the reply"
    try:
        data = json.loads(match.group(1) if match.re is _FENCED else match.group(0))
    except json.JSONDecodeError as exc:
        return {}, f"the JSON object does not parse: {exc.msg}"
    if not isinstance(data, dict):
        return {}, "the JSON is not an object"
    folded = {t.casefold(): t for t in types}
    out: dict[str, list[str]] = {}
    for key, values in data.items():
        label = folded.get(str(key).strip().casefold())
        if label is None:
            continue
        values = [values] if isinstance(values, str) else values
        if isinstance(values, list):
            strings = [v.strip() for v in values if isinstance(v, str) and v.strip()]
            out.setdefault(label, []).extend(strings)
    return out, None
