"""`label-audit demo --judge NAME`: refused before anything starts when the judge is missing; the time estimate."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from backend.cli import app
from backend.demo.judge import (DEFAULT_JUDGE, ensure_judge, install_estimate, judge_member, judge_note, left_out,
                                require_judge, time_estimate)
from backend.providers.named_models import NAMED_MODELS, installed_path

NAME = "qwen2.5-coder-1.5b"


def test_a_judge_that_is_not_installed_stops_the_file_demo_before_it_starts(tmp_path: Path) -> None:
    """The file demo never downloads (the Label Studio demo installs its judge: test_the_install_step_...)."""
    env = {"LABEL_AUDIT_MODELS_DIR": str(tmp_path / "models"), "LABEL_AUDIT_HOME": str(tmp_path / "home")}
    result = CliRunner().invoke(app, ["demo", "--judge", NAME, "--home", str(tmp_path / "home")], env=env)
    assert result.exit_code == 2, result.output
    assert f"bash scripts/install_judge.sh {NAME}" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "home").exists()  # no service, folder or download was started
    assert not (tmp_path / "models").exists()


def test_an_unknown_judge_is_refused() -> None:
    result = CliRunner().invoke(app, ["demo", "--judge", "gpt-17"])
    assert result.exit_code == 2 and "unknown named model 'gpt-17'" in result.output
    with pytest.raises(ValueError):
        require_judge("gpt-17")
    require_judge(None)  # the embedded judge needs no install step


def test_the_estimate_is_items_times_prompts_times_the_measured_seconds() -> None:
    model = NAMED_MODELS[NAME]
    text = time_estimate(NAME, items=24, prompts=4)
    assert "24 items x 4 prompts = 96 calls" in text
    assert f"about {96 * model.seconds_per_call / 60:.0f} min" in text and model.measured_on in text
    assert time_estimate(NAME, items=48, prompts=4) != text
    note = judge_note(NAME, items=24, prompts=4)
    assert note.startswith(f"The judge is local:{NAME}") and model.licence in note and text in note
    twice = time_estimate(NAME, items=24, prompts=4, orders=2)  # a lettered task asked in two option orders
    assert "24 items x 4 prompts x 2 option orders = 192 calls" in twice


def test_the_member_is_the_named_judge_or_the_embedded_default() -> None:
    assert judge_member(NAME) == f"local:{NAME}"
    assert judge_member(None) == "local:smollm2"


def test_the_install_step_falls_back_to_the_embedded_judge_and_says_why(tmp_path: Path) -> None:
    """A models folder that cannot be made (here: under a file) stands for a disk the model cannot reach: the
    demo is told why, and gets no judge (the embedded one stands in); nothing is downloaded."""
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    said: list[str] = []
    judge, why = ensure_judge(DEFAULT_JUDGE, folder=blocker / "models", say=said.append)
    assert judge is None and why is not None
    assert why.startswith(f"the judge local:{DEFAULT_JUDGE} could not be installed") and str(blocker) in why
    assert not list(tmp_path.glob("**/*.whl"))


def test_the_install_step_checks_an_installed_judge_and_says_so() -> None:
    try:
        path = installed_path(DEFAULT_JUDGE)
    except FileNotFoundError:
        pytest.skip(f"local:{DEFAULT_JUDGE} is not installed here (1.1 GB: the tests never download it)")
    said: list[str] = []
    parts: list[tuple[int, int]] = []
    judge, why = ensure_judge(DEFAULT_JUDGE, folder=path.parent, say=said.append, on_part=lambda d, t: parts.append((d, t)))
    assert (judge, why) == (DEFAULT_JUDGE, None)
    assert said[-1].startswith(f"Judge local:{DEFAULT_JUDGE}: verified (size and SHA-256)")
    assert parts[-1] == (len(NAMED_MODELS[DEFAULT_JUDGE].parts),) * 2  # the progress bar ends full


def test_the_install_estimate_is_said_before_it_starts() -> None:
    text = install_estimate(DEFAULT_JUDGE)
    assert "1.12 GB in 22 parts" in text and "SHA-256" in text and "measured" in text


def test_the_demo_leaves_out_the_real_judges_collapsed_prompt_and_counts_the_rest() -> None:
    from backend.commands.demo_ls import _judge_note
    from backend.config.settings import Settings

    assert left_out(None) == ""  # the embedded judge keeps every prompt
    assert left_out(DEFAULT_JUDGE) == f"local:{DEFAULT_JUDGE}/fc-grounding-generated"
    settings = Settings.from_env({"LABEL_AUDIT_MEMBERS": f"local:{DEFAULT_JUDGE}",
                                  "LABEL_AUDIT_EXCLUDE_MEMBERS": left_out(DEFAULT_JUDGE)})
    assert settings.members[0].exclude == ("fc-grounding-generated",)
    assert "32 items x 3 prompts = 96 calls" in _judge_note(DEFAULT_JUDGE)


def test_the_ticket_workers_settings_do_not_inherit_the_judges_left_out_prompts() -> None:
    """The tickets' worker has the confident-learning member only: the judge's exclusion names a model it lacks
    (this stopped the demo's second project with 'the ensemble has no model')."""
    from backend.config.settings import Settings
    from backend.demo import confident

    env = {"LABEL_AUDIT_MEMBERS": judge_member(DEFAULT_JUDGE), "LABEL_AUDIT_EXCLUDE_MEMBERS": left_out(DEFAULT_JUDGE)}
    settings = Settings.from_env(confident.worker_env(env, "tickets"))
    assert [(m.provider, m.model) for m in settings.members] == [("cleanlab", "tfidf-logreg")]
