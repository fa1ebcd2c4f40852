"""Data printed through rich prints as text: markup escaped, terminal controls neutralised."""

from __future__ import annotations

import io

import pytest
import typer
from rich.console import Console

from backend.common.cli_errors import fail
from backend.common.terminal_text import plain


@pytest.mark.parametrize("value", ["[/]", "[red]x[/red]", "a[b]c", "\\[x]", "[link=http://evil]x[/link]"])
def test_markup_in_data_prints_literally(value: str) -> None:
    buffer = io.StringIO()
    Console(file=buffer, width=200, color_system=None).print(f"id {plain(value)}")
    assert buffer.getvalue() == f"id {value}\n"


def test_escape_sequences_are_neutralised() -> None:
    dangerous = "x\x1b[2Jy\x1b]0;owned\x07z\x9b31m"
    cleaned = plain(dangerous)
    assert "\x1b" not in cleaned and "\x07" not in cleaned and "\x9b" not in cleaned
    assert cleaned.startswith("x?[2Jy?]0;owned?z")
    assert plain("tab\tand\nnewline") == "tab\tand\nnewline"


def test_fail_prints_the_message_as_text_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as stopped:
        fail("bad item [/] \x1b[2J")
    assert stopped.value.exit_code == 2
    assert "error: bad item [/] ?[2J" in capsys.readouterr().err
