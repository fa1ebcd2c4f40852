"""Price files: the example loads, bad entries are refused with their position, nothing is invented."""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.costs.accounting import Accountant, token_counts
from backend.costs.prices import load_prices
from backend.scoring.results import ErrorInfo, ItemResult, MemberResult

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "prices.example.yaml"


def test_example_price_file_loads_with_its_date():
    table = load_prices(EXAMPLE)
    assert table.as_of and table.find("openai", "gpt-4o-mini").input_per_million > 0
    assert table.find("openai", "no-such-model") is None
    assert table.order_key("local", "smollm2") < table.order_key("openai", "gpt-4o") < table.order_key("x", "y")


@pytest.mark.parametrize("text, message", [
    ("- {provider: a, model: b, input_per_million: 1}", "missing output_per_million"),
    ("- {provider: a, model: b, input_per_million: -1, output_per_million: 1}", "non-negative"),
    ("- {provider: a, model: b, input_per_million: x, output_per_million: 1}", "numbers"),
    ("- {provider: a, model: b, input_per_million: 1, output_per_million: 1}\n"
     "- {provider: a, model: b, input_per_million: 2, output_per_million: 1}", "entry 2: a:b is priced twice"),
    ("prices: 3", "a list of entries"),
])
def test_bad_price_files_are_refused_with_the_entry(tmp_path, text, message):
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_prices(path)


def test_usage_fields_of_each_provider_map_to_input_and_output_tokens():
    assert token_counts({"prompt_tokens": 187, "completion_tokens": 2, "total_tokens": 189}) == (187, 2)  # OpenAI
    assert token_counts({"prompt_token_count": 164, "candidates_token_count": 2}) == (164, 2)  # Gemini
    assert token_counts({"prompt_tokens": 90}) == (90, 0)  # in-process model: no generated token
    assert token_counts({"samples": 8, "samples_with_label": 5}) is None and token_counts(None) is None


def test_cost_is_unknown_rather_than_low_when_a_call_has_no_token_count(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("- {provider: openai, model: m, input_per_million: 1000000, output_per_million: 2000000}")
    acc = Accountant(load_prices(path), ["openai:m/t@v1", "gemini:g/t@v1"])
    counted = MemberResult("openai:m/t@v1", probs={"0": 1.0}, usage={"prompt_tokens": 3, "completion_tokens": 1},
                           latency_s=0.5)
    acc.add(ItemResult("a", "0", "0", 1.0, None, False, members=(counted, MemberResult("gemini:g/t@v1", error=ErrorInfo("timeout", True)))))
    out = acc.to_dict()
    first, second = out["members"]
    assert first["cost_usd"] == pytest.approx(5.0) and first["latency_median_s"] == 0.5
    assert second["cost_usd"] is None and "no price" in second["cost_basis"] and second["errors"] == 1
    assert out["cost_usd_total"] is None  # one member without a price: no total pretending to be complete
    acc.add(ItemResult("b", "0", "0", 1.0, None, False, members=(MemberResult("openai:m/t@v1", probs={"0": 1.0}),)))
    assert acc.to_dict()["members"][0]["cost_usd"] is None  # a call without usage: cost unknown, not low


def test_cli_refuses_a_cap_it_cannot_price(tmp_path):
    """--max-cost needs a price for every model before any call; the message names what is missing."""
    from typer.testing import CliRunner

    from backend.cli import app

    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "grounding": "g", "generated_text": "t", "label": 1}\n')
    runner = CliRunner()
    no_prices = runner.invoke(app, ["score", str(data), "--task", "factual-consistency", "--max-cost", "1",
                                    "--member", "openai:m@http://127.0.0.1:9/v1", "--no-cache"])
    assert no_prices.exit_code == 2 and "--max-cost needs --prices" in no_prices.output
    unpriced = runner.invoke(app, ["score", str(data), "--task", "factual-consistency", "--max-cost", "1",
                                   "--prices", str(EXAMPLE), "--member", "openai:m@http://127.0.0.1:9/v1",
                                   "--no-cache"])
    assert unpriced.exit_code == 2 and "openai:m" in unpriced.output
