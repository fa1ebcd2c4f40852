"""The pre-flight check on bare-code labels (:mod:`backend.families.choices_presentation`), both sides of the rule.

Specs are derived from real label configs by :func:`spec_from_label_config`, the same derivation ``score`` and
the backend apply, so the check sees the question, hints and guidelines a judge would get.
"""

from __future__ import annotations

import pytest

from backend.families.choices_presentation import BareCodes, bare_codes, check_codes, is_code
from backend.labelstudio.projectspec import spec_from_label_config
from backend.task.generic import generic_spec

NLI = ('<View><Text name="premise" value="$premise"/><Text name="hypothesis" value="$hypothesis"/>{header}'
       '<Choices name="label" toName="hypothesis">{choices}</Choices></View>')
CODES = '<Choice value="e"/><Choice value="n"/><Choice value="c"/>'
HEADER = '<Header value="Does the premise entail the hypothesis?"/>'


def _choices(*values: str, hint: str = "") -> str:
    return "".join(f'<Choice value="{v}"' + (f' hint="{hint}"' if hint else "") + "/>" for v in values)


def _warnings(choices: str, *, header: str = "", guidelines: str | None = None) -> tuple[BareCodes, ...]:
    return bare_codes(spec_from_label_config(NLI.format(header=header, choices=choices), guidelines=guidelines))


@pytest.mark.parametrize("label", ["e", "n", "c", "Y", "NG", "C1", "1", "5", "100", "-1", "DESC", "ENTY", "HUM",
                                   "LOC", " e "])
def test_short_labels_numbers_and_capital_abbreviations_are_codes(label):
    assert is_code(label)


@pytest.mark.parametrize("label", ["Yes", "No", "no", "OK", "ok", "TRUE", "NONE", "SPAM", "Entailment", "Positive",
                                   "Desc", "Spam", "Neutral", "ABBREV", "toxic"])
def test_words_and_the_short_answer_words_are_not_codes(label):
    assert not is_code(label)


def test_bare_codes_without_question_hints_or_guidelines_are_warned_with_the_control_and_the_fix():
    (warning,) = _warnings(CODES)
    assert warning.control == "label" and warning.codes == ("e", "n", "c")
    assert warning.message == (
        '<Choices name="label"> shows the judges only bare codes (e, n, c) with no question, hint or guidelines to '
        'read them by: add a <Header> with the question, readable values with the codes as alias, or hint="..." '
        "on each Choice.")
    assert "\n" not in warning.message and warning.to_dict()["codes"] == ["e", "n", "c"]


def test_letter_codes_with_a_question_or_guidelines_are_still_warned_with_the_measurement_and_the_alias_fix():
    (asked,) = _warnings(CODES, header=HEADER)
    (guided,) = _warnings(CODES, guidelines="e means the premise entails the hypothesis, n neutral, c contradiction")
    (both,) = _warnings(CODES, header=HEADER, guidelines="e: entails")
    assert asked.codes == guided.codes == ("e", "n", "c")
    assert asked.message.startswith('<Choices name="label"> shows the judges only codes (e, n, c); a question says')
    assert "; guidelines say what they mean" in guided.message and "a question and guidelines say" in both.message
    for warning in (asked, guided, both):
        assert "0.44-0.52 accuracy" in warning.message and "alias" in warning.message
        assert "no question, hint or guidelines" not in warning.message


def test_hints_silence_the_warning():
    assert _warnings(_choices("e", "n", "c", hint="see the guidelines")) == ()
    assert _warnings(_choices("e", "n", "c", hint="see the guidelines"), header=HEADER) == ()


def test_numbers_with_a_question_or_guidelines_read_as_a_scale_and_are_not_warned():
    assert _warnings(_choices("1", "2", "3"), header=HEADER) == ()
    assert _warnings(_choices("1", "2", "3"), guidelines="1 is poor, 3 is good") == ()


def test_two_codes_with_a_question_read_as_an_answer_and_are_not_warned():
    assert _warnings(_choices("Y", "N"), header='<Header value="Is the text polite?"/>') == ()
    assert [w.codes for w in _warnings(_choices("Y", "N", "U"), header=HEADER)] == [("Y", "N", "U")]
    assert [w.codes for w in _warnings(_choices("1", "2", "3"))] == [("1", "2", "3")]


def test_readable_values_with_the_codes_as_alias_are_not_warned():
    readable = ('<Choice value="Entailment" alias="e"/><Choice value="Neutral" alias="n"/>'
                '<Choice value="Contradiction" alias="c"/>')
    spec = spec_from_label_config(NLI.format(header="", choices=readable))
    assert spec.labels == ("e", "n", "c")  # what results store: the codes, still
    assert bare_codes(spec) == ()


def test_every_label_must_be_a_code_one_word_is_enough():
    assert _warnings(_choices("Entailment", "n", "c")) == ()
    assert _warnings(_choices("OK", "NG")) == ()  # OK is an answer word: NG reads as its opposite
    assert [w.codes for w in _warnings(_choices("Y", "N"))] == [("Y", "N")]


def test_capital_abbreviations_and_bare_numbers_are_warned():
    assert [w.codes for w in _warnings(_choices("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"))] == [
        ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")]
    assert [w.codes for w in _warnings(_choices("1", "2", "3"))] == [("1", "2", "3")]


def test_many_codes_are_listed_up_to_six_then_counted():
    (warning,) = _warnings(_choices(*"abcdefgh"))
    assert "(a, b, c, d, e, f and 2 more)" in warning.message and len(warning.codes) == 8


def test_each_choices_control_of_a_several_control_project_is_checked_on_its_own():
    config = ('<View><Text name="t" value="$text"/><Choices name="a" toName="t">' + _choices("Y", "N") +
              '</Choices><Header value="Is the text polite?"/><Choices name="b" toName="t">' + _choices("Y", "N") +
              "</Choices></View>")
    assert [w.control for w in bare_codes(spec_from_label_config(config))] == ["a"]


def test_a_builtin_spec_defines_its_labels_and_is_never_warned():
    config = ('<View><Text name="grounding" value="$grounding"/><Text name="generated_text" value="$generated_text"/>'
              '<Choices name="label" toName="generated_text"><Choice value="0"/><Choice value="1"/></Choices></View>')
    spec = spec_from_label_config(config)
    assert spec.prompt is None  # the factual-consistency prompts say what 0 and 1 mean
    assert bare_codes(spec) == ()


def test_a_files_code_labels_are_warned_with_the_fix_a_file_has():
    (warning,) = bare_codes(generic_spec(labels=["e", "n", "c"], fields=["text"], label_field="gold"))
    assert warning.control == "" and "field 'gold'" in warning.message and "--guidelines FILE" in warning.message
    (guided,) = bare_codes(generic_spec(labels=["e", "n", "c"], fields=["text"], guidelines="e: entails"))
    assert guided.message.startswith("the labels of field 'label' show the judges only codes (e, n, c); guidelines")
    assert "a --label-config with readable values" in guided.message
    assert bare_codes(generic_spec(labels=["entailment", "neutral"], fields=["text"])) == ()


def test_the_result_refuses_an_empty_warning():
    assert check_codes(control="x", shown=()) is None
    with pytest.raises(ValueError):
        BareCodes(control="x", codes=(), message="m")
    with pytest.raises(ValueError):
        BareCodes(control="x", codes=("e",), message=" ")
