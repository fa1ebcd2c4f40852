"""Gemini judges that see: the request shape for an item's images, against a RECORDED response.

Google's Gemini API cannot be reached from the test machine. The real ``google-genai`` client talks to
the local replay server (``tests/backend/providers/replay.py``) through ``HttpOptions(base_url=...)``, so
its own serialisation of ``Part.from_bytes`` runs; the response replayed
(``tests/data/recorded/gemini/image_top_logprobs.json``) is constructed from the public API reference,
not captured live (its ``_provenance`` says so).
"""

from __future__ import annotations

import base64
import io
import math

import pytest
from PIL import Image

from backend.providers.image_part import ImagePart
from backend.providers.base import accepts_images
from backend.providers.gemini import GeminiProvider
from backend.providers.sampling import SamplingProvider
from tests.backend.providers.replay import GEMINI_FAKE_KEY, ReplayServer, gemini_replay

FAKE_KEY = GEMINI_FAKE_KEY
PROMPT = "Which animal does [attached image 1] show? Answer: "


@pytest.fixture()
def replay(monkeypatch: pytest.MonkeyPatch):
    yield from gemini_replay(monkeypatch)


def provider(replay: ReplayServer) -> GeminiProvider:
    return GeminiProvider("gemini-2.0-flash", base_url=replay.url, api_key_env="GEMINI_API_KEY",
                          api_keys={"GEMINI_API_KEY": FAKE_KEY})


def picture(fmt: str, size: tuple[int, int]) -> ImagePart:
    buf = io.BytesIO()
    Image.new("RGB", size, (120, 60, 30)).save(buf, fmt)
    return ImagePart("photo", f"image/{fmt.lower()}", buf.getvalue(), *size)


def mime_of(part: dict) -> str | None:
    """The MIME type of an ``inlineData`` part: the SDK writes ``mime_type`` (proto JSON takes either spelling)."""
    blob = part.get("inlineData") or {}
    return blob.get("mimeType", blob.get("mime_type"))


def test_images_go_as_inline_bytes_before_the_text_in_one_user_turn(replay: ReplayServer) -> None:
    png, jpeg = picture("PNG", (40, 30)), picture("JPEG", (20, 20))
    replay.queue("gemini/image_top_logprobs")
    judge = provider(replay)
    assert accepts_images(judge) is True
    dist = judge.classify(PROMPT, ["cat", "dog"], timeout=5, images=(png, jpeg))

    (req,) = replay.requests
    assert req.path.endswith("/models/gemini-2.0-flash:generateContent")
    parts = req.body["contents"][0]["parts"]
    assert [c["role"] for c in req.body["contents"]] == ["user"]
    assert [mime_of(p) for p in parts] == ["image/png", "image/jpeg", None]
    assert parts[-1] == {"text": PROMPT}  # the prompt, ending with the answer cue, comes last
    sent = [base64.b64decode(p["inlineData"]["data"], altchars=b"-_") for p in parts[:2]]
    assert sent == [png.data, jpeg.data]
    assert req.body["generationConfig"]["responseLogprobs"] is True

    p_cat, p_dog = math.exp(-0.10536), math.exp(-2.52573)
    assert dist.method == "top_logprobs" and dist.text == "cat"
    assert dist.probs["cat"] == pytest.approx(p_cat / (p_cat + p_dog))
    assert dist.usage["prompt_token_count"] == 272


def test_a_text_call_keeps_its_request_shape(replay: ReplayServer) -> None:
    replay.queue("gemini/top_logprobs_binary")
    provider(replay).classify("Is it consistent?\nAnswer: ", ["0", "1"], timeout=5)
    assert replay.requests[0].body["contents"] == [{"role": "user", "parts": [{"text": "Is it consistent?\nAnswer: "}]}]


def test_sampling_sends_the_image_with_each_draw(replay: ReplayServer) -> None:
    png = picture("PNG", (8, 8))
    replay.queue("gemini/samples_4")
    dist = SamplingProvider(provider(replay), n=4, temperature=1.0, seed=3).classify(
        "q\nAnswer: ", ["0", "1"], timeout=5, images=(png,))
    assert dist.method == "sampling"
    (part, text) = replay.requests[0].body["contents"][0]["parts"]
    assert base64.b64decode(part["inlineData"]["data"], altchars=b"-_") == png.data and text == {"text": "q\nAnswer: "}
