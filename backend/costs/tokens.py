"""Token counts before a run: the model's own tokenizer where one is installed, else a stated rule.

The in-process GGUF's tokenizer is read with a vocab-only load (no weights) and fed the same chat
segments the provider evaluates, so the estimate equals the ``prompt_tokens`` the call reports. Cloud
models' tokenizers are not installed here; their prompts are estimated at 4 characters per token
(OpenAI's rule of thumb for English text), and the table says so.
"""

from __future__ import annotations

import atexit
import math
from typing import Any, Callable

from backend.providers.chatml import chatml_segments
from backend.providers.local_gguf import _quiet_stderr

CHARS_PER_TOKEN = 4.0
APPROXIMATION = "approx. 4 chars/token"

_VOCABS: dict[str, Any] = {}


@atexit.register
def _close_vocabs() -> None:
    """Free the vocab-only models before interpreter shutdown (llama.cpp's finalizer fails after it)."""
    while _VOCABS:
        _, vocab = _VOCABS.popitem()
        try:
            vocab.close()
        except Exception:  # noqa: BLE001 - nothing left to do at exit
            pass


def _gguf_counter(provider: Any) -> Callable[[str], int]:
    # heavy: llama_cpp and its native library (~70 ms), not loaded by label-audit --help
    from llama_cpp import Llama

    key = str(provider.path)
    if key not in _VOCABS:
        with _quiet_stderr():
            _VOCABS[key] = Llama(model_path=key, vocab_only=True, verbose=False)
    vocab = _VOCABS[key]
    system = provider.system

    def count(prompt: str) -> int:
        segments = chatml_segments(prompt, prompt_format=provider.prompt_format, system=system)
        return sum(len(vocab.tokenize(seg.text.encode("utf-8"), add_bos=(i == 0), special=seg.special))
                   for i, seg in enumerate(segments))

    return count


def token_counter(provider: Any) -> tuple[Callable[[str], int], str]:
    """``(count, how)`` for a provider's prompts: its real tokenizer when available, else the approximation."""
    if getattr(provider, "name", "") == "local" and hasattr(provider, "path") and hasattr(provider, "prompt_format"):
        try:
            return _gguf_counter(provider), "the model's tokenizer (GGUF vocab)"
        except (ImportError, OSError, ValueError, RuntimeError):
            pass
    return (lambda prompt: max(1, math.ceil(len(prompt) / CHARS_PER_TOKEN))), APPROXIMATION


def output_tokens_per_call(provider: Any) -> int:
    """Tokens a call generates at most: the local model reads one position's logits and generates none."""
    if getattr(provider, "inner", None) is not None:  # sampling: n answers of max_tokens each
        return int(getattr(provider, "n", 1)) * int(getattr(provider, "max_tokens", 2) or 2)
    if getattr(provider, "name", "") == "local":
        return 0
    limit = getattr(provider, "max_tokens", None) or getattr(provider, "max_output_tokens", None) or 2
    return int(limit)
