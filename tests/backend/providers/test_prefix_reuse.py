"""Prefix reuse in the in-process GGUF provider, on the real SmolLM2-135M-Instruct.

Invariants only: the class probabilities of a prompt are the same (to 1e-6; in fact to the bit) whatever
was evaluated before it and with or without reuse; prompts sharing a prefix evaluate fewer tokens;
threads share one context safely.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from backend.providers.local_gguf import LocalGGUFProvider
from backend.providers.prefix_kv import PrefixEvaluator, common_prefix

pytestmark = pytest.mark.llm

GUIDE = (
    "You are checking a labelled data set of short claims about documents. Read the document, then the "
    "claim, and decide whether the document supports the claim. A claim is supported only when every fact "
    "it states can be read in the document; a claim that adds a detail the document does not give, or that "
    "contradicts it, is not supported. Ignore spelling and style. Numbers, dates and names must match."
)
PROMPT = "{guide}\n\nDocument: {doc}\nClaim: {claim}\n\nOptions:\n{options}\nReply with one letter.\nAnswer: "
ORDERS = ("A. supported\nB. not supported", "A. not supported\nB. supported")
ITEMS = [
    ("The bridge was closed on Monday for repairs.", "The bridge was open on Monday."),
    ("The team won three of its last four games.", "The team won three recent games."),
]
LABELS = ["A", "B"]


def prompts() -> list[str]:
    """Two items x two option orders: each prompt shares the guidelines with all, its item with one."""
    return [PROMPT.format(guide=GUIDE, doc=d, claim=c, options=o) for d, c in ITEMS for o in ORDERS]


@pytest.fixture(scope="module")
def reusing(smollm2_path: Path) -> LocalGGUFProvider:
    return LocalGGUFProvider(smollm2_path)


@pytest.fixture(scope="module")
def baseline(smollm2_path: Path) -> list:
    """Each prompt evaluated from an empty cache (no reuse), first thing in its own context."""
    fresh = LocalGGUFProvider(smollm2_path, prefix_reuse=False, n_ctx=1024)
    return [fresh.classify(p, LABELS, timeout=300) for p in prompts()]


def largest_difference(dists, expected) -> float:
    return max(max(abs(d.probs[k] - e.probs[k]) for k in LABELS) + abs(d.raw_mass - e.raw_mass)
               for d, e in zip(dists, expected))


def test_the_shared_prefix_is_whole_blocks_of_the_guidelines(reusing: LocalGGUFProvider) -> None:
    toks = [np.array(reusing._tokenize(p)) for p in prompts()]
    block = reusing._loaded.prefixes.block
    shared = min(common_prefix(toks[0], t) for t in toks[2:])
    assert shared >= 2 * block  # the test below really reuses blocks


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [3, 2, 1, 0], [0, 2, 1, 3, 0, 3, 3]], ids=["forward", "reversed", "mixed"])
def test_probabilities_do_not_depend_on_call_order_or_reuse(reusing: LocalGGUFProvider, baseline, order) -> None:
    stats = reusing._loaded.prefixes.stats
    before = (stats.prompt_tokens, stats.evaluated_tokens)
    got = [reusing.classify(prompts()[i], LABELS, timeout=300) for i in order]
    assert largest_difference(got, [baseline[i] for i in order]) <= 1e-6
    assert all(g.text == baseline[i].text for g, i in zip(got, order))
    prompt_tokens, evaluated = stats.prompt_tokens - before[0], stats.evaluated_tokens - before[1]
    assert evaluated < prompt_tokens  # reuse did happen (else this test could not fail)


def test_a_shared_prefix_is_evaluated_once(reusing: LocalGGUFProvider) -> None:
    first, second = prompts()[0], prompts()[1]  # the same item in both option orders
    stats = reusing._loaded.prefixes.stats
    reusing.classify(first, LABELS, timeout=300)
    before = stats.evaluated_tokens
    reusing.classify(second, LABELS, timeout=300)
    a, b = np.array(reusing._tokenize(first)), np.array(reusing._tokenize(second))
    shared = common_prefix(a, b)
    block = reusing._loaded.prefixes.block
    assert stats.evaluated_tokens - before <= len(b) - shared + block
    assert stats.evaluated_tokens - before < len(b) // 2


def test_an_interrupted_prefix_is_restored_from_its_saved_state(reusing: LocalGGUFProvider, baseline) -> None:
    ev = reusing._loaded.prefixes
    other = "Translate the following word into French and reply with one letter.\n" * 3 + "Answer: "
    reusing.classify(prompts()[0], LABELS, timeout=300)
    reusing.classify(other, LABELS, timeout=300)  # cuts the live sequence: item 0's prefix is saved
    restored, evaluated = ev.stats.restored, ev.stats.evaluated_tokens
    dist = reusing.classify(prompts()[1], LABELS, timeout=300)
    assert ev.stats.restored == restored + 1
    assert ev.stats.evaluated_tokens - evaluated < len(reusing._tokenize(prompts()[1])) // 2
    assert largest_difference([dist], [baseline[1]]) <= 1e-6


def test_saved_states_stay_within_their_budget(smollm2_path: Path) -> None:
    own = LocalGGUFProvider(smollm2_path, n_ctx=768)  # a context of its own
    ev = own._loaded.prefixes
    ev.saved_bytes = 1
    for p in prompts()[:3:2]:
        own.classify(p, LABELS, timeout=300)
    own.classify("Something else entirely.\nAnswer: ", LABELS, timeout=300)
    assert ev.saved_total <= 1 and not ev._saved
    ev.saved_bytes = 10**9
    for p in prompts():
        own.classify(p, LABELS, timeout=300)
    own.classify("Something else entirely.\nAnswer: ", LABELS, timeout=300)
    assert 0 < ev.saved_total <= 10**9 and ev.stats.saved >= 1


def test_threads_share_one_context_safely(reusing: LocalGGUFProvider, baseline) -> None:
    work = [i for _ in range(2) for i in range(len(prompts()))]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda i: reusing.classify(prompts()[i], LABELS, timeout=600), work))
    assert largest_difference(got, [baseline[i] for i in work]) <= 1e-6


def test_a_context_used_behind_the_evaluators_back_is_not_reused(reusing: LocalGGUFProvider, baseline) -> None:
    reusing.classify(prompts()[0], LABELS, timeout=300)
    llm = reusing._loaded.llm
    with reusing._loaded.lock:
        llm.reset()
        llm.eval(reusing._tokenize("An unrelated text evaluated directly on the context."))
    dist = reusing.classify(prompts()[1], LABELS, timeout=300)
    assert largest_difference([dist], [baseline[1]]) <= 1e-6


def test_sampling_does_not_depend_on_what_came_before(reusing: LocalGGUFProvider) -> None:
    prompt = prompts()[2]
    a = reusing.sample_texts(prompt, n=3, temperature=1.0, seed=5, max_tokens=2, timeout=300)
    reusing.classify(prompts()[3], LABELS, timeout=300)
    b = reusing.sample_texts(prompt, n=3, temperature=1.0, seed=5, max_tokens=2, timeout=300)
    assert a == b


def test_the_block_enters_the_cache_key_and_is_validated(smollm2_path: Path, reusing: LocalGGUFProvider) -> None:
    assert reusing.cache_params()["eval_block"] == reusing._loaded.prefixes.block
    assert LocalGGUFProvider(smollm2_path, prefix_reuse=False).cache_params() == reusing.cache_params()
    with pytest.raises(ValueError):
        PrefixEvaluator(reusing._loaded.llm, saved_bytes=-1)
