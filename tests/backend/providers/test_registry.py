"""make_provider: kinds, options and the sampling wrapper, with real provider objects."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.providers.base import Provider
from backend.providers.gemini import GeminiProvider
from backend.providers.openai_compat import OpenAIProvider
from backend.providers.registry import make_provider
from backend.providers.sampling import SamplingProvider


def test_openai_kind_with_options_and_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    prov = make_provider("openai", "qwen", base_url="http://127.0.0.1:9/v1", options={"top_logprobs": 5})
    assert isinstance(prov, OpenAIProvider) and isinstance(prov, Provider)
    assert (prov.name, prov.model, prov.top_logprobs) == ("openai", "qwen", 5)
    assert prov.cache_params()["base_url"] == "http://127.0.0.1:9/v1"


def test_gemini_kind() -> None:
    from backend.providers.provider_settings import ProviderSettings

    keys = ProviderSettings(keys={"GEMINI_API_KEY": "AIzaRegistryTestKey000000000000"})
    prov = make_provider("gemini", "gemini-2.0-flash", options={"logprobs": 3}, settings=keys)
    assert isinstance(prov, GeminiProvider) and prov.logprobs == 3


def test_sampling_option_wraps_the_provider() -> None:
    prov = make_provider("openai", "m", base_url="http://127.0.0.1:9/v1",
                         options={"sampling": {"n": 4, "temperature": 0.7, "seed": 1}})
    assert isinstance(prov, SamplingProvider) and isinstance(prov, Provider)
    assert (prov.name, prov.model, prov.n) == ("openai", "m", 4)
    params = prov.cache_params()
    assert params["sampling"] == {"n": 4, "temperature": 0.7, "seed": 1, "max_tokens": 2}
    assert params["inner"]["base_url"] == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("kind", "model", "base_url", "options", "match"),
    [
        ("anthropic", "m", None, None, "unknown provider kind"),
        ("openai", "m", "http://127.0.0.1:9/v1", {"top_k": 3}, "top_k"),
        ("openai", "m", "http://127.0.0.1:9/v1", {"top_logprobs": 50}, "top_logprobs"),
        ("openai", "m", "http://127.0.0.1:9/v1", {"sampling": {"n": 0}}, "n >= 1"),
        ("openai", "m", "http://127.0.0.1:9/v1", {"sampling": 5}, "mapping"),
        ("local", "smollm2", "http://127.0.0.1:9/v1", None, "base_url"),
        ("local", "not-a-model", None, None, "gguf"),
    ],
)
def test_bad_member_configs_are_value_errors(kind, model, base_url, options, match) -> None:
    with pytest.raises(ValueError, match=match):
        make_provider(kind, model, base_url=base_url, options=options)


@pytest.mark.llm
def test_local_kind_builds_the_embedded_model(smollm2_path: Path) -> None:
    prov = make_provider("local", "smollm2", options={"n_ctx": 2048})
    assert isinstance(prov, Provider) and prov.name == "local" and prov.model == "smollm2"
    dist = prov.classify("Is 2 + 2 = 4? Answer 1 for yes, 0 for no.\nAnswer: ", ["0", "1"], timeout=120)
    assert sum(dist.probs.values()) == pytest.approx(1.0)


def test_a_provider_registers_itself_under_its_class_level_name() -> None:
    from backend.providers.registry import kinds, provider_class, register

    @register
    class EchoProvider:
        name = "echo-test"
        takes_base_url = False

        def __init__(self, model: str, *, temperature: float = 0.0) -> None:
            self.model = model
            self.temperature = temperature

    assert provider_class("echo-test") is EchoProvider and "echo-test" in kinds()
    prov = make_provider("echo-test", "m", options={"temperature": 0.5})
    assert isinstance(prov, EchoProvider) and prov.temperature == 0.5
    with pytest.raises(ValueError, match="takes no base_url"):
        make_provider("echo-test", "m", base_url="http://x")
    with pytest.raises(ValueError, match="unknown provider kind"):
        make_provider("nope", "m")


def test_every_kind_declares_its_key_variables_once_and_the_settings_redact_them() -> None:
    from backend.providers.registry import DEFAULT_KEY_VARIABLES, PROVIDER_MODULES, default_key_variables
    from backend.config.settings import Settings

    assert set(DEFAULT_KEY_VARIABLES) == set(PROVIDER_MODULES)  # a new kind states its keys beside its module
    assert default_key_variables("gemini") == ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    env = {"GOOGLE_API_KEY": "AIza-fallback-key-value", "OPENAI_API_KEY": "sk-openai-key-value"}
    assert set(Settings.from_env(env).secrets()) == set(env.values())
