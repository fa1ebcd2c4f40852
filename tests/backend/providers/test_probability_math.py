"""Probability extraction rules shared by the API providers: logprob positions, samples, errors."""

from __future__ import annotations

import email.utils
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backend.providers.base import NoClassTokenError, ProviderError
from backend.providers.http_errors import error_for_status, parse_retry_after, redact
from backend.providers.logprobs import TokenPosition, distribution_from_positions
from backend.providers.sampling import distribution_from_samples, first_label


def test_first_class_token_wins_even_if_a_later_one_is_likelier() -> None:
    positions = [
        TokenPosition("0", math.log(0.6), (("0", math.log(0.6)), ("1", math.log(0.3)))),
        TokenPosition("1", math.log(0.99), (("1", math.log(0.99)),)),
    ]
    dist = distribution_from_positions(positions, ["0", "1"], text="01")
    assert dist.probs == {"0": pytest.approx(2 / 3), "1": pytest.approx(1 / 3)}
    assert dist.raw_mass == pytest.approx(0.9)


def test_a_class_token_in_the_third_position_does_not_count() -> None:
    positions = [TokenPosition("\n", -0.1), TokenPosition(" ", -0.1), TokenPosition("1", -0.1, (("1", -0.1),))]
    with pytest.raises(NoClassTokenError):
        distribution_from_positions(positions, ["0", "1"], text="\n 1")


def test_chosen_token_missing_from_its_top_list_still_counts() -> None:
    pos = TokenPosition(" 1", math.log(0.5), (("0", math.log(0.25)), ("Yes", math.log(0.2))))
    dist = distribution_from_positions([pos], ["0", "1"], text=" 1")
    assert dist.probs == {"0": pytest.approx(1 / 3), "1": pytest.approx(2 / 3)}


def test_no_logprob_at_all_is_a_no_logprobs_error() -> None:
    with pytest.raises(ProviderError) as info:
        distribution_from_positions([TokenPosition("1", None)], ["0", "1"], text="1")
    assert info.value.reason == "no_logprobs"


@given(
    logprobs=st.lists(st.floats(min_value=-30, max_value=0), min_size=1, max_size=6),
    labels=st.sampled_from([["0", "1"], ["1", "2", "3", "4", "5"], ["0", "1", "2", "3"]]),
)
def test_probs_always_form_a_distribution_over_the_labels(logprobs, labels) -> None:
    top = tuple((labels[i % len(labels)], lp) for i, lp in enumerate(logprobs))
    dist = distribution_from_positions([TokenPosition(labels[0], logprobs[0], top)], labels, text=labels[0])
    assert list(dist.probs) == labels
    assert sum(dist.probs.values()) == pytest.approx(1.0)
    assert min(dist.probs.values()) >= 0.0 and 0.0 < dist.raw_mass <= 1.0


def test_sample_distribution_and_label_reading() -> None:
    assert first_label("\n 3.", ["1", "2", "3"]) == "3"
    assert first_label("The 2", ["1", "2"]) == "2"
    assert first_label("12", ["1", "2"]) is None  # "12" is not the label "1"
    dist = distribution_from_samples(["1", "2", "2", "none", "2."], ["1", "2", "3"])
    assert dist.probs == {"1": 0.25, "2": 0.75, "3": 0.0}
    assert dist.raw_mass == pytest.approx(0.8) and dist.method == "sampling"
    with pytest.raises(NoClassTokenError):
        distribution_from_samples(["no", "nope"], ["0", "1"])


def test_retry_after_headers() -> None:
    assert parse_retry_after({"Retry-After-Ms": "250", "Retry-After": "9"}) == pytest.approx(0.25)
    assert parse_retry_after({"retry-after": "7"}) == 7.0
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now) == pytest.approx(30.0)
    assert parse_retry_after({"retry-after": email.utils.formatdate(now - 30, usegmt=True)}, now=now) == 0.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None


@pytest.mark.parametrize(
    ("status", "reason", "retryable"),
    [(429, "rate_limited", True), (408, "timeout", True), (500, "server_error", True), (503, "server_error", True),
     (401, "auth", False), (403, "auth", False), (400, "bad_request", False), (404, "bad_request", False)],
)
def test_status_mapping(status, reason, retryable) -> None:
    err = error_for_status(status, "x", retry_after=1.0)
    assert (err.reason, err.retryable) == (reason, retryable)


def test_redaction_of_known_and_key_shaped_secrets() -> None:
    text = "key sk-proj-abc123XYZ789 and AIzaSyA1234567890abcdefghij and Bearer eyJhbGciOiJIUzI1NiJ9 and mysecret"
    out = redact(text, ["mysecret"])
    for secret in ("sk-proj-abc123XYZ789", "AIzaSyA1234567890abcdefghij", "eyJhbGciOiJIUzI1NiJ9", "mysecret"):
        assert secret not in out
    assert out.count("***") == 4


def test_an_option_letter_is_read_only_where_it_stands_as_an_answer() -> None:
    letters = ["A", "B", "C", "D", "E", "F", "G", "H", "I"]
    assert first_label("A", letters) == "A"
    assert first_label("A.", letters) == "A" and first_label("(B)", letters) == "B"
    assert first_label("Answer: C\nbecause", letters) == "C"
    assert first_label("B Negative", letters) == "B"  # the letter, then its label name
    assert first_label("A good review, so positive", letters) is None  # the article, not option A
    assert first_label("I think it is B", letters) == "B"  # the pronoun is skipped, the answer found
    assert first_label("A sentence that says D.", letters) == "D"
    assert first_label("a", letters) is None  # lower case is never an option letter
    dist = distribution_from_samples(["A good one", "B", "B.", "A"], ["A", "B"])
    assert dist.probs == {"A": 1 / 3, "B": 2 / 3} and dist.raw_mass == pytest.approx(0.75)
