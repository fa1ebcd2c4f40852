"""The proposal step's prompt (its answer is parsed by :mod:`backend.spans.proposal_parse`).

Why its own prompt and no class tokens: listing what is missing is open-ended, so the judge writes
``{"<type>": ["exact words", ...], ...}`` in a ```` ```json ```` block. The item text is fenced exactly as
in every other prompt (:func:`backend.scoring.prompting.fence`), so text inside it cannot pose as instructions.

Wording measured with a real instruct judge (Qwen2.5-Coder-1.5B-Instruct, ``bench/bench_span_proposals.py``).
Version 1 showed every type with an empty list as its example: the judge copied that shape, wrote ten
lines of empty lists per tweet (most of the call's time) and left lower-case names out ("ravens",
"sam"), while whole clauses went under the last type. Version 2 says that a name counts in lower case,
that an entity is a few words and never a phrase, and asks only for the types that have entities,
with an example that has some. On 36 tweets: exact-extent recall 0.49 -> 0.57, planted boundary
errors asked 3 -> 6 of 9, missed 8 -> 6 of 9 (two replies copied the example's ``<name>``). A wording
without the example (every type listed again) asked as many planted errors (12 of 18) with lower
precision (0.50 against 0.55) and more other questions (1.56 against 1.25 per tweet); not kept.
"""

from __future__ import annotations

import json
from typing import Sequence

from backend.scoring.prompting import DATA_NOTICE, fence

TEMPLATE_ID = "spans-propose"
TEMPLATE_VERSION = 2


def proposal_prompt(text: str, *, types: Sequence[str], hints: Sequence[str] = (), guidelines: str = "") -> str:
    """The rendered prompt asking for every entity of each type, copied word for word."""
    hints = list(hints) or [""] * len(types)
    lines = [f"- {t}: {h}" if h else f"- {t}" for t, h in zip(types, hints)]
    example = json.dumps({t: ["<name>"] * (2 - i) for i, t in enumerate(types[:2])}, ensure_ascii=False)
    return "\n".join([
        DATA_NOTICE,
        "",
        "Task: find every named entity in the text: each name of a specific thing of one of the entity types",
        "below. A name counts even when it is written in lower case. An entity is a name of one to a few",
        "words, never a whole phrase or sentence. Copy each entity exactly as it is written in the text, and",
        "list it once even if it occurs several times.",
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
        "Reply with one JSON object in a ```json block: the keys are the entity types that have entities,",
        f"each value the list of its entities; leave out the types with none. For example: {example}",
        "Answer: ",
    ])
