"""`eval "$(label-audit demo --env)"` gives a command everything it needs to work on the demo.

The demo's home is laid out by :mod:`backend.demo.home`'s own functions (secrets, state, the expert map), in
a folder whose name holds a space and a quote, so the shell quoting is exercised. The last test points that
home's source instance at the session's real Label Studio and runs `label-audit review status` and
`audit-stats report` after the eval, as a user would after the demo.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from backend.demo.home import (EXPERT_INSTANCES, DemoHome, load_secrets, save_state, write_expert_instances)
from backend.common.private_files import write_private_json

REPO = Path(__file__).resolve().parents[3]
NAMES = ("LABEL_AUDIT_HOME", "LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY", "DATABASE_URL", "REDIS_URL",
         "LABEL_AUDIT_QUEUE", "LABEL_AUDIT_EXPERT_INSTANCES", "LABEL_AUDIT_REVIEW_URL", "LABEL_AUDIT_REVIEW_API_KEY")
# What a command sees after the eval: its settings and the expert map, read by the product's own readers.
SEEN = """
import json
from backend.labelstudio.expert_instances import expert_instances
from backend.config.settings import Settings
s = Settings.from_env()
experts = expert_instances(s)
print(json.dumps({"ls": s.label_studio_url, "db": s.database_url, "redis": s.redis_url, "queue": s.queue,
                  "home": str(s.home), "experts": {e: c.url for e, c in experts.items()}}))
"""


def lay_out_demo(parent: Path, *, source_port: int = 18080) -> DemoHome:
    """A demo home as a first run leaves it: secrets, state and the expert map (no process started)."""
    home = DemoHome.at(parent)
    keys = load_secrets(home)
    ports = {"source": source_port, "expert-a": 18081, "expert-b": 18082, "reconcile": 18083, "backend": 19090,
             "redis": 16379}
    save_state(home, {"ports": ports, "queue": f"label-audit-demo-{secrets.token_hex(4)}", "project": 1})
    write_expert_instances(home, {n: f"http://127.0.0.1:{ports[n]}" for n in EXPERT_INSTANCES}, keys)
    return home


def in_shell(parent: Path, then: str, *, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``eval "$(label-audit demo --env --home PARENT)"`` in bash, then ``then``; the variables start unset."""
    env = {k: v for k, v in os.environ.items() if k not in NAMES}
    env.update({"PYTHONPATH": str(REPO), "PY": sys.executable, "DEMO_PARENT": str(parent), **(env_extra or {})})
    script = f'set -e\neval "$("$PY" -m backend.cli demo --env --home "$DEMO_PARENT")"\n{then}'
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=300, cwd=REPO)


def fresh_shell(parent: Path, then: str) -> subprocess.CompletedProcess:
    """A new shell that never activated the venv (PATH: the system's only) runs the demo's printed eval line,
    then ``then`` as the demo prints it (bare ``label-audit`` / ``audit-stats``)."""
    cli = Path(sys.executable).parent / "label-audit"
    env = {k: v for k, v in os.environ.items() if k not in NAMES and k not in ("VIRTUAL_ENV", "PATH")}
    env.update({"PYTHONPATH": str(REPO), "PATH": "/usr/local/bin:/usr/bin:/bin"})
    script = f'set -e\neval "$({shlex.quote(str(cli))} demo --env --home {shlex.quote(str(parent))})"\n{then}'
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=300, cwd=parent)


def test_the_eval_puts_the_commands_on_the_path_of_a_fresh_shell(tmp_path):
    """What the demo's closing lines print works in a new terminal: no venv activated, bare command names."""
    if not (Path(sys.executable).parent / "label-audit").is_file():
        pytest.skip("the tests run outside the project's venv: its commands are not installed beside python")
    parent = tmp_path / "my demo's home"
    lay_out_demo(parent)
    before = subprocess.run(["bash", "-c", "command -v label-audit"], capture_output=True, text=True,
                            env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    assert before.returncode != 0  # the fresh shell finds no label-audit of its own
    proc = fresh_shell(parent, "command -v label-audit\ncommand -v audit-stats\nlabel-audit --help >/dev/null\n"
                               "audit-stats --help >/dev/null")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == [str(Path(sys.executable).parent / n) for n in ("label-audit", "audit-stats")]


def same(a: str | None, b: str) -> bool:
    """Compare a secret without pytest printing it on failure."""
    return a is not None and secrets.compare_digest(a, b)


def test_eval_sets_what_a_command_reads(tmp_path):
    parent = tmp_path / "my demo's home"
    home = lay_out_demo(parent)
    dump = f"import json, os; print(json.dumps({{k: os.environ.get(k) for k in {list(NAMES)!r}}}))"
    proc = in_shell(parent, '"$PY" -c "$DUMP"\n"$PY" -c "$SEEN"', env_extra={"DUMP": dump, "SEEN": SEEN})
    assert proc.returncode == 0, proc.stderr[-2000:]
    exported, seen = (json.loads(line) for line in proc.stdout.strip().splitlines())
    keys = json.loads((home.root / "secrets.json").read_text())
    state = json.loads((home.root / "state.json").read_text())
    assert exported["LABEL_STUDIO_URL"] == seen["ls"] == "http://127.0.0.1:18080"
    assert same(exported["LABEL_STUDIO_API_KEY"], keys["source"]["token"])
    assert exported["DATABASE_URL"] == seen["db"] == home.database_url
    assert exported["REDIS_URL"] == seen["redis"] == "redis://127.0.0.1:16379/0"
    assert exported["LABEL_AUDIT_QUEUE"] == seen["queue"] == state["queue"]
    assert Path(exported["LABEL_AUDIT_HOME"]) == Path(seen["home"]) == home.root.parent  # `demo --stop` finds it
    assert exported["LABEL_AUDIT_EXPERT_INSTANCES"] == str(home.root / "expert-instances.json")
    assert seen["experts"] == {EXPERT_INSTANCES[n]: f"http://127.0.0.1:{p}" for n, p in
                               (("expert-a", 18081), ("expert-b", 18082))}
    assert exported["LABEL_AUDIT_REVIEW_URL"] is None  # no reconciliation instance yet
    assert "not running" in proc.stderr  # nothing was started: the command says so, on stderr


def test_reconciliation_instance_is_named_once_it_exists(tmp_path):
    home = lay_out_demo(tmp_path)
    home.ls_data("reconcile").mkdir(parents=True)
    proc = in_shell(tmp_path, '"$PY" -c \'import os; print(os.environ["LABEL_AUDIT_REVIEW_URL"]); '
                              'print(os.environ["LABEL_AUDIT_REVIEW_API_KEY"])\'')
    assert proc.returncode == 0, proc.stderr[-2000:]
    url, token = proc.stdout.split()
    assert url == "http://127.0.0.1:18083"
    assert same(token, json.loads((home.root / "secrets.json").read_text())["reconcile"]["token"])


def test_secrets_readable_by_others_are_refused(tmp_path):
    home = lay_out_demo(tmp_path)
    (home.root / "secrets.json").chmod(0o644)
    token = json.loads((home.root / "secrets.json").read_text())["source"]["token"]
    proc = subprocess.run([sys.executable, "-m", "backend.cli", "demo", "--env", "--home", str(tmp_path)],
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "readable by other users" in proc.stderr and "chmod 600" in proc.stderr
    assert token not in proc.stderr


def test_no_demo_is_one_error_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "backend.cli", "demo", "--env", "--home", str(tmp_path)],
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "no demo in" in proc.stderr and "label-audit demo --labelstudio" in proc.stderr
    assert not (tmp_path / "demo" / "secrets.json").exists()  # --env never creates a secret


@pytest.mark.labelstudio
def test_commands_work_on_the_demo_after_the_eval(tmp_path, label_studio):
    """The demo's source instance is the session's real Label Studio here; the commands reach it by the eval."""
    home = lay_out_demo(tmp_path, source_port=int(label_studio.url.rsplit(":", 1)[1]))
    keys = load_secrets(home)
    keys["source"]["token"] = label_studio.token
    write_private_json(home.root / "secrets.json", keys)
    config = ('<View><Text name="text" value="$text"/><Choices name="sentiment" toName="text">'
              '<Choice value="Positive"/><Choice value="Negative"/></Choices></View>')
    project, _ = label_studio.create_project(config, [{"text": "Great."}, {"text": "Broken."}], title="demo env")
    # as the demo prints them, in a new shell: the eval line first, then the bare commands
    proc = fresh_shell(tmp_path, f'label-audit review status --project {project} --json\n'
                                 f'audit-stats report --project {project} --format json --no-progress')
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert label_studio.token not in proc.stdout + proc.stderr
    decoder = json.JSONDecoder()
    status, end = decoder.raw_decode(proc.stdout.lstrip())
    report, _ = decoder.raw_decode(proc.stdout.lstrip()[end:].lstrip())
    assert status["items"] == 0 and status["progress"] == []  # nothing pushed to the review yet
    assert report["project"] == str(project)
    assert sorted(report["meta"]["labels"]) == ["Negative", "Positive"]  # read from the project's label config
    assert (home.root / "audit.sqlite").exists()  # the ledger the commands opened is the demo's
    bare = {k: v for k, v in os.environ.items() if k not in NAMES}
    without = subprocess.run([sys.executable, "-m", "backend.cli", "review", "status", "--project", str(project)],
                             env={**bare, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, cwd=tmp_path)
    assert without.returncode != 0  # without the eval the same command finds no Label Studio
