"""CLI behaviour that needs no server: bad options and an unreachable Label Studio fail cleanly, token unseen."""

from __future__ import annotations

from typer.testing import CliRunner

from stats_cli.cli import app
from tests.support.services import free_port

TOKEN = "t0ken-that-must-never-appear-0123456789ab"


def _run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, list(args), env=env or {})


def test_unreachable_label_studio_is_one_line_and_never_shows_the_token(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    env = {"LABEL_STUDIO_API_KEY": TOKEN, "LABEL_AUDIT_HOME": str(tmp_path)}
    result = _run("report", "--project", "3", "--url", url, "--no-progress", env=env)
    assert result.exit_code == 2 and "cannot reach Label Studio" in result.output
    result = _run("report", "--project", "3", "--url", url, "--token", TOKEN, env={"LABEL_AUDIT_HOME": str(tmp_path)})
    assert result.exit_code == 2 and TOKEN not in result.output


def test_bad_options_are_refused_before_any_request(tmp_path):
    env = {"LABEL_STUDIO_URL": "http://127.0.0.1:9", "LABEL_STUDIO_API_KEY": TOKEN}
    assert _run("report", "--project", "1", "--format", "pdf", env=env).exit_code == 2
    assert _run("report", "--project", "1", "--target-precision", "1.5", env=env).exit_code == 2
    assert _run("sync-gold", "--project", "1", env=env).exit_code == 2  # neither --out nor --to-labelstudio
    assert _run("sync-gold", "--project", "1", "--out", str(tmp_path / "g.txt"), env=env).exit_code == 2
    assert _run("sync-gold", "--project", "1", "--mode", "shuffle", "--out", "g.csv", env=env).exit_code == 2
    missing = _run("report", "--project", "1", env={"LABEL_STUDIO_URL": "", "LABEL_STUDIO_API_KEY": ""})
    assert missing.exit_code == 2 and "LABEL_STUDIO_URL" in missing.output
