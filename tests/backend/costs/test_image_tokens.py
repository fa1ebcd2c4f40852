"""Dry-run image tokens: the providers' documented formulas, and the estimate that uses them.

The numbers are the worked examples of the documentation (OpenAI's "Images and vision" guide,
*Calculating costs*; Google's "Understand and count tokens"), recomputed here by hand. No model or cloud
is called: the dry run never calls one, and the keys are fake.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image
from rich.console import Console

from backend.costs.dry_run import estimate_run
from backend.costs.cost_tables import estimate_table
from backend.costs.image_tokens import (
    gemini_image_tokens,
    image_tokens,
    openai_patch_tokens,
    openai_tile_tokens,
)
from backend.task.dataset import Item
from backend.scoring.engine import EngineConfig
from backend.providers.image_part import ImagePart
from backend.scoring.members import MemberSpec, build_members
from backend.providers.gemini import GeminiProvider
from backend.providers.openai_compat import OpenAIProvider
from backend.providers.provider_settings import ProviderSettings
from backend.providers.sampling import SamplingProvider
from backend.scoring.question_engine import make_engine
from backend.task.spec import load_spec


def picture(width: int, height: int) -> ImagePart:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (9, 9, 9)).save(buf, "PNG")
    return ImagePart("grounding", "image/png", buf.getvalue(), width, height)


#: The keys a run's settings would resolve (never sent: nothing is called here).
KEYS = {"OPENAI_API_KEY": "sk-test-never-sent-0123456789", "GEMINI_API_KEY": "AIzaTestNeverSent0123456789"}


@pytest.fixture()
def keys() -> ProviderSettings:
    return ProviderSettings(keys=KEYS)


@pytest.mark.parametrize(("size", "detail", "tokens"), [
    ((1024, 1024), "high", 765),     # -> 768x768, 4 tiles: 85 + 4 * 170
    ((2048, 4096), "high", 1105),    # -> 1024x2048 -> 768x1536, 6 tiles
    ((512, 512), "low", 85),         # low: the base alone, whatever the size
    ((4000, 3000), "low", 85),
    ((512, 512), "high", 255),       # never scaled up: one tile
    ((513, 100), "high", 425),       # two tiles wide
    ((1024, 1024), "auto", 765),     # auto is counted as high (the most it can bill)
])
def test_openai_tiles_follow_the_documented_examples(size, detail, tokens) -> None:
    assert openai_tile_tokens(*size, detail=detail) == tokens


def test_gpt_4o_mini_bills_the_same_tiles_at_other_rates_and_patch_models_by_32px_patches() -> None:
    assert openai_tile_tokens(1024, 1024, base=2833, tile=5667) == 2833 + 4 * 5667
    assert openai_patch_tokens(1024, 1024, multiplier=1.0) == 1024          # 32 x 32 patches
    assert openai_patch_tokens(1800, 2400, multiplier=1.0) == 1452          # scaled to 33 x 44 patches
    assert openai_patch_tokens(1800, 2400, multiplier=1.62) == 2353         # ceil(1452 * 1.62)
    assert openai_patch_tokens(100, 100, multiplier=2.46) == 40             # 4 x 4 patches x 2.46
    with pytest.raises(ValueError):
        openai_tile_tokens(0, 10)


def test_gemini_counts_258_per_small_image_else_per_768px_tile() -> None:
    assert gemini_image_tokens(384, 384) == 258
    assert gemini_image_tokens(385, 385) == 258       # larger, but one 768 tile covers it
    assert gemini_image_tokens(1024, 1024) == 4 * 258
    assert gemini_image_tokens(1536, 700) == 2 * 258


def test_each_provider_gets_its_own_rule_or_a_stated_reason(keys) -> None:
    one = (picture(1024, 1024),)
    assert image_tokens(OpenAIProvider("gpt-4o", api_keys=KEYS), one).tokens == 765
    assert image_tokens(OpenAIProvider("gpt-4o-2024-11-20", api_keys=KEYS), one).tokens == 765
    assert image_tokens(OpenAIProvider("gpt-4o-mini", api_keys=KEYS), one).tokens == 2833 + 4 * 5667
    assert image_tokens(OpenAIProvider("gpt-4.1-mini", api_keys=KEYS), one).tokens == 1659  # ceil(1024 * 1.62)
    assert image_tokens(SamplingProvider(OpenAIProvider("gpt-4o", api_keys=KEYS), n=3), one).tokens == 765
    assert image_tokens(GeminiProvider("gemini-2.0-flash", api_keys=KEYS), one).tokens == 1032
    local = image_tokens(OpenAIProvider("llava", api_keys=KEYS, base_url="http://127.0.0.1:9/v1"), one)
    assert local.tokens is None and local.basis == "this server documents no image billing"
    assert image_tokens(OpenAIProvider("some-future-model", api_keys=KEYS), one).tokens is None
    assert image_tokens(GeminiProvider("gemini-3-pro", api_keys=KEYS), one).tokens is None
    unknown = image_tokens(OpenAIProvider("gpt-4o", api_keys=KEYS), (ImagePart("grounding", "image/png", b"x"),))
    assert unknown.tokens is None and "size is unknown" in unknown.basis


def test_dry_run_adds_image_tokens_says_when_it_cannot_and_skips_judges_that_cannot_see(keys) -> None:
    spec = load_spec("factual-consistency")
    entries = [
        MemberSpec("openai", "gpt-4o", prompts=("fc-grounding-generated",)),
        MemberSpec("gemini", "gemini-2.0-flash", prompts=("fc-grounding-generated",)),
        MemberSpec("openai", "llava", base_url="http://127.0.0.1:9/v1", prompts=("fc-grounding-generated",)),
        MemberSpec("openai", "text-only", base_url="http://127.0.0.1:9/v1", prompts=("fc-grounding-generated",),
                   options={"vision": False}),
    ]
    members = build_members(entries, spec, providers=keys)
    items = [
        Item("pic", "1", {"grounding": "[attached image 1]", "generated_text": "A black square."},
             images=(picture(1024, 1024),)),
        Item("txt", "0", {"grounding": "The sky is green.", "generated_text": "The sky is blue."}),
    ]
    engine = make_engine(spec, members, cache=None, config=EngineConfig())
    text_only = estimate_run(make_engine(spec, members, cache=None, config=EngineConfig()), [items[1]], prices=None)
    estimate = estimate_run(engine, items, prices=None)
    rows = {r["member"].split("/")[0]: r for r in estimate["members"]}
    text = {r["member"].split("/")[0]: r["input_tokens"] for r in text_only["members"]}

    gpt, gemini, llava, blind = (rows[k] for k in ("openai:gpt-4o", "gemini:gemini-2.0-flash", "openai:llava",
                                                   "openai:text-only"))
    assert gpt["calls"] == gemini["calls"] == llava["calls"] == 2
    assert gpt["image_tokens"] == 765 and gemini["image_tokens"] == 1032
    pic_text = gpt["input_tokens"] - 765 - text["openai:gpt-4o"]  # the pictured prompt's own text tokens
    assert pic_text > 0 and gemini["input_tokens"] == text["gemini:gemini-2.0-flash"] + pic_text + 1032
    assert "image tokens: OpenAI tiles" in gpt["tokenizer"]
    assert llava["image_tokens"] is None
    assert llava["tokenizer"].endswith("image tokens: not counted (this server documents no image billing)")
    assert llava["input_tokens"] == text["openai:llava"] + pic_text  # text only: nothing invented
    assert (blind["calls"], blind["no_vision_items"]) == (1, 1)  # left out of the pictured item
    assert "image_tokens" not in text_only["members"][0]  # a text run's rows are as before
    console = Console(file=io.StringIO(), width=400)
    console.print(estimate_table(estimate))
    assert "image tokens: not counted (this server documents no image billing)" in console.file.getvalue()
