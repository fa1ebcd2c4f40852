"""Judges that see, over the OpenAI protocol: what the real ``openai`` SDK sends for an item's images.

A vision model cannot run on this machine, so the judge is ``tests.support.recording_openai_server``
(TEST-ONLY, not a model): a real HTTP server on 127.0.0.1 that records every request body and answers a
fixed class with top logprobs. The refusal of a text-only server is checked twice: against that server
answering like llama.cpp's ``llama-server`` without ``--mmproj``, and against the real ``llama_cpp.server``
with the embedded text-only model.
"""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from backend.providers.image_part import ImagePart
from backend.scoring.members import member_specs_from_config
from backend.providers.base import ProviderError, accepts_images
from backend.providers.openai_compat import OpenAIProvider
from backend.providers.registry import make_provider
from backend.providers.sampling import SamplingProvider
from tests.support.recording_openai_server import LLAMA_SERVER_REFUSAL, RecordingOpenAIServer, image_urls

PROMPT = "Which animal does [attached image 1] show? Answer: "


def picture(fmt: str, size: tuple[int, int], colour: tuple[int, int, int]) -> ImagePart:
    """A real PNG or JPEG made here, with its true size."""
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, fmt)
    return ImagePart("image", f"image/{fmt.lower()}", buf.getvalue(), *size)


def judge(server: RecordingOpenAIServer, **options) -> OpenAIProvider:
    return OpenAIProvider("vision-test", base_url=server.url, **options)


def test_images_go_as_data_url_parts_before_the_prompt_text_and_round_trip_byte_for_byte() -> None:
    png, jpeg = picture("PNG", (64, 48), (200, 30, 30)), picture("JPEG", (32, 32), (10, 200, 10))
    with RecordingOpenAIServer(answer="cat", other="dog", confidence=0.8) as server:
        dist = judge(server, system="You label photos.").classify(PROMPT, ["cat", "dog"], timeout=10,
                                                                   images=(png, jpeg))
    (body,) = server.requests
    assert body["messages"] == [
        {"role": "system", "content": "You label photos."},
        {"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": png.data_url()}},
            {"type": "image_url", "image_url": {"url": jpeg.data_url()}},
            {"type": "text", "text": PROMPT},
        ]},
    ]
    sent = image_urls(body)
    assert [url.split(";", 1)[0] for url in sent] == ["data:image/png", "data:image/jpeg"]
    assert [base64.b64decode(url.split("base64,", 1)[1], validate=True) for url in sent] == [png.data, jpeg.data]
    assert Image.open(io.BytesIO(base64.b64decode(sent[0].split(",", 1)[1]))).size == (64, 48)
    assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["max_tokens"] == 2
    assert dist.method == "top_logprobs" and dist.text == "cat"
    assert dist.probs["cat"] == pytest.approx(0.8) and dist.raw_mass == pytest.approx(1.0)


def test_a_text_only_call_is_unchanged_plain_string_content_and_the_same_cache_params() -> None:
    with RecordingOpenAIServer() as server:
        provider = judge(server)
        provider.classify("Consistent? Answer: ", ["0", "1"], timeout=10)
        no_vision = judge(server, vision=False)
    assert server.requests[0]["messages"] == [{"role": "user", "content": "Consistent? Answer: "}]
    # vision never enters the cache key: text calls keep the keys they had before images existed
    expected = {"base_url": server.url, "top_logprobs": 20, "max_tokens": 2, "temperature": 0.0, "system": None}
    assert dict(provider.cache_params()) == dict(no_vision.cache_params()) == expected


@pytest.mark.parametrize("status", [500, 400])  # llama-server says 500; forks and newer builds say 400
def test_a_server_refusing_images_is_no_vision_and_not_retried(status: int) -> None:
    with RecordingOpenAIServer(answer="cat", other="dog", refuse_images=status) as server:
        provider = judge(server)
        with pytest.raises(ProviderError) as info:
            provider.classify(PROMPT, ["cat", "dog"], timeout=10, images=(picture("PNG", (8, 8), (0, 0, 0)),))
        assert (info.value.reason, info.value.retryable) == ("no_vision", False)
        assert LLAMA_SERVER_REFUSAL[:28] in str(info.value) and "vision: false" in str(info.value)
        assert provider.classify("Text only. Answer: ", ["cat", "dog"], timeout=10).text == "cat"  # text still works
    assert len(server.requests) == 2


@pytest.mark.llm
def test_real_llama_cpp_server_with_a_text_only_model_refuses_images_as_no_vision(llama_server) -> None:
    # llama_cpp.server renders the model's text-only chat template over the content parts and fails (500)
    provider = OpenAIProvider("smollm2", base_url=llama_server.base_url, top_logprobs=5)
    with pytest.raises(ProviderError) as info:
        provider.classify("Is it red? Answer: ", ["0", "1"], timeout=60, images=(picture("PNG", (8, 8), (255, 0, 0)),))
    assert (info.value.reason, info.value.retryable) == ("no_vision", False)
    # the same server answers the same judge's text calls (only images are refused)
    assert len(provider.sample_texts("Is 2 even?", n=1, temperature=0.5, seed=1, max_tokens=2, timeout=60)) == 1


def test_vision_option_decides_accepts_images_and_a_blind_judge_calls_nothing() -> None:
    with RecordingOpenAIServer() as server:
        assert accepts_images(judge(server)) is True
        assert accepts_images(judge(server, endpoint="completions")) is False
        with pytest.raises(ValueError, match="cannot carry images"):
            judge(server, endpoint="completions", vision=True)
        with pytest.raises(ValueError, match="vision is true or false"):
            judge(server, vision="yes")
        blind = judge(server, vision=False)
        assert accepts_images(blind) is False
        with pytest.raises(ProviderError) as info:
            blind.classify(PROMPT, ["cat", "dog"], timeout=10, images=(picture("PNG", (8, 8), (0, 0, 0)),))
        assert (info.value.reason, info.value.retryable) == ("no_vision", False)
    assert server.requests == []


def test_vision_flows_from_the_members_file_to_the_provider(tmp_path) -> None:
    with RecordingOpenAIServer() as server:
        path = tmp_path / "members.yaml"
        path.write_text(f"- provider: openai\n  model: text-only\n  base_url: {server.url}\n  options: {{vision: false}}\n"
                        f"- provider: openai\n  model: seer\n  base_url: {server.url}\n")
        blind, seer = (make_provider(e.provider, e.model, base_url=e.base_url, options=dict(e.options or {}))
                       for e in member_specs_from_config(path))
        assert (accepts_images(blind), accepts_images(seer)) == (False, True)
        with pytest.raises(ValueError, match="vision"):
            make_provider("openai", "x", base_url=server.url, options={"vision": True, "endpoint": "completions"})


def test_sampling_fallback_sends_the_images_with_every_draw() -> None:
    png = picture("PNG", (16, 16), (1, 2, 3))
    with RecordingOpenAIServer(answer="dog", other="cat") as server:
        sampler = SamplingProvider(judge(server), n=3, temperature=1.0, seed=5)
        assert accepts_images(sampler) is True
        assert accepts_images(SamplingProvider(judge(server, vision=False), n=2)) is False
        dist = sampler.classify(PROMPT, ["cat", "dog"], timeout=10, images=(png,))
        sampler.classify("Text. Answer: ", ["cat", "dog"], timeout=10)
    assert dist.method == "sampling" and dist.probs == {"cat": 0.0, "dog": 1.0}
    pictured, text = server.requests
    assert image_urls(pictured) == [png.data_url()] and pictured["messages"][-1]["content"][-1]["text"] == PROMPT
    assert pictured["n"] == 3 and pictured["seed"] == 5
    assert text["messages"] == [{"role": "user", "content": "Text. Answer: "}]
