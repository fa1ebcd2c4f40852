"""How a rendered prompt becomes the ChatML transcript an in-process instruct model reads.

The engine renders one user message ending with the line ``Answer: ``. A chat-tuned model such as
SmolLM2 only answers well inside its chat template, and it only puts its mass on a class token when
the text it continues ends with ``Answer: `` (measured; see ``PROMPT_FORMATS``). The transcript is
returned as segments flagged ``special``: only our own template markers are tokenized as special
tokens, so an item's text containing ``<|im_start|>`` cannot open a fake turn.
"""

from __future__ import annotations

from typing import NamedTuple

ANSWER_CUE = "Answer: "

#: ``chatml-prefill``: user turn = the prompt without its final ``Answer: `` line, assistant turn
#: prefilled with ``Answer: `` (the default: most class-token mass on SmolLM2, see local_gguf).
#: ``chatml-repeat``: user turn = the whole prompt, assistant turn prefilled with ``Answer: `` too.
#: ``chatml``: user turn = the whole prompt, assistant turn left empty.
#: ``raw``: no chat template, the prompt as plain text (for base models).
PROMPT_FORMATS = ("chatml-prefill", "chatml-repeat", "chatml", "raw")


class Segment(NamedTuple):
    """A piece of the transcript; ``special`` pieces may contain control tokens."""

    text: str
    special: bool


def split_answer_cue(prompt: str) -> tuple[str, str]:
    """Split ``prompt`` into (question, cue) when its last line is the answer cue, else (prompt, "")."""
    head, sep, last = prompt.rpartition("\n")
    if sep and last.strip() and ANSWER_CUE.strip() == last.strip():
        return head.rstrip("\n"), ANSWER_CUE
    return prompt, ""


def chatml_segments(prompt: str, *, prompt_format: str = "chatml-prefill", system: str | None = None) -> list[Segment]:
    """The transcript for ``prompt`` in ``prompt_format``, ending where the model should answer.

    Parameters
    ----------
    prompt : str
        The fully rendered user message (normally ending with ``Answer: ``).
    prompt_format : str
        One of ``PROMPT_FORMATS``.
    system : str or None
        An optional system message (ChatML formats only).
    """
    if prompt_format not in PROMPT_FORMATS:
        raise ValueError(f"prompt_format must be one of {PROMPT_FORMATS}, got {prompt_format!r}")
    if prompt_format == "raw":
        return [Segment(prompt, False)]
    segments: list[Segment] = []
    if system:
        segments += [Segment("<|im_start|>system\n", True), Segment(system, False), Segment("<|im_end|>\n", True)]
    if prompt_format == "chatml-prefill":
        user, prefill = split_answer_cue(prompt)
    elif prompt_format == "chatml-repeat":
        user, prefill = prompt.rstrip(), ANSWER_CUE
    else:
        user, prefill = prompt.rstrip(), ""
    segments += [
        Segment("<|im_start|>user\n", True),
        Segment(user, False),
        Segment("<|im_end|>\n<|im_start|>assistant\n", True),
    ]
    if prefill:
        segments.append(Segment(prefill, False))
    return segments
