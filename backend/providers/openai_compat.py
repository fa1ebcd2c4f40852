"""Judges behind the OpenAI chat-completions protocol: OpenAI itself, vLLM, Ollama, llama.cpp server.

The official ``openai`` SDK is used as is (its serialization and error types); only ``base_url``
changes between servers. ``endpoint="completions"`` uses the raw ``/v1/completions`` endpoint that
vLLM and llama.cpp serve: the prompt is wrapped in the chat template here (``prompt_format``, as the
in-process provider does) and ends with the answer cue, so the next token is the answer. The client never retries (``max_retries=0``): the engine owns retries so
that it can count them, honour ``Retry-After`` and resume interrupted runs without double calls.

Images (``vision``, on by default for the chat endpoint) go as the user message's content parts: one
``image_url`` part per image holding its base64 data URL, then the prompt's text, so the prompt still ends
with the answer cue. A server that cannot take them (llama.cpp without a projector, vLLM with
``--language-model-only``, a text-only OpenAI model) says so in a 4xx or 5xx; that answer is the
non-retryable reason ``no_vision``, never a retry.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any, Mapping, Sequence

import openai

from backend.providers.image_part import ImagePart
from backend.providers.base import ClassDistribution, ProviderError
from backend.providers.chatml import PROMPT_FORMATS, chatml_segments
from backend.providers.http_errors import (
    connection_error,
    error_for_status,
    parse_retry_after,
    redact,
    status_message,
    timeout_error,
)
from backend.providers.logprobs import TokenPosition, check_api_options, check_labels, distribution_from_positions
from backend.providers.sampling import collect_samples
from backend.providers.registry import default_key_variables, register

#: Stand-in key for local servers that ignore authentication (the SDK insists on some key).
PLACEHOLDER_KEY = "no-key-needed"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
ENDPOINTS = ("chat", "completions")

#: How servers refuse image parts: llama.cpp's ``llama-server`` without ``--mmproj`` ("image input is not
#: supported - hint: ... provide the mmproj", a 500), llama-cpp-python's ``llama_cpp.server`` with a text-only
#: model (its chat template cannot join a list of content parts: 500 'can only concatenate str (not "list")
#: to str'), vLLM serving only the language model ("At most 0 image(s) may be provided in one prompt", 400),
#: OpenAI's text-only models ("image_url is only supported by certain models"), and the usual "does not
#: support images/vision/multimodal" wordings.
_NO_VISION = re.compile(
    r"(image|vision|multi-?modal)[\w\s()-]{0,40}(not supported|unsupported|not enabled|only supported)"
    r"|(does not|doesn't|cannot|can't|not) (support|accept|take|process)[\w\s-]{0,30}(image|vision|multi-?modal)"
    r"|at most 0 image|mmproj|concatenate str \(not \W?list\W?\) to str",
    re.IGNORECASE,
)


def refuses_images(message: str) -> bool:
    """Whether a server's error text says it cannot take images (see :data:`_NO_VISION`)."""
    return bool(_NO_VISION.search(message or ""))


def user_content(prompt: str, images: Sequence[ImagePart]) -> str | list[dict[str, Any]]:
    """The user message's content: the prompt alone without images (as a text-only call always was), else
    one ``image_url`` part per image (base64 data URL) followed by the prompt as a ``text`` part."""
    if not images:
        return prompt
    parts: list[dict[str, Any]] = [{"type": "image_url", "image_url": {"url": image.data_url()}} for image in images]
    parts.append({"type": "text", "text": prompt})
    return parts


def completion_prompt(prompt: str, *, prompt_format: str, system: str | None) -> str:
    """The raw-completion text: the chat transcript as plain text, ending with the answer cue.

    The server tokenizes the whole string, so a ChatML marker inside item text could open a fake turn;
    ``<|`` in our non-template segments is broken up (``< |``) to keep it plain text.
    """
    return "".join(
        seg.text if seg.special else seg.text.replace("<|", "< |")
        for seg in chatml_segments(prompt, prompt_format=prompt_format, system=system)
    )
OFFICIAL_HOST = "api.openai.com"  # the only host OPENAI_API_KEY is sent to


def is_official(base_url: str | None, official_host: str) -> bool:
    """True when ``base_url`` is unset or the provider's own HTTPS endpoint (where its default key may go)."""
    if not base_url:
        return True
    parts = urllib.parse.urlsplit(base_url)
    return parts.scheme == "https" and (parts.hostname or "").lower() == official_host


def resolve_api_key(api_key_env: str | None, *, keys: Mapping[str, str], default_env: Sequence[str],
                    official_host: str, base_url: str | None, provider: str) -> str:
    """The key to send, decided by where it goes.

    ``keys`` are the key variables' values by name, resolved at an edge (``Settings.provider_settings()``):
    nothing here reads the environment. A member that names ``api_key_env`` gets that variable's key,
    wherever its server is. Otherwise the provider's default keys (``default_env``, e.g. ``OPENAI_API_KEY``)
    go only to its own endpoint (``https://official_host``); any other ``base_url`` gets a placeholder,
    never the cloud key. Raises ValueError when a needed key is missing (without echoing any value).
    """
    if api_key_env:
        names: tuple[str, ...] = (api_key_env,)
    elif is_official(base_url, official_host):
        names = tuple(default_env)
    else:
        return PLACEHOLDER_KEY
    for name in names:
        value = keys.get(name)
        if value:
            return value
    if base_url and not is_official(base_url, official_host):
        return PLACEHOLDER_KEY
    raise ValueError(f"{provider} needs an API key in ${' or $'.join(names)} (or a base_url of a local server)")


def public_url(url: str | None) -> str | None:
    """``url`` without user:password, so it can enter cache keys and logs."""
    if not url:
        return url
    parts = urllib.parse.urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        parts = parts._replace(netloc=netloc)
    return urllib.parse.urlunsplit(parts)


@register
class OpenAIProvider:
    """A chat model on an OpenAI-protocol server, read through its token logprobs.

    Parameters
    ----------
    model : str
        Model name as the server knows it.
    base_url : str or None
        Server URL (e.g. ``http://127.0.0.1:8000/v1``); None means api.openai.com.
    api_key_env : str, optional
        Environment variable holding this server's key. Unset: ``OPENAI_API_KEY``, sent only to
        ``https://api.openai.com``; any other ``base_url`` then gets no real key.
    api_keys : mapping
        The key variables' values by name, resolved at an edge and passed by the registry (never an option
        of a member: ``backend.providers.registry.make_provider``).
    top_logprobs : int
        Alternatives requested per token (0-20); 0 asks for the chosen token's logprob only.
    max_tokens : int
        Tokens generated; the class token is looked for in the first two.
    temperature : float
        Sampling temperature (0 for judging).
    system : str or None
        Optional system message.
    endpoint : {"chat", "completions"}
        ``chat`` (default): chat completions. ``completions``: raw completions of the prompt formatted
        with ``prompt_format`` (one of ``chatml.PROMPT_FORMATS``; default ``chatml-prefill``).
    vision : bool or None
        Whether this judge is sent images (``accepts_images``). None: True for ``chat``, False for
        ``completions`` (raw text cannot carry an image; ``vision=True`` there is a ValueError). Set False
        for a text-only model so the engine leaves it out of image questions (``no_vision``) instead of
        calling it. Not in the cache key: it decides whether a call is made, never what a call answers.
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        top_logprobs: int = 20,
        max_tokens: int = 2,
        temperature: float = 0.0,
        system: str | None = None,
        endpoint: str = "chat",
        prompt_format: str = "chatml-prefill",
        vision: bool | None = None,
        api_keys: Mapping[str, str] | None = None,
    ):
        if endpoint not in ENDPOINTS:
            raise ValueError(f"endpoint must be one of {ENDPOINTS}, got {endpoint!r}")
        if vision is not None and not isinstance(vision, bool):
            raise ValueError(f"vision is true or false, got {vision!r}")
        if vision and endpoint == "completions":
            raise ValueError("endpoint='completions' sends raw text and cannot carry images: use the chat endpoint "
                             "for vision=True")
        #: Whether the engine may send this judge images (:func:`backend.providers.base.accepts_images`).
        self.accepts_images: bool = (endpoint == "chat") if vision is None else vision
        if prompt_format not in PROMPT_FORMATS:
            raise ValueError(f"prompt_format must be one of {PROMPT_FORMATS}, got {prompt_format!r}")
        self.endpoint = endpoint
        self.prompt_format = prompt_format
        check_api_options(model, top_k=("top_logprobs", top_logprobs), max_tokens=("max_tokens", max_tokens),
                          temperature=temperature)
        self.model = model
        self.base_url = base_url
        self.top_logprobs = top_logprobs
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.system = system
        key = resolve_api_key(api_key_env, keys=api_keys or {}, default_env=default_key_variables(self.name),
                              official_host=OFFICIAL_HOST, base_url=base_url, provider="openai")
        self._secrets = (key,)
        self._client = openai.OpenAI(api_key=key, base_url=base_url, max_retries=0)

    def cache_params(self) -> Mapping[str, Any]:
        """Server, decoding parameters and system message; never the key."""
        return {
            "base_url": public_url(self.base_url) or DEFAULT_BASE_URL,
            "top_logprobs": self.top_logprobs,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "system": self.system,
            **({"endpoint": self.endpoint, "prompt_format": self.prompt_format} if self.endpoint != "chat" else {}),
        }

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float,
                 images: Sequence[ImagePart] = ()) -> ClassDistribution:
        """Class probabilities from the logprobs of the first class token the model generates.

        ``images`` go before the prompt's text (:func:`user_content`). A judge configured without vision
        raises ``no_vision`` for them, calling nothing (the engine asks only judges that accept images).
        """
        labels = check_labels(labels)
        self._check_images(images)
        if self.endpoint == "completions":
            return self._classify_completion(prompt, labels, timeout=timeout)
        extra: dict[str, Any] = {"top_logprobs": self.top_logprobs} if self.top_logprobs else {}
        response = self._create(prompt, timeout=timeout, images=images, logprobs=True, max_tokens=self.max_tokens,
                                temperature=self.temperature, **extra)
        choice = response.choices[0] if response.choices else None
        text = choice.message.content if choice is not None else None
        content = choice.logprobs.content if choice is not None and choice.logprobs is not None else None
        if content is None:
            raise ProviderError("no_logprobs", f"server returned no logprobs (text {text!r}); use the sampling option")
        positions = [
            TokenPosition(t.token, t.logprob, tuple((a.token, a.logprob) for a in (t.top_logprobs or ())))
            for t in content
        ]
        return distribution_from_positions(positions, labels, text=text, usage=_usage(response))

    def _classify_completion(self, prompt: str, labels: tuple[str, ...], *, timeout: float) -> ClassDistribution:
        """The same reading over ``/v1/completions``, whose logprobs come as parallel lists."""
        text_prompt = completion_prompt(prompt, prompt_format=self.prompt_format, system=self.system)
        try:
            response = self._client.completions.create(
                model=self.model, prompt=text_prompt, max_tokens=self.max_tokens, temperature=self.temperature,
                logprobs=self.top_logprobs or 1, timeout=timeout,
            )
        except openai.OpenAIError as exc:
            raise self._provider_error(exc) from None
        choice = response.choices[0] if response.choices else None
        text = choice.text if choice is not None else None
        lp = choice.logprobs if choice is not None else None
        if lp is None or not lp.tokens:
            raise ProviderError("no_logprobs", f"server returned no logprobs (text {text!r}); use the sampling option")
        tops = list(lp.top_logprobs or [])
        positions = [
            TokenPosition(tok, (lp.token_logprobs or [None] * len(lp.tokens))[i],
                          tuple((tops[i] or {}).items()) if i < len(tops) else ())
            for i, tok in enumerate(lp.tokens)
        ]
        return distribution_from_positions(positions, labels, text=text, usage=_usage(response))

    def sample_texts(
        self, prompt: str, *, n: int, temperature: float, seed: int | None, max_tokens: int, timeout: float,
        images: Sequence[ImagePart] = (),
    ) -> list[str]:
        """``n`` sampled answers: ``n`` choices per call, topped up when the server ignores ``n``."""
        self._check_images(images)

        def draw(count: int, call_seed: int | None) -> list[str]:
            seeded = {} if call_seed is None else {"seed": call_seed}
            response = self._create(prompt, timeout=timeout, images=images, n=count, temperature=temperature,
                                    max_tokens=max_tokens, **seeded)
            return [c.message.content or "" for c in response.choices]

        return collect_samples(draw, n=n, seed=seed)

    def _check_images(self, images: Sequence[ImagePart]) -> None:
        if images and not self.accepts_images:
            raise ProviderError("no_vision", f"openai:{self.model} is configured without vision (vision: false "
                                             f"or the completions endpoint) and is sent no image", retryable=False)

    def _create(self, prompt: str, *, timeout: float, images: Sequence[ImagePart] = (), **params: Any) -> Any:
        messages = ([{"role": "system", "content": self.system}] if self.system else []) + [
            {"role": "user", "content": user_content(prompt, images)}
        ]
        try:
            return self._client.chat.completions.create(model=self.model, messages=messages, timeout=timeout, **params)
        except openai.OpenAIError as exc:
            raise self._provider_error(exc, with_images=bool(images)) from None

    def _provider_error(self, exc: openai.OpenAIError, *, with_images: bool = False) -> ProviderError:
        """Map SDK exceptions to the engine's reason codes (see ``errors.error_for_status``)."""
        where = public_url(self.base_url) or DEFAULT_BASE_URL
        if isinstance(exc, openai.APITimeoutError):
            return timeout_error("openai", where)
        if isinstance(exc, openai.APIConnectionError):
            return connection_error(where, exc, self._secrets)
        if isinstance(exc, openai.APIStatusError):
            detail = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else exc.message
            if isinstance(detail, dict):
                detail = detail.get("message", detail)
            msg = status_message("openai", exc.status_code, detail, self._secrets)
            if with_images and refuses_images(str(detail)):  # llama-server says 500: a retry cannot help
                return ProviderError("no_vision", f"{msg} (set the member's option vision: false)", retryable=False)
            return error_for_status(exc.status_code, msg, retry_after=parse_retry_after(exc.response.headers))
        return ProviderError("provider_error", redact(f"openai: {type(exc).__name__}: {exc}", self._secrets))


def _usage(response: Any) -> dict[str, Any]:
    usage = getattr(response, "usage", None)
    if usage is None:
        return {}
    return {k: v for k, v in usage.model_dump().items() if isinstance(v, (int, float))}
