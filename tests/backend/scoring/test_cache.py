"""The call cache: keys change with every ingredient, answers round-trip, SQLite and PostgreSQL."""

from __future__ import annotations

import threading

import pytest

from backend.scoring.cache import CallCache, call_key
from backend.providers.base import ClassDistribution

BASE = dict(
    provider="openai", model="m", template_id="fc-a", template_version=1, prompt="P\nAnswer: ",
    labels=("0", "1"), params={"temperature": 0, "top_logprobs": 20},
)
DIST = ClassDistribution(probs={"0": 0.25, "1": 0.75}, raw_mass=0.6, method="top_logprobs", text="1",
                         usage={"prompt_tokens": 12})


def test_same_inputs_same_key_and_param_order_does_not_matter():
    assert call_key(**BASE) == call_key(**{**BASE, "params": {"top_logprobs": 20, "temperature": 0}})
    assert len(call_key(**BASE)) == 64


@pytest.mark.parametrize(
    "change",
    [
        {"provider": "gemini"},
        {"model": "m2"},
        {"template_id": "fc-b"},
        {"template_version": 2},
        {"prompt": "P\nAnswer:  "},
        {"labels": ("0", "1", "2")},
        {"params": {"temperature": 0, "top_logprobs": 5}},
        {"params": {"temperature": 0, "top_logprobs": 20, "base_url": "http://127.0.0.1:1/v1"}},
    ],
)
def test_any_ingredient_changes_the_key(change):
    assert call_key(**{**BASE, **change}) != call_key(**BASE)


def _roundtrip(cache: CallCache) -> None:
    key = call_key(**BASE)
    assert cache.get(key) is None and cache.get_many([key]) == {}
    cache.put(key, DIST, provider="openai", model="m", template_id="fc-a", template_version=1, latency_s=0.5)
    assert cache.get(key) == DIST
    assert cache.get_many([key, "missing"]) == {key: (DIST, 0.5)}
    # A second put of the same key keeps the first answer and does not fail.
    other = ClassDistribution(probs={"0": 1.0, "1": 0.0}, raw_mass=1.0, method="logits")
    cache.put(key, other, provider="openai", model="m", template_id="fc-a", template_version=1)
    assert cache.get(key) == DIST and cache.count() == 1


def _concurrent_puts(cache: CallCache) -> None:
    keys = [call_key(**{**BASE, "prompt": f"p{i}"}) for i in range(40)]
    before = cache.count()

    def put(chunk):
        for key in chunk:
            cache.put(key, DIST, provider="openai", model="m", template_id="fc-a", template_version=1)

    threads = [threading.Thread(target=put, args=(keys[i::4] + keys[:5],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.count() == before + 40 and set(cache.get_many(keys)) == set(keys)


def test_sqlite_cache_persists_across_instances(tmp_path):
    url = f"sqlite:///{tmp_path / 'c.sqlite'}"
    cache = CallCache(url)
    _roundtrip(cache)
    _concurrent_puts(cache)
    cache.close()
    again = CallCache(url)
    assert again.get(call_key(**BASE)) == DIST and again.count() == 41
    again.close()


@pytest.mark.postgres
def test_postgres_cache(postgres_url):
    cache = CallCache(postgres_url)
    _roundtrip(cache)
    _concurrent_puts(cache)
    cache.close()
    assert CallCache(postgres_url).count() == 41
