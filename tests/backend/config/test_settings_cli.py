"""One set of run settings for every path: `label-audit score` resolves its options through the settings the
workers use, so the environment (``LABEL_AUDIT_*``) and the defaults apply to both alike.

The member is an OpenAI-protocol server that is not there (a real refused connection, one attempt): every
call fails at once, and the summary still says which settings the run used. No model is needed.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from backend.common import defaults
from backend.cli import app
from backend.scoring.ensemble import Quorum, flag_rule
from backend.labelstudio.labelconfig import label_config_for_spec
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig
from backend.task.spec import load_spec

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "backend" / "data" / "sample_relevance.jsonl"
GONE = "openai:m@http://127.0.0.1:9/v1"


def score_summary(tmp_path: Path, env: dict[str, str], *args: str) -> dict:
    summary = tmp_path / "s.json"
    result = CliRunner().invoke(app, ["score", str(SAMPLE), "--task", "relevance", "--summary-json", str(summary),
                                      "--cache-url", f"sqlite:///{tmp_path / 'c.sqlite'}", *args],
                                env={"LABEL_AUDIT_MEMBERS_FILE": "", **env})
    assert result.exit_code == 0, result.output
    return json.loads(summary.read_text())


def worker_flag_rule(env: dict[str, str]) -> str:
    """The rule a worker applies to a relevance project (backend/worker/jobs.py: the ensemble view's spec
    from the project's label config, the engine view's delta)."""
    settings = Settings.from_env(env)
    spec = EnsembleConfig.from_settings(settings).spec(label_config_for_spec(load_spec("relevance")))
    return flag_rule(spec, delta=settings.engine_config().delta).describe()


def test_score_takes_threshold_delta_quorum_members_and_attempts_from_the_environment(tmp_path):
    env = {"LABEL_AUDIT_THRESHOLD": "0.9", "LABEL_AUDIT_DELTA": "2", "LABEL_AUDIT_QUORUM": "1.0",
           "LABEL_AUDIT_QUORUM_MODELS": "false", "LABEL_AUDIT_MAX_ATTEMPTS": "1", "LABEL_AUDIT_MEMBERS": GONE}
    s = score_summary(tmp_path, env)
    assert (s["threshold"], s["delta"], s["quorum"]) == (0.9, 2, {"min_share": 1.0, "every_model": False})
    assert s["members"] and all(m.startswith("openai:m/") for m in s["members"])
    assert s["attempts"] == s["llm_calls"] > 0  # one try per call, the environment's (the default 5 makes 5 x)
    assert s["flag_rule"] == worker_flag_rule(env) == (
        "|prediction - original| > 2 or prediction and original on opposite sides of '2'")
    # an option still wins over the environment
    s = score_summary(tmp_path, env, "--threshold", "0.4", "--quorum", "0.5", "--quorum-models")
    assert (s["threshold"], s["quorum"]) == (0.4, {"min_share": 0.5, "every_model": True})


def test_a_boundary_rule_is_not_changed_by_a_default_delta_on_either_path(tmp_path):
    s = score_summary(tmp_path, {}, "--member", GONE, "--max-attempts", "1")
    assert s["delta"] is None and s["threshold"] == 0.2
    assert s["quorum"] == {"min_share": defaults.QUORUM_SHARE, "every_model": defaults.QUORUM_MODELS}
    assert s["flag_rule"] == worker_flag_rule({}) == "prediction and original on opposite sides of '2'"


def test_the_workers_engine_view_carries_the_quorum_of_the_environment():
    config = Settings.from_env({"LABEL_AUDIT_QUORUM": "0.75", "LABEL_AUDIT_QUORUM_MODELS": "no"}).engine_config()
    assert config.quorum == Quorum(min_share=0.75, every_model=False) and config.delta is None
    assert Settings.from_env({}).engine_config().quorum == Quorum()


def test_help_quotes_the_defaults_and_the_environment():
    text = " ".join(CliRunner().invoke(app, ["score", "--help"], env={"COLUMNS": "200"}).output.split())
    for part in (f"else {defaults.CONCURRENCY}", f"else {defaults.TIMEOUT:g}", f"else {defaults.MAX_ATTEMPTS}",
                 f"else {defaults.QUORUM_SHARE:g}", "$LABEL_AUDIT_THRESHOLD", "$LABEL_AUDIT_DELTA"):
        assert part in text, part
