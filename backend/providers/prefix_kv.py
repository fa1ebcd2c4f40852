"""Prompt evaluation that reuses the KV state of a shared token prefix, with answers independent of call order.

Why: the prompts of one audit share long token prefixes (a template's instructions and the project's
guidelines across items, an item's texts across option orders), and on a CPU nearly all of a call is
spent evaluating the prompt. llama.cpp keeps the keys and values (KV) of evaluated tokens, so only the
rest of a prompt needs evaluating. llama-cpp-python's own reuse (``Llama.generate``) gets two things
wrong for a judge: the batch split starts where the shared prefix ends, so a token is evaluated in a
batch of another shape depending on what came before and the class probabilities move in the third
decimal (an answer would depend on call order); and ``Llama.save_state`` copies the whole context,
logits included (``n_batch`` rows of the vocabulary: hundreds of MB for a 150k vocabulary).

How: positions are always evaluated in the same fixed blocks ``[kB, (k+1)B)`` (``B`` = the context's
``n_batch`` = ``n_ubatch``), and only whole blocks are reused. Block ``k`` of a prompt is then computed
from its own tokens, at the same positions, in the same cells ``0..(k+1)B-1`` of an otherwise empty
cache, over the KV that blocks ``0..k-1`` left: by induction a reused prefix holds exactly the bytes a
fresh evaluation computes, and the last block's logits are bit-identical whatever was evaluated before
(tested on the real model). Prefixes come from the context's live sequence or from saved sequence
states (``llama_state_seq_get_data``: the KV cells of sequence 0 only, no logits), kept
least-recently-used within a byte budget; a state is saved only when the live sequence is about to be
cut, and a saved state whose tokens begin a newer one's is dropped as redundant.

The caller serialises every use of the context (the provider's per-model lock).
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

#: Positions per evaluation block (``n_batch``): measured in ``bench/bench_local_speed.py``.
DEFAULT_BLOCK = 32
#: Saved prefix states kept per loaded model. A Qwen2.5-1.5B token costs 28 KiB of KV (f16), so this
#: holds about 36 prompts of 256 tokens: every template x option order of a few items in flight.
DEFAULT_SAVED_BYTES = 256 * 2**20


@dataclass
class PrefixStats:
    """Token counts of the calls so far: ``evaluated / prompt`` is the share of prompt tokens evaluated."""

    calls: int = 0
    prompt_tokens: int = 0
    evaluated_tokens: int = 0
    restored: int = 0  # calls that started from a saved state
    saved: int = 0  # states saved

    @property
    def evaluated_share(self) -> float:
        """Evaluated prompt tokens over all prompt tokens (1.0 without reuse)."""
        return self.evaluated_tokens / self.prompt_tokens if self.prompt_tokens else 1.0


class _Saved:
    """One saved sequence state: its tokens (a whole number of blocks) and llama.cpp's bytes for them."""

    __slots__ = ("tokens", "data", "size")

    def __init__(self, tokens: np.ndarray, data: Any, size: int) -> None:
        self.tokens = tokens
        self.data = data
        self.size = size


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """Length of the longest common prefix of two token arrays."""
    n = min(len(a), len(b))
    diff = np.flatnonzero(a[:n] != b[:n])
    return int(diff[0]) if diff.size else n


class PrefixEvaluator:
    """Evaluates prompts on one llama context in fixed blocks, reusing whole blocks of a shared prefix.

    Parameters
    ----------
    llm : llama_cpp.Llama
        A context built with ``n_batch == n_ubatch`` (the block) and ``logits_all=False``.
    saved_bytes : int
        Budget for saved prefix states; 0 keeps only the live sequence.
    """

    def __init__(self, llm: Any, *, saved_bytes: int = DEFAULT_SAVED_BYTES) -> None:
        if saved_bytes < 0:
            raise ValueError("saved_bytes must be >= 0")
        if llm.n_batch != llm.context_params.n_ubatch:
            raise ValueError(f"n_batch ({llm.n_batch}) must equal n_ubatch ({llm.context_params.n_ubatch}): "
                             "one llama.cpp batch per block")
        self.llm = llm
        self.block = int(llm.n_batch)
        self.saved_bytes = saved_bytes
        self.stats = PrefixStats()
        self._live = np.zeros(0, dtype=np.intc)  # whole blocks whose KV sits in cells 0.. of the context
        self._saved: OrderedDict[int, _Saved] = OrderedDict()  # least recently used first
        self._next_id = 0

    @property
    def saved_total(self) -> int:
        """Bytes held by saved states."""
        return sum(s.size for s in self._saved.values())

    def last_logits(self, tokens: Sequence[int], *, reuse: bool = True) -> np.ndarray:
        """The logits after ``tokens`` (float64), evaluating only what no kept prefix covers.

        With ``reuse=False`` the prompt is evaluated from an empty cache in the same blocks: the result
        is the same to the bit, only slower.
        """
        toks = np.asarray(tokens, dtype=np.intc)
        start = self.prepare(toks, reuse=reuse)
        self.llm.eval(toks[start:].tolist())
        self.evaluated(toks)
        ptr = self.llm._ctx.get_logits_ith(-1)
        return np.ctypeslib.as_array(ptr, shape=(self.llm.n_vocab(),)).astype(np.float64)

    def prepare(self, tokens: Sequence[int], *, reuse: bool = True) -> int:
        """Leave the context holding the longest kept whole-block prefix of ``tokens`` (at most all but
        the last token); returns its length. ``llm.eval`` of the rest then continues in the same blocks."""
        toks = np.asarray(tokens, dtype=np.intc)
        if len(toks) == 0:
            raise ValueError("no tokens to evaluate")
        limit = len(toks) - 1  # the last token is always evaluated: its logits are the answer
        self._check_live()
        live = common_prefix(self._live, toks) if reuse else 0
        live = min(live, limit) // self.block * self.block
        if reuse and live < len(self._live):
            self._save_live()
        best_id, best = None, live
        if reuse:
            for key, saved in self._saved.items():
                n = min(common_prefix(saved.tokens, toks), limit) // self.block * self.block
                if n > best:
                    best_id, best = key, n
        if best_id is not None and not self._restore(best_id):
            best = 0
        memory_cut = self.llm._ctx.kv_cache_seq_rm(0, best, -1)
        if not memory_cut:  # a memory that cannot drop a tail (recurrent models): start afresh
            self.llm._ctx.kv_cache_clear()
            best = 0
        self._live = toks[:best].copy()
        self.llm.input_ids[:best] = toks[:best]
        self.llm.n_tokens = best
        self.stats.calls += 1
        self.stats.prompt_tokens += len(toks)
        self.stats.evaluated_tokens += len(toks) - best
        return best

    def evaluated(self, tokens: Sequence[int]) -> None:
        """Record that ``llm.eval`` continued from :meth:`prepare` through ``tokens`` (in the same blocks):
        their whole blocks are now live. Tokens evaluated after them (generated text, one at a time) are not."""
        toks = np.asarray(tokens, dtype=np.intc)
        self._live = toks[: len(toks) // self.block * self.block].copy()

    def _check_live(self) -> None:
        """Forget the live sequence if the context was used behind our back (its tokens differ)."""
        n = len(self._live)
        if n and (self.llm.n_tokens < n or not np.array_equal(self.llm.input_ids[:n], self._live)):
            self._live = self._live[:0]

    def _save_live(self) -> None:
        """Save the live whole-block sequence before it is cut, unless a saved state already begins with it."""
        live = self._live
        if self.saved_bytes == 0 or len(live) == 0:
            return
        for saved in self._saved.values():
            if len(saved.tokens) >= len(live) and common_prefix(saved.tokens, live) == len(live):
                return
        llm = self.llm
        llm._ctx.kv_cache_seq_rm(0, len(live), -1)  # drop the partial last block: it is never reused
        ctx = llm._ctx.ctx
        # heavy: llama_cpp and its native library (~70 ms); label-audit --help loads this module, not the model
        import llama_cpp

        size = int(llama_cpp.llama_state_seq_get_size(ctx, 0))
        data = (ctypes.c_uint8 * size)()
        written = int(llama_cpp.llama_state_seq_get_data(ctx, data, size, 0))
        if written <= 0 or written > size:
            return
        for key in [k for k, s in self._saved.items() if common_prefix(s.tokens, live) == len(s.tokens)]:
            del self._saved[key]  # a prefix of this one: redundant
        self._saved[self._next_id] = _Saved(live.copy(), data, written)
        self._next_id += 1
        self.stats.saved += 1
        while self._saved and self.saved_total > self.saved_bytes:
            self._saved.popitem(last=False)

    def _restore(self, key: int) -> bool:
        """Load a saved state into an emptied context (cells ``0..n-1``, as a fresh evaluation fills them);
        False (the state dropped, the context empty) when llama.cpp refuses it."""
        # heavy: llama_cpp and its native library (~70 ms); label-audit --help loads this module, not the model
        import llama_cpp

        saved = self._saved[key]
        self._saved.move_to_end(key)
        self.llm._ctx.kv_cache_clear()
        if int(llama_cpp.llama_state_seq_set_data(self.llm._ctx.ctx, saved.data, saved.size, 0)) == 0:
            del self._saved[key]
            self.llm._ctx.kv_cache_clear()
            self._live = self._live[:0]
            return False
        self._live = saved.tokens
        self.stats.restored += 1
        return True
