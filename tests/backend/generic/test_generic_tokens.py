"""The option letters are single tokens for the embedded model; two-digit numbers are not (why letters)."""

from __future__ import annotations

import pytest

from backend.task.generic import OPTION_LETTERS

llama_cpp = pytest.importorskip("llama_cpp")


@pytest.fixture(scope="module")
def vocab():
    from backend.providers.local_gguf import resolve_model_path

    return llama_cpp.Llama(model_path=str(resolve_model_path("smollm2")), vocab_only=True, verbose=False)


def test_every_option_letter_is_one_token_bare_and_after_a_space(vocab):
    for letter in OPTION_LETTERS:
        for variant in (letter, " " + letter):
            assert len(vocab.tokenize(variant.encode(), add_bos=False, special=False)) == 1, variant


def test_two_digit_numbers_are_two_tokens(vocab):
    assert len(vocab.tokenize(b"10", add_bos=False, special=False)) == 2
    assert len(vocab.tokenize(b"20", add_bos=False, special=False)) == 2
