"""The generic task: a spec and its prompt values built from what a project already holds.

Any classification project (its label names, input fields, labelling guidelines) can be audited without
a hand-written prompt folder: the templates under ``prompts/generic/`` are filled with the project's
guidelines, the item's inputs under their names, and the labels as lettered options. The judge answers
with one letter, so each class is one short token whatever the label says (several words, non-ASCII,
punctuation), and the letter maps back to exactly one label (:meth:`TaskSpec.probs_by_label`).

Why letters: on SmolLM2's tokenizer every capital letter A-Z is a single token, bare and after a space
(measured in ``tests/backend/generic/test_generic_tokens.py``), while ``10``..``20`` are two tokens (digits are
split). So at most 26 classes; a larger label set is refused with that reason rather than answered with
ambiguous multi-token options.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any, Mapping, Sequence

from backend.common.labels import is_number
from backend.task.family import get_family
from backend.task.calibration_setting import EXTRA_KEY as CALIBRATION_KEY, resolve_calibration
from backend.task.spec import ChoiceBinding, PromptText, TaskSpec
from backend.task.option_orders import EXTRA_KEY, resolve_orders
from backend.task.multilabel_orders import multilabel_extra

GENERIC_PROMPT_DIR = "generic"
OPTION_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_CLASSES = len(OPTION_LETTERS)
#: Guidelines longer than this are cut (with a note): a small local model's context is 2048 tokens.
MAX_GUIDELINES_CHARS = 2000
NO_GUIDELINES = "(The project gives no written guidelines: use the label names and their descriptions.)"
DEFAULT_QUESTION = "Which label fits this item?"
#: Prefix of the params that name each input (``title:<variable>``); never a template placeholder.
TITLE_PARAM = "title:"

_BLOCK_TAGS = frozenset({"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table",
                         "section", "blockquote", "pre", "hr"})


class _TextOnly(HTMLParser):
    """Collect an HTML fragment's text; block tags become line breaks, list items get a dash."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCK_TAGS and tag != "li":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def guidelines_text(raw: str | None, *, limit: int = MAX_GUIDELINES_CHARS) -> str:
    """Labelling guidelines (Label Studio's HTML ``expert_instruction`` or plain text) as plain text.

    Tags are dropped, entities decoded, blank runs collapsed; text past ``limit`` characters is cut
    with a note saying so. Empty input gives "".
    """
    if not raw or not raw.strip():
        return ""
    parser = _TextOnly()
    parser.feed(raw)
    parser.close()
    text = html.unescape("".join(parser.parts))
    lines = [re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in text.splitlines()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if len(text) > limit:
        text = text[:limit].rstrip() + " [... guidelines cut at {} characters]".format(limit)
    return text


def option_tokens(n_labels: int) -> tuple[str, ...]:
    """``A``, ``B``... one per label; ValueError beyond 26 classes, saying why."""
    if n_labels < 2:
        raise ValueError("a task needs at least two labels")
    if n_labels > MAX_CLASSES:
        raise ValueError(
            f"{n_labels} classes: the generic prompts letter the options A-Z so that each class is one single "
            f"token the judge can answer with; at most {MAX_CLASSES} classes are supported (merge classes, or "
            "audit a subset of the label set with a spec of your own)"
        )
    return tuple(OPTION_LETTERS[:n_labels])


def generic_spec(
    *,
    labels: Sequence[str],
    fields: Sequence[str] | Mapping[str, str],
    family: str | None = None,
    name: str = "generic",
    guidelines: str = "",
    shown: Sequence[str] | None = None,
    hints: Sequence[str] | None = None,
    titles: Mapping[str, str] | None = None,
    question: str = "",
    negative_label: str = "",
    label_field: str = "label",
    id_field: str = "id",
    binding: ChoiceBinding | None = None,
    image_fields: Sequence[str] = (),
    option_orders: int | None = None,
    calibration: str | None = None,
    multilabel_orders: int | None = None,
) -> TaskSpec:
    """A spec judged with the generic prompts: lettered options over ``labels``.

    ``image_fields`` are the variables holding an image (a Label Studio ``<Image>``): the prompt shows
    each under its title as :func:`backend.providers.image_part.placeholder` text, and the image travels beside it.

    ``family`` defaults to binary for two labels, ordinal when every label is a number, nominal otherwise.
    ``shown``/``hints`` are what annotators see for each label and its description; ``titles`` name the
    inputs (a ``<Header>`` text); ``question`` is the task's own question, if any. ``option_orders``: in how
    many cyclic orders of the lettered options a single-choice family asks the question
    (:mod:`backend.task.option_orders`). ``calibration``: whether each judge's answers are divided by its answer
    to a content-free item (:mod:`backend.scoring.contextual_calibration`). Both are settings the caller passes
    (``Settings.spec_options()``, resolved at an edge); None is the default of :mod:`backend.common.defaults`.
    The spec carries both (also a set-valued one, whose yes/no questions are derived with them:
    :func:`derived_options`). ``multilabel_orders``: in how many orders a set-valued family asks each label's
    yes/no question (:mod:`backend.task.multilabel_orders`; other families ignore it).
    """
    labels = tuple(str(lab) for lab in labels)
    family = family or infer_family(labels)
    # A set-valued family asks its own yes/no question per label: no lettered options over all labels.
    multi = get_family(family).multi_valued
    tokens = () if multi else option_tokens(len(labels))
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels must be distinct: {list(labels)}")
    fmap = dict(fields) if isinstance(fields, Mapping) else {f: f for f in fields}
    if not fmap:
        raise ValueError("the generic task needs at least one input field")
    if get_family(family).ordered:
        labels = tuple(sorted(labels, key=float)) if all(is_number(lab) for lab in labels) else labels
    shown_t = tuple(str(s) for s in (shown or labels))
    hints_t = tuple(str(h or "") for h in (hints or [""] * len(labels)))
    if len(shown_t) != len(labels) or len(hints_t) != len(labels):
        raise ValueError("shown and hints need one entry per label")
    prompt = PromptText(
        guidelines=guidelines_text(guidelines), shown=shown_t, hints=hints_t,
        titles={var: str((titles or {}).get(var) or var) for var in fmap}, question=question.strip(),
    )
    return TaskSpec(
        name=name, family=family, prompt_dir=GENERIC_PROMPT_DIR, fields=fmap, labels=labels,
        id_field=id_field, label_field=label_field, negative_label=negative_label, answer_tokens=tokens,
        binding=binding, prompt=prompt, image_fields=tuple(image_fields),
        extra={EXTRA_KEY: resolve_orders(option_orders), CALIBRATION_KEY: resolve_calibration(calibration),
               **(multilabel_extra(multilabel_orders) if multi else {})},
    )


def derived_options(spec: TaskSpec) -> dict[str, Any]:
    """The option orders and calibration ``spec`` was derived with, as :func:`generic_spec` keywords: the question
    specs a family builds from it (multi-label, pairwise, spans) are asked with the same settings."""
    return {"option_orders": spec.extra.get(EXTRA_KEY), "calibration": spec.extra.get(CALIBRATION_KEY)}


def infer_family(labels: Sequence[str]) -> str:
    """Two labels: binary; all numeric: ordinal; otherwise nominal."""
    if len(labels) == 2:
        return "binary"
    return "ordinal" if all(is_number(lab) for lab in labels) else "nominal"


def _letter_rank(token: str) -> int:
    """A lettered option's place in the list (other tokens last, in class order: the sort is stable)."""
    return OPTION_LETTERS.index(token) if token in OPTION_LETTERS else len(OPTION_LETTERS)


def generic_params(spec: TaskSpec) -> dict[str, str]:
    """Trusted template values of a generic spec: guidelines, options, definitions, question, titles.

    These come from the project's configuration (never from an item), so they are not fenced; they
    enter the ensemble fingerprint, so editing the guidelines or a label changes the model version.
    """
    text = spec.prompt or PromptText()
    shown = tuple(text.shown or spec.labels)
    hints = tuple(text.hints or [""] * len(spec.labels))
    # Listed by letter: an order of the options (backend.task.option_orders) is a rotation of the letters.
    rows = list(zip(spec.tokens, shown, hints))
    if spec.answer_tokens:
        rows.sort(key=lambda row: _letter_rank(row[0]))
    tokens = tuple(row[0] for row in rows)
    options = "\n".join(f"{tok}. {name}" for tok, name, _ in rows)
    definitions = "\n".join(f"{tok}. {name}: {hint}" if hint else f"{tok}. {name}" for tok, name, hint in rows)
    order = ", ".join(tokens[:-1]) + f" or {tokens[-1]}"
    params = {
        "guidelines": text.guidelines or NO_GUIDELINES,
        "options": options,
        "definitions": definitions,
        "option_tokens": order,
        "question": text.question or DEFAULT_QUESTION,
    }
    titles = dict(text.titles)
    for var in spec.fields:
        params[TITLE_PARAM + var] = str(titles.get(var) or var)
    return params
