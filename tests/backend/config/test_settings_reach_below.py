"""The settings once read deep below the edges still work end to end, now resolved at an edge and passed down.

Issue 32: the option orders, the calibration mode, the named negative class, the prompts folder, the named
judges' folder and the members' API keys are read by ``Settings.from_env`` only (a command, the web app
factory, a worker's start) and reach the spec's derivation, the templates and the providers as arguments
(``tests/architecture/test_settings_edge.py`` checks that nothing below reads the environment). Each test
sets one variable in the environment of an edge — ``label-audit`` run through typer's CliRunner, or a worker
resolving its settings at start — and sees its effect where it is used. The OpenAI-protocol member is a
server that is not there (one attempt, refused at once) or a local listener: no model is needed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest
from typer.testing import CliRunner

from backend.cli import app
from backend.common import defaults
from backend.config.settings import Settings
from backend.providers.model_verify import record_verified
from backend.providers.named_models import NAMED_MODELS
from backend.task.calibration_setting import calibration_of
from backend.task.option_orders import orders_of
from backend.task.spec import load_spec
from backend.worker import start
from backend.worker.ensemble_config import EnsembleConfig
from tests.backend.security.listener import Listener

GONE = "openai:m@http://127.0.0.1:9/v1"
CONFIG = ('<View><Text name="t" value="$text"/><Choices name="c" toName="t"><Choice value="spam"/>'
          '<Choice value="ham"/><Choice value="other"/></Choices></View>')
ITEMS = [{"id": "1", "text": "free money now", "label": "spam"}, {"id": "2", "text": "see you at lunch", "label": "ham"}]
#: The variables under test, unset unless a test sets one (None removes it from the command's environment).
UNSET: dict[str, str | None] = {name: None for name in (
    "LABEL_AUDIT_OPTION_ORDERS", "LABEL_AUDIT_CALIBRATION", "LABEL_AUDIT_NEGATIVE_LABEL", "LABEL_AUDIT_PROMPTS",
    "LABEL_AUDIT_MODELS_DIR", "OPENAI_API_KEY", "MY_SERVER_KEY", "LABEL_AUDIT_PRIOR_CORRECTION")}
#: One template for the generic prompts (what a deployment's own prompts folder could hold).
TEMPLATE = "id: only\nversion: 3\n---\n{data_notice}\n{inputs}\n{question}\n{options}\nAnswer with {option_tokens}.\nAnswer: "


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    data, config = tmp_path / "items.jsonl", tmp_path / "config.xml"
    data.write_text("".join(json.dumps(item) + "\n" for item in ITEMS))
    config.write_text(CONFIG)
    return data, config


def score(tmp_path: Path, files: tuple[Path, Path], env: dict[str, str], *args: str) -> dict[str, Any]:
    """`label-audit score` of the items with the label config, in ``env``; its summary."""
    data, config = files
    summary = tmp_path / "summary.json"
    summary.unlink(missing_ok=True)
    result = CliRunner().invoke(app, ["score", str(data), "--label-config", str(config), "--summary-json",
                                      str(summary), "--no-cache", *args],
                                env={**UNSET, "LABEL_AUDIT_MEMBERS_FILE": None, "LABEL_AUDIT_MEMBERS": GONE,
                                     "LABEL_AUDIT_MAX_ATTEMPTS": "1", **env})
    assert result.exit_code == 0, result.output
    return json.loads(summary.read_text())


def calls_per_member(summary: dict[str, Any]) -> set[int]:
    return {row["calls"] for row in summary["dry_run"]["members"]}


@pytest.fixture()
def worker(monkeypatch: pytest.MonkeyPatch) -> Callable[..., EnsembleConfig]:
    """A worker starting in an environment with the given variables: the ensemble view of the settings it resolves."""
    def started(**env: str) -> EnsembleConfig:
        for name in UNSET:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("LABEL_AUDIT_MEMBERS", GONE)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(start, "_SETTINGS", [])  # a fresh worker process
        return EnsembleConfig.from_settings(start.worker_settings())

    return started


def test_option_orders_reach_the_spec_of_score_and_of_a_worker(tmp_path, files, worker) -> None:
    assert defaults.OPTION_ORDERS == 2  # the default asks twice; the environment's 1 asks once
    assert calls_per_member(score(tmp_path, files, {}, "--dry-run")) == {2 * len(ITEMS)}
    assert calls_per_member(score(tmp_path, files, {"LABEL_AUDIT_OPTION_ORDERS": "1"}, "--dry-run")) == {len(ITEMS)}
    assert calls_per_member(score(tmp_path, files, {"LABEL_AUDIT_OPTION_ORDERS": "1"}, "--dry-run",
                                  "--option-orders", "2")) == {2 * len(ITEMS)}  # the option over the environment
    plain = worker().spec(CONFIG)
    config = worker(LABEL_AUDIT_OPTION_ORDERS="1")
    spec = config.spec(CONFIG)
    assert orders_of(plain) == 2 and orders_of(spec) == 1
    assert config.model_version(spec) != config.model_version(plain)
    web = EnsembleConfig(Settings.from_env())  # the web backend, resolving the same environment
    assert web.spec(CONFIG) == spec and web.model_version(web.spec(CONFIG)) == config.model_version(spec)


def test_the_calibration_mode_reaches_the_spec_of_score_and_of_a_worker(tmp_path, files, worker) -> None:
    plain = score(tmp_path, files, {})["model_version"]
    assert score(tmp_path, files, {"LABEL_AUDIT_CALIBRATION": "content-free"})["model_version"] != plain
    assert calibration_of(worker().spec(CONFIG)) == "none"
    assert calibration_of(worker(LABEL_AUDIT_CALIBRATION="content-free").spec(CONFIG)) == "content-free"


def test_the_named_negative_class_reaches_a_workers_spec(worker) -> None:
    assert worker().spec(CONFIG).negative_label == ""
    config = worker(LABEL_AUDIT_NEGATIVE_LABEL="ham")
    assert config.spec(CONFIG).negative_label == "ham"
    assert config.settings.spec_options()["named_negative"] == "ham"  # what the review and the report derive with


def test_the_prompts_folder_reaches_the_members_of_score_and_of_a_worker(tmp_path, files, worker) -> None:
    prompts = tmp_path / "prompts"
    (prompts / "generic").mkdir(parents=True)
    (prompts / "generic" / "only.txt").write_text(TEMPLATE)
    shipped = score(tmp_path, files, {})["members"]
    assert len(shipped) > 1 and "openai:m/only@v3" not in shipped
    assert score(tmp_path, files, {"LABEL_AUDIT_PROMPTS": str(prompts)})["members"] == ["openai:m/only@v3"]
    config = worker(LABEL_AUDIT_PROMPTS=str(prompts))
    spec = config.spec(CONFIG)
    assert [m.id for m in config.build(spec)] == ["openai:m/only@v3"]
    assert config.model_version(spec) != worker().model_version(spec)


def test_the_models_folder_reaches_judge_list_and_a_workers_judge(tmp_path, worker) -> None:
    model = NAMED_MODELS["qwen2.5-coder-1.5b"]
    folder = tmp_path / "models"
    folder.mkdir()
    with (folder / model.file_name).open("wb") as handle:
        handle.truncate(model.size)  # sparse: no disk used
    record_verified(folder / model.file_name, model.sha256)  # as the installer leaves it (the hash is not read)
    listed = CliRunner().invoke(app, ["judge", "list"], env={"LABEL_AUDIT_MODELS_DIR": str(folder)})
    assert listed.exit_code == 0 and f"models folder: {folder}" in listed.output
    assert f"local:{model.name}" in listed.output and "not installed" not in listed.output
    config = worker(LABEL_AUDIT_MODELS_DIR=str(folder), LABEL_AUDIT_MEMBERS=f"local:{model.name}")
    (member, *_) = config.build(load_spec("factual-consistency"))
    assert member.provider.path == folder / model.file_name


def test_a_members_named_key_and_the_default_key_reach_the_provider(tmp_path, files) -> None:
    members = tmp_path / "members.yaml"
    with Listener(status=400) as listener:
        members.write_text(f"- {{provider: openai, model: m, base_url: '{listener.url}/v1', "
                           "options: {api_key_env: MY_SERVER_KEY}}\n")
        score(tmp_path, files, {"MY_SERVER_KEY": "own-key-0123456789", "LABEL_AUDIT_MEMBERS": None},
              "--members", str(members))
    sent = [value for r in listener.requests for name, value in r["headers"].items() if name.lower() == "authorization"]
    assert sent and set(sent) == {"Bearer own-key-0123456789"}
    # the default key of the cloud member: present in the environment, the member is built; absent, it is refused
    cloud = {"LABEL_AUDIT_MEMBERS": "openai:gpt-4o-mini"}
    assert score(tmp_path, files, {**cloud, "OPENAI_API_KEY": "sk-never-sent-0123456789"}, "--dry-run")["dry_run"]
    data, config = files
    refused = CliRunner().invoke(app, ["score", str(data), "--label-config", str(config), "--dry-run", "--no-cache"],
                                 env={**UNSET, "LABEL_AUDIT_MEMBERS_FILE": None, **cloud})
    assert refused.exit_code == 2 and "OPENAI_API_KEY" in refused.output


def test_the_prior_correction_reaches_score_from_the_environment_and_the_option(tmp_path, files):
    assert score(tmp_path, files, {})["prior_correction"]["mode"] == defaults.PRIOR_CORRECTION == "auto"
    assert score(tmp_path, files, {"LABEL_AUDIT_PRIOR_CORRECTION": "fitted"})["prior_correction"]["mode"] == "fitted"
    assert score(tmp_path, files, {"LABEL_AUDIT_PRIOR_CORRECTION": "em"})["prior_correction"]["mode"] == "em"
    assert score(tmp_path, files, {"LABEL_AUDIT_PRIOR_CORRECTION": "auto"})["prior_correction"]["mode"] == "auto"
    over = score(tmp_path, files, {"LABEL_AUDIT_PRIOR_CORRECTION": "em"}, "--prior-correction", "batch")
    assert over["prior_correction"]["mode"] == "batch"
    bad = CliRunner().invoke(app, ["score", str(files[0]), "--label-config", str(files[1]), "--no-cache",
                                   "--prior-correction", "sometimes"], env={**UNSET, "LABEL_AUDIT_MEMBERS": GONE})
    assert bad.exit_code != 0 and "prior correction must be one of none, em, batch" in bad.output
