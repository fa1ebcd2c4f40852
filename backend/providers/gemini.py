"""Gemini judges through ``google-genai`` (the successor of the deprecated ``google-generativeai``).

``generate_content`` with ``response_logprobs=True`` returns, per generated token, the chosen
candidate and the top candidates; they are read exactly like OpenAI's logprobs (``logprobs.py``).
The SDK's own retries are switched off: the engine retries, honouring ``Retry-After``. Every Gemini model
reads images: they go as inline bytes (``Part.from_bytes``: ``inline_data`` with the MIME type), before the
prompt's text in the one user turn, so the prompt still ends with the answer cue.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping, Sequence

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from backend.providers.image_part import ImagePart
from backend.providers.base import ClassDistribution, ProviderError
from backend.providers.http_errors import (
    connection_error,
    error_for_status,
    parse_retry_after,
    status_message,
    timeout_error,
)
from backend.providers.logprobs import TokenPosition, check_api_options, check_labels, distribution_from_positions
from backend.providers.openai_compat import public_url, resolve_api_key
from backend.providers.sampling import collect_samples
from backend.providers.registry import default_key_variables, register

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
OFFICIAL_HOST = "generativelanguage.googleapis.com"  # the only host GEMINI_API_KEY/GOOGLE_API_KEY go to


def _transport_errors() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """(timeout, connection) exception classes of whichever httpx flavour the SDK uses."""
    timeouts: list[type[BaseException]] = []
    transport: list[type[BaseException]] = []
    for module_name in ("httpx", "httpx2"):
        try:
            module = __import__(module_name)
        except ImportError:
            continue
        timeouts.append(module.TimeoutException)
        transport.append(module.TransportError)
    return tuple(timeouts), tuple(transport)


_TIMEOUT_ERRORS, _TRANSPORT_ERRORS = _transport_errors()


@register
class GeminiProvider:
    """A Gemini model read through its response logprobs.

    Parameters
    ----------
    model : str
        Model name, e.g. ``gemini-2.0-flash``.
    base_url : str or None
        Endpoint override (tests point it at a local replay server); None is Google's API.
    api_key_env : str, optional
        Environment variable holding this endpoint's key. Unset: ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY``,
        sent only to Google's own endpoint; any other ``base_url`` then gets no real key.
    api_keys : mapping
        The key variables' values by name, resolved at an edge and passed by the registry.
    logprobs : int
        Top candidates requested per token (0-20); 0 asks for the chosen token's logprob only.
    max_output_tokens : int
        Tokens generated; the class token is looked for in the first two.
    temperature : float
        Sampling temperature (0 for judging).
    thinking_budget : int or None
        For thinking models: a budget (0 switches thinking off so the 2 tokens are the answer).
    system : str or None
        Optional system instruction.
    """

    name = "gemini"
    #: Gemini models are multimodal: the engine may send them images.
    accepts_images = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        logprobs: int = 20,
        max_output_tokens: int = 2,
        temperature: float = 0.0,
        thinking_budget: int | None = None,
        system: str | None = None,
        api_keys: Mapping[str, str] | None = None,
    ):
        check_api_options(model, top_k=("logprobs", logprobs), max_tokens=("max_output_tokens", max_output_tokens),
                          temperature=temperature)
        self.model = model
        self.base_url = base_url
        self.logprobs = logprobs
        self.max_output_tokens = max_output_tokens
        self.temperature = temperature
        self.thinking_budget = thinking_budget
        self.system = system
        key = resolve_api_key(api_key_env, keys=api_keys or {}, default_env=default_key_variables(self.name),
                              official_host=OFFICIAL_HOST, base_url=base_url, provider="gemini")
        self._secrets = (key,)
        http = types.HttpOptions(base_url=base_url, retry_options=types.HttpRetryOptions(attempts=1))
        self._client = genai.Client(api_key=key, vertexai=False, http_options=http)

    def cache_params(self) -> Mapping[str, Any]:
        """Endpoint, decoding parameters and system instruction; never the key."""
        return {
            "base_url": public_url(self.base_url) or DEFAULT_BASE_URL,
            "logprobs": self.logprobs,
            "max_output_tokens": self.max_output_tokens,
            "temperature": self.temperature,
            "thinking_budget": self.thinking_budget,
            "system": self.system,
        }

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float,
                 images: Sequence[ImagePart] = ()) -> ClassDistribution:
        """Class probabilities from the logprobs of the first class token Gemini generates (``images``
        are sent before the prompt's text, :func:`contents`)."""
        labels = check_labels(labels)
        extra = {"logprobs": self.logprobs} if self.logprobs else {}
        response = self._generate(prompt, images=images, timeout=timeout, temperature=self.temperature,
                                  max_output_tokens=self.max_output_tokens, response_logprobs=True, **extra)
        candidate = _first_candidate(response)
        text = _text(candidate)
        result = candidate.logprobs_result
        if result is None or not result.chosen_candidates:
            raise ProviderError("no_logprobs", f"gemini returned no logprobs (text {text!r}); use the sampling option")
        tops = list(result.top_candidates or ())
        positions = []
        for i, chosen in enumerate(result.chosen_candidates):
            top = tops[i].candidates or () if i < len(tops) else ()
            positions.append(TokenPosition(
                chosen.token or "", chosen.log_probability,
                tuple((c.token or "", c.log_probability) for c in top if c.log_probability is not None),
            ))
        return distribution_from_positions(positions, labels, text=text, usage=_usage(response))

    def sample_texts(
        self, prompt: str, *, n: int, temperature: float, seed: int | None, max_tokens: int, timeout: float,
        images: Sequence[ImagePart] = (),
    ) -> list[str]:
        """``n`` sampled answers: ``candidate_count`` per call (the API allows at most 8)."""

        def draw(count: int, call_seed: int | None) -> list[str]:
            seeded = {} if call_seed is None else {"seed": call_seed}
            response = self._generate(prompt, images=images, timeout=timeout, temperature=temperature, max_output_tokens=max_tokens,
                                      candidate_count=min(count, 8), **seeded)
            return [_text(c) for c in (response.candidates or ())]

        return collect_samples(draw, n=n, seed=seed)

    def _generate(self, prompt: str, *, timeout: float, images: Sequence[ImagePart] = (), **config: Any) -> Any:
        if self.thinking_budget is not None:
            config["thinking_config"] = types.ThinkingConfig(thinking_budget=self.thinking_budget)
        if self.system:
            config["system_instruction"] = self.system
        cfg = types.GenerateContentConfig(http_options=types.HttpOptions(timeout=max(int(timeout * 1000), 1)), **config)
        try:
            return self._client.models.generate_content(model=self.model, contents=contents(prompt, images),
                                                        config=cfg)
        except genai_errors.APIError as exc:
            raise self._status_error(exc) from None
        except _TIMEOUT_ERRORS:
            raise timeout_error("gemini", self._where()) from None
        except _TRANSPORT_ERRORS as exc:
            raise connection_error(self._where(), exc, self._secrets) from None

    def _where(self) -> str:
        return public_url(self.base_url) or DEFAULT_BASE_URL

    def _status_error(self, exc: genai_errors.APIError) -> ProviderError:
        headers = getattr(exc.response, "headers", None)
        retry_after = parse_retry_after(dict(headers) if headers is not None else None)
        if retry_after is None:
            retry_after = _retry_info_delay(exc.details)
        msg = status_message("gemini", exc.code or 0, exc.message or exc.status or "", self._secrets)
        if "API_KEY_INVALID" in json.dumps(exc.details, default=str):  # Gemini says 400 for a bad key
            return ProviderError("auth", msg, retryable=False)
        return error_for_status(int(exc.code or 0), msg, retry_after=retry_after)


def contents(prompt: str, images: Sequence[ImagePart]) -> Any:
    """What ``generate_content`` is given: the prompt alone without images (the text request as it always
    was), else one user turn of the images' inline bytes followed by the prompt's text."""
    if not images:
        return prompt
    parts = [types.Part.from_bytes(data=image.data, mime_type=image.mime) for image in images]
    return types.Content(role="user", parts=[*parts, types.Part.from_text(text=prompt)])


def _first_candidate(response: Any) -> Any:
    if not response.candidates:
        feedback = getattr(response, "prompt_feedback", None)
        reason = getattr(feedback, "block_reason", None)
        raise ProviderError("blocked", f"gemini returned no candidate (block reason: {reason})")
    return response.candidates[0]


def _text(candidate: Any) -> str:
    content = getattr(candidate, "content", None)
    parts = getattr(content, "parts", None) or ()
    return "".join(p.text for p in parts if getattr(p, "text", None))


def _retry_info_delay(details: Any) -> float | None:
    """``retryDelay`` ("38s") of a ``google.rpc.RetryInfo`` detail in a 429 body, in seconds."""
    error = details.get("error", details) if isinstance(details, dict) else {}
    for item in error.get("details", ()) if isinstance(error, dict) else ():
        delay = item.get("retryDelay") if isinstance(item, dict) else None
        match = re.fullmatch(r"\s*([0-9.]+)s\s*", str(delay)) if delay is not None else None
        if match:
            return float(match.group(1))
    return None


def _usage(response: Any) -> dict[str, Any]:
    meta = getattr(response, "usage_metadata", None)
    if meta is None:
        return {}
    fields = ("prompt_token_count", "candidates_token_count", "total_token_count")
    return {f: getattr(meta, f) for f in fields if isinstance(getattr(meta, f, None), int)}
