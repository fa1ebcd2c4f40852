"""The embedded model behind a REAL llama_cpp.server scores the bundled factual-consistency sample.

Over the chat endpoint SmolLM2 usually starts its answer with a word ("The"), so reading only a
generated class token scored 0 of the sample's valid items; the class tokens are still in that
position's top logprobs, and the raw-completions mode ends the prompt with the answer cue as the
in-process provider does. Both must give zero ``no_class_token`` errors. Shapes only, never verdicts.
"""

from __future__ import annotations

from collections import Counter
from importlib import resources

import pytest

from backend.task.dataset import read_items
from backend.scoring.engine import Engine, EngineConfig
from backend.scoring.members import MemberSpec, build_members
from backend.task.spec import load_spec
from tests.support.llm import LlamaServer

pytestmark = pytest.mark.llm
#: One wording keeps the run affordable; every item of the sample is scored through it.
PROMPT = "fc-premise-hypothesis"


@pytest.mark.timeout(1500)  # 24 calls per endpoint on a shared 2-core machine
@pytest.mark.parametrize("endpoint", ["chat", "completions"])
def test_bundled_sample_scores_with_no_class_token_error(llama_server: LlamaServer, endpoint: str) -> None:
    spec = load_spec("factual-consistency")
    entry = MemberSpec(provider="openai", model=llama_server.model, base_url=llama_server.base_url,
                       prompts=(PROMPT,), options={"endpoint": endpoint})
    members = build_members([entry], spec)
    with resources.as_file(resources.files("backend").joinpath("data", "sample_factual_consistency.jsonl")) as path:
        entries = list(read_items(path, spec))
    engine = Engine(spec, members, cache=None, config=EngineConfig(concurrency=1, timeout=300))
    results = list(engine.score(entries))
    valid = [r for r in results if not (r.error or "").startswith(("missing", "bad_", "not_an", "invalid"))
             and r.members]
    methods = Counter(m.method for r in valid for m in r.members if m.error is None)
    errors = Counter(m.error for r in valid for m in r.members if m.error)
    share = methods["top_logprobs_fallback"] / max(1, sum(methods.values()))
    print(f"\n{endpoint}: {len(valid)} valid items, methods {dict(methods)}, errors {dict(errors)}, "
          f"top-logprob fallback share {share:.2f}")
    assert valid and errors["no_class_token"] == 0, errors
    assert all(r.prediction in spec.labels for r in valid)
    if endpoint == "completions":
        assert methods["top_logprobs_fallback"] == 0 or methods["top_logprobs"] > 0
