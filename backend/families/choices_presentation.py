"""Pre-flight check: a ``<Choices>`` whose labels are bare codes and that gives the judges nothing to read them by.

Why: the generic prompts show the judges a choice's shown value, its ``hint``, the ``<Header>`` question and the
guidelines (:func:`backend.task.generic.generic_params`); nothing else tells them what a label means. Measured on
ChaosNLI SNLI with the local judge, values ``e``/``n``/``c`` with no question and no hints made 3 of 4 default
prompts answer ``e`` for 84-100 % of the items and the ensemble fell to chance (0.38); the same items with
readable values and a question gave 0.71. Member health names such a collapse only after every call is paid for,
so this check says it before any call (``label-audit score``/``audit``), and again in the summary and the report.
It is a warning, never a refusal: the lead may know the judges read the codes well enough.

The rule (:func:`is_code`), chosen to be plain and testable rather than a language model of its own:

* a label of at most :data:`CODE_MAX_CHARS` characters is a code (``e``, ``n``, ``Y``, ``NG``, ``C1``);
* a number is a code (``1``..``5``, ``100``): it says no more than a letter about what is graded;
* at most :data:`ABBREVIATION_MAX_CHARS` capitals or digits is an abbreviation (``DESC``, ``ENTY``, ``HUM``,
  ``NEG``): a code to a small judge, however guessable to a large one;
* except the few short words that are answers by themselves (:data:`READABLE_SHORT_WORDS`: ``Yes``, ``No``,
  ``OK``, ``TRUE``...), in any case. ``Entailment``, ``Positive``, ``Spam`` are words.

A control is warned when **every** shown label is a code and no choice has a hint. With no question and no
guidelines either, the judges have nothing to read the codes by. With a question or guidelines, letter codes are
still warned, with another message: the judges answer with the labels they are shown, and on SNLI (the judges'
average, as scored) codes with a ``<Header>`` question read 0.44 where readable values with it read 0.69 (the same 32
items), and codes with guidelines naming each code 0.52 where readable values with a question and the guidelines
read 0.70 (the same 64 items; docs/judges.md, "Guidelines on the real judge"). Numbers, and two codes,
with a question or guidelines are not warned: a question makes numbers a scale and two letters a yes or a no
(``Y``/``N`` to "Is the text polite?"), and no such run was measured. Built-in specs (their own
prompts define the labels) are never warned. A file's spec (``score --labels``) is checked alike, with the fix a
file has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from backend.controls.choices import CONTROL_TYPES
from backend.task.spec import TaskSpec

__all__ = ["BareCodes", "bare_codes", "is_code", "check_codes"]

#: A shown label this short is a code whatever its letters.
CODE_MAX_CHARS = 2
#: Capitals (and digits) up to this length read as an abbreviation (``DESC``), not a word.
ABBREVIATION_MAX_CHARS = 4
#: Short words that are an answer by themselves (compared lower-cased): never codes.
READABLE_SHORT_WORDS = frozenset({"yes", "no", "ok", "true", "none", "good", "bad", "fake", "real", "spam", "ham"})
#: Codes listed by name in the message; more are counted.
LISTED_CODES = 6
#: The families a ``<Choices>`` is judged as (its control type's): single choice and multi-label alike show labels.
_CHOICE_FAMILIES = frozenset(family for ctype in CONTROL_TYPES for family in ctype.families)


@dataclass(frozen=True)
class BareCodes:
    """One control whose labels the judges cannot read: its name (``""`` for a file's labels), its codes, why.

    ``message`` is the one sentence every surface prints (the command's start, the summary, the report).
    """

    control: str
    codes: tuple[str, ...]
    message: str

    def __post_init__(self) -> None:
        if not self.codes:
            raise ValueError("BareCodes needs the codes it warns about")
        if not self.message.strip():
            raise ValueError("BareCodes needs its message")

    def to_dict(self) -> dict[str, Any]:
        return {"control": self.control, "codes": list(self.codes), "message": self.message}


def is_code(label: str) -> bool:
    """Whether a shown label is a bare code rather than a word a judge can read (the rule in the module doc)."""
    text = str(label).strip()
    if text.lower() in READABLE_SHORT_WORDS:
        return False
    if len(text) <= CODE_MAX_CHARS or _is_number(text):
        return True
    return len(text) <= ABBREVIATION_MAX_CHARS and text.isalnum() and text.isupper()


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def check_codes(*, control: str, shown: tuple[str, ...], hints: tuple[str, ...] = (), question: str = "",
                guidelines: str = "", label_field: str = "label") -> BareCodes | None:
    """The warning for one control's shown labels and what the judges get beside them; None: readable.

    ``control`` is the ``<Choices>``' name, ``""`` for a file's labels (then ``label_field`` names them and the
    fix is the file's: guidelines or a label config).
    """
    if not shown or not all(is_code(label) for label in shown) or any(h.strip() for h in hints):
        return None
    listed = ", ".join(shown[:LISTED_CODES]) + (f" and {len(shown) - LISTED_CODES} more"
                                                 if len(shown) > LISTED_CODES else "")
    told = [what for what, text in (("a question", question), ("guidelines", guidelines)) if text.strip()]
    if told:
        if len(shown) <= 2 or all(_is_number(label.strip()) for label in shown):
            return None
        where = f'<Choices name="{control}"> shows' if control else f"the labels of field {label_field!r} show"
        fix = ('readable values with the codes as alias (<Choice value="..." alias="code"/>: the stored labels stay '
               'the codes)' if control else "a --label-config with readable values and the codes as alias")
        verb = "says" if told == ["a question"] else "say"
        message = (f"{where} the judges only codes ({listed}); {' and '.join(told)} {verb} what they mean, but "
                   f"the judges answer with the labels they are shown, and codes read worse than words (SNLI, local "
                   f"judge on the same items: 0.44-0.52 accuracy with codes and a question or guidelines, 0.69-0.70 "
                   f"with readable values): use {fix}.")
        return BareCodes(control=control, codes=tuple(shown), message=message)
    if control:
        message = (f'<Choices name="{control}"> shows the judges only bare codes ({listed}) with no question, hint '
                   'or guidelines to read them by: add a <Header> with the question, readable values with the codes '
                   'as alias, or hint="..." on each Choice.')
    else:
        message = (f"the labels of field {label_field!r} are bare codes ({listed}) with no question, hint or "
                   "guidelines to read them by: pass --guidelines FILE saying what each means, or a --label-config "
                   "with a <Header> question and readable values with the codes as alias.")
    return BareCodes(control=control, codes=tuple(shown), message=message)


def bare_codes(spec: TaskSpec) -> tuple[BareCodes, ...]:
    """Every ``<Choices>`` of ``spec`` (each control of a several-control spec) whose labels the judges cannot read.

    Only a spec asked with the generic prompts is checked (``spec.prompt``): a built-in spec's prompts say what
    its labels mean. Other controls (ratings, numbers, preferences) are not ``<Choices>`` and are not checked.
    """
    if spec.controls:
        return tuple(w for c in spec.controls if c.tag == "Choices" for w in bare_codes(c.spec))
    if spec.prompt is None or spec.family not in _CHOICE_FAMILIES:
        return ()
    prompt = spec.prompt
    found = check_codes(control=spec.binding.from_name if spec.binding is not None else "",
                        shown=tuple(prompt.shown or spec.labels), hints=tuple(prompt.hints),
                        question=prompt.question, guidelines=prompt.guidelines, label_field=spec.label_field)
    return () if found is None else (found,)
