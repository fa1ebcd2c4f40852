"""What an expert sees in a review project: titled inputs, choices with their meaning, safe guidelines.

Inputs are text blocks and images (``<Image name=... value="$field"/>``: the task's field holds the URL of
the neutral copy uploaded to the review instance, never the source's reference).

A blind view must still be usable: two bare text blocks and the choices "0" / "1" leave an expert
guessing what is asked. Everything kept here is *static* — the same for every item of the project —
so none of it can carry an item's label: a header's text (a header bound to a data field, or one
talking about the model's or the original verdict, is dropped),
a choice's ``hint`` or the meaning the guidelines give it, and the project's guidelines once checked
to name no task and quote no item. Per-item data (the original label, predictions, scores, source
ids) never enters the config.

A choice's meaning is shown in its visible text while the stored answer stays the bare label:
``<Choice value="1 — supported" alias="1">`` (Label Studio stores the alias in the result).
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from backend.controls.parse import config_root
from backend.controls.choices import ChoiceControl, find_choice_control
from backend.labelstudio.labelconfig import find_inputs

MEANING_SEP = " — "
CHOICES_TITLE = "Your label"
# Minimum length of an input (or one of its sentences) that counts as quoted in the guidelines: shorter
# strings ("yes", "Paris") are common words, not a copied item.
QUOTE_MIN_CHARS = 24
# Static text that talks about a verdict (the model's or the original one) biases every item alike: such
# a header or hint is dropped and such guidelines are refused (e.g. "Our LLM says: likely 0").
VERDICT_TALK = re.compile(
    r"\b(llms?|predictions?|predicted|ensemble|confidence|original labels?|the model(?:'s| says| thinks))\b",
    re.IGNORECASE,
)
TASK_REFERENCE = re.compile(
    r"(?:\btasks?\b|\bitems?\b|\bid\b|/tasks/|[?&]task=|#)\s*[:#=]?\s*(\d+)", re.IGNORECASE
)


@dataclass(frozen=True)
class ExtraChoice:
    """A static choice the review adds after the project's own (the same on every item, so it tells nothing
    about one): what the expert sees (``shown``, with a ``hint``) and the reserved value stored (``alias``)."""

    alias: str
    shown: str
    hint: str = ""

    def __post_init__(self) -> None:
        if not self.alias or not self.shown:
            raise ValueError("an extra choice needs a stored alias and a shown text")


@dataclass(frozen=True)
class Guidelines:
    """The guidelines to show (``html`` is "" when there are none or they were refused) and why not."""

    html: str
    refused: str | None = None


def _header_text(elem: ET.Element) -> str | None:
    """A header's static text, or None when it shows a data field (``$field``) or is empty."""
    text = (elem.get("value") or elem.text or "").strip()
    if not text or "$" in text or VERDICT_TALK.search(text):
        return None
    return text


def _is_title(text: str) -> bool:
    """A short label ("Premise"), not a question or an instruction sentence."""
    return len(text) <= 40 and not text.rstrip().endswith(("?", ".", "!", ":"))


def field_title(field: str) -> str:
    """``"generated_text"`` -> ``"Generated text"``: the neutral title of an input without a header."""
    words = re.sub(r"[_\-.]+", " ", field).strip()
    return (words[:1].upper() + words[1:]) if words else field


def input_titles(root: ET.Element, fields: Iterable[str]) -> tuple[dict[str, list[str]], list[str]]:
    """The static headers before each input field (in document order) and those after the last input.

    Returns ``(titles by field, trailing headers)``; an input whose nearest header is no title of its own
    (none, or a question/instruction sentence) also gets its field name as title.
    """
    wanted = set(fields)
    titles: dict[str, list[str]] = {}
    pending: list[str] = []
    inputs = {o.name: o.field for o in find_inputs(root)}
    for elem in root.iter():
        if elem.tag == "Header":
            text = _header_text(elem)
            if text:
                pending.append(text)
        elif elem.get("name") in inputs and elem.get("value", "").startswith("$"):
            field = inputs[elem.get("name", "")]
            if field in wanted and field not in titles:
                titled = bool(pending) and _is_title(pending[-1])
                titles[field] = pending if titled else pending + [field_title(field)]
            pending = []
    return titles, pending


def guideline_text(guidelines_html: str) -> str:
    """Plain text of HTML guidelines (tags dropped, entities decoded, whitespace collapsed)."""
    text = re.sub(r"<(br|/p|/li|/div|/h\d)\b[^>]*>", "\n", guidelines_html or "", flags=re.IGNORECASE)
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def defined_meanings(guidelines_html: str, labels: Sequence[str]) -> dict[str, str]:
    """Definitions the guidelines give for each label, from lines like ``1: supported`` / ``0 = ...``."""
    found: dict[str, str] = {}
    for line in guideline_text(guidelines_html).splitlines():
        for label in labels:
            match = re.match(rf"^\s*[\"'“]?{re.escape(label)}[\"'”]?\s*(?::|=|—|–|-|\bmeans\b)\s*(.+)$", line)
            if match and label not in found:
                found[label] = match.group(1).strip().rstrip(".;")
    return found


def choice_meanings(root: ET.Element, *, control: str | None, guidelines_html: str = "") -> dict[str, str]:
    """Stored label -> its meaning: the choice's ``hint``, else its value when an alias is stored, else
    the guidelines' definition. Labels with no meaning anywhere are left out."""
    choices = find_choice_control(root, control=control)
    elems = {c.get("alias") or c.get("value"): c for c in root.iter("Choice")}
    from_guidelines = defined_meanings(guidelines_html, choices.labels)
    meanings: dict[str, str] = {}
    for label, shown in zip(choices.labels, choices.shown):
        hint = (elems[label].get("hint") or "").strip()
        if hint and not VERDICT_TALK.search(hint):
            meanings[label] = hint
        elif shown != label:
            meanings[label] = shown
        elif label in from_guidelines:
            meanings[label] = from_guidelines[label]
    return meanings


def check_guidelines(
    guidelines_html: str, *, items: Mapping[str, Mapping[str, object]]
) -> Guidelines:
    """Show the guidelines only when they name no item under review and quote no item's text.

    ``items`` maps source task id -> the inputs under review. A guideline that mentions one of those
    tasks (``task 12``, ``#12``, ``/tasks/12``) or copies an item's text (a sentence of at least
    ``QUOTE_MIN_CHARS`` characters) could point an expert at that item's label, so it is refused whole:
    half a guideline with a hole in it is worse than none, and the lead can fix and re-push.
    """
    text = guideline_text(guidelines_html)
    if not text.strip():
        return Guidelines("")
    talk = VERDICT_TALK.search(text)
    if talk:
        return Guidelines("", f"the guidelines talk about a verdict ({talk.group(0)!r}): experts must judge unprimed")
    for match in TASK_REFERENCE.finditer(f"{text}\n{guidelines_html}"):  # links too, not only visible text
        if match.group(1) in items:
            return Guidelines("", f"the guidelines refer to a task under review ({match.group(0).strip()!r})")
    folded = " ".join(text.lower().split())
    for task_id, inputs in items.items():
        for value in inputs.values():
            for piece in _quotable(str(value)):
                if piece in folded:
                    return Guidelines("", f"the guidelines quote the text of an item under review (task {task_id})")
    return Guidelines(guidelines_html)


def _quotable(value: str) -> list[str]:
    """The whole input and each of its sentences, lower-cased, when long enough to count as a quote."""
    folded = " ".join(value.lower().split())
    pieces = [folded] + [s.strip() for s in re.split(r"(?<=[.!?])\s+", folded)]
    return [p for p in dict.fromkeys(pieces) if len(p) >= QUOTE_MIN_CHARS]


# An image input is shown zoomable; its ``value`` is the review copy's field (:mod:`backend.review.images`).
IMAGE_VIEW = {"zoom": "true", "zoomControl": "true"}


def _shown_attrs(obj) -> dict[str, str]:
    """The attributes an input keeps in the review view (an ``<Image>``: its name, field and zoom only)."""
    attrs = dict(obj.attrs)
    if obj.tag == "Image":
        return {"name": attrs["name"], "value": attrs["value"], **IMAGE_VIEW}
    return attrs


def append_choices(view: ET.Element, choices: ChoiceControl, *, to_name: str, meanings: Mapping[str, str],
                   required: bool = True, extra: Sequence[ExtraChoice] = ()) -> ET.Element:
    """The expert's ``<Choices>``: each choice shows its meaning and stores the bare label, none selected;
    then the ``extra`` choices (single-choice only: ValueError on a multi-select control or an alias that is
    one of the project's labels).

    Multi-label keeps the project's multi-select control; "no label applies" is an answer there, so it is
    never required (nor is a control shown only under a condition: hidden, it could not be answered).
    """
    if choices.multiple:
        mode = {"choice": "multiple"}
    else:
        mode = {"choice": "single-radio", **({"required": "true"} if required else {})}
    ctrl = ET.SubElement(view, "Choices", {"name": choices.name, "toName": to_name, **mode})
    for label, shown in zip(choices.labels, choices.shown):
        attrs = {"value": shown, "alias": label}
        if label in meanings and meanings[label] != shown:
            attrs["value"] = f"{shown}{MEANING_SEP}{meanings[label]}"
            attrs["hint"] = meanings[label]
        ET.SubElement(ctrl, "Choice", attrs)
    if extra and choices.multiple:
        raise ValueError("an extra choice needs a single-choice control")
    for choice in extra:
        if choice.alias in choices.labels:
            raise ValueError(f"the project has a label {choice.alias!r}, reserved for the review's own choice")
        ET.SubElement(ctrl, "Choice", {"value": choice.shown, "alias": choice.alias,
                                       **({"hint": choice.hint} if choice.hint else {})})
    return ctrl


def shown_inputs(root: ET.Element, exclude_fields: Sequence[str]) -> list:
    """The inputs an expert sees (every input but the excluded fields: an original label imported as data)."""
    inputs = [o for o in find_inputs(root) if o.field not in set(exclude_fields)]
    if not inputs:
        raise ValueError("the label config shows no input left to review")
    return inputs


def append_inputs(view: ET.Element, root: ET.Element, inputs: Sequence, *, titles_only: bool = False,
                  neutral: Mapping[str, str] | None = None, renamed: Mapping[str, str] | None = None) -> list[str]:
    """Each input under its static title; returns the static headers found after the last input.

    ``titles_only`` keeps only short titles ("Answer 1"), never an instruction sentence of the source;
    ``neutral`` (input name -> title) replaces an input's titles outright (the two responses of a preference);
    ``renamed`` (source field -> review field) shows a field under another data key.
    """
    titles, trailing = input_titles(root, [o.field for o in inputs])
    for obj in inputs:
        shown = titles.get(obj.field, [field_title(obj.field)])
        if titles_only:
            shown = [t for t in shown if _is_title(t)] or [field_title(obj.field)]
        if neutral and obj.name in neutral:
            shown = [neutral[obj.name]]
        for title in shown:
            ET.SubElement(view, "Header", {"value": title, "size": "5"})
        attrs = _shown_attrs(obj)
        if renamed and obj.field in renamed:
            attrs["value"] = f"${renamed[obj.field]}"
        ET.SubElement(view, obj.tag, attrs)
    return trailing


def expert_label_config(
    source_xml: str | ET.Element,
    *,
    control: str | None,
    exclude_fields: Sequence[str],
    guidelines_html: str = "",
    answer_fields: Sequence[str] = (),
    answers_title: str = "Round 1 answers",
    choices_title: str | None = None,
    extra_choices: Sequence[ExtraChoice] = (),
) -> str:
    """The review config: each input under its static title, then the choices with their meanings.

    ``answer_fields`` adds text blocks under ``answers_title`` before the choices (round 2: the
    experts' round-1 answers); ``choices_title`` replaces the headers found after the last input;
    ``extra_choices`` follow the project's choices (:class:`ExtraChoice`).
    Extra controls, dynamic headers and ``selected`` choices of the source are dropped. ``source_xml`` may be
    the tree already parsed (:func:`backend.controls.parse.config_root`).
    """
    root = config_root(source_xml)
    choices = find_choice_control(root, control=control)
    inputs = shown_inputs(root, exclude_fields)
    meanings = choice_meanings(root, control=control, guidelines_html=guidelines_html)
    view = ET.Element("View")
    trailing = append_inputs(view, root, inputs)
    if answer_fields:
        ET.SubElement(view, "Header", {"value": answers_title, "size": "5"})
    for field in answer_fields:
        ET.SubElement(view, "Text", {"name": field, "value": f"${field}"})
    for title in [choices_title] if choices_title else (trailing or [CHOICES_TITLE]):
        ET.SubElement(view, "Header", {"value": title, "size": "5"})
    to_name = choices.to_name if choices.to_name in {o.name for o in inputs} else inputs[-1].name
    append_choices(view, choices, to_name=to_name, meanings=meanings, extra=extra_choices)
    return ET.tostring(view, encoding="unicode").replace(" />", "/>")
