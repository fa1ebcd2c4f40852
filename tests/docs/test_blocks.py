"""The docs test's own machinery, on small Markdown files: extraction, the convention, and the runner
(a broken command fails its block, exports carry over, background processes are stopped)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.docs.blocks import Action, Block, convention_errors, steps
from tests.docs.runner import Session, run_document

DOC = """# A doc

```bash
export GREETING=hello
```

1. A list item:
   ```bash
   test "$GREETING" = hello && echo "$GREETING world" > out.txt
   ```

<!-- docs-test: experts answer -->

```bash norun
docker compose up -d
```

```text
a picture
```
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(text)
    return path


def test_steps_in_order_with_indented_fences_and_actions(tmp_path):
    found = steps(_write(tmp_path, DOC))
    kinds = [(type(s).__name__, getattr(s, "info", getattr(s, "name", None))) for s in found]
    assert kinds == [("Block", "bash"), ("Block", "bash"), ("Action", "experts answer"),
                     ("Block", "bash norun"), ("Block", "text")]
    indented = found[1]
    assert isinstance(indented, Block) and indented.text.startswith("test ") and indented.line == 8
    assert [s.runnable for s in found if isinstance(s, Block)] == [True, True, False, False]


def test_convention_refuses_other_shell_fences_and_bare_commands(tmp_path):
    assert convention_errors(_write(tmp_path, DOC)) == []
    bad = "```sh\nls\n```\n\n```bash skip\nls\n```\n\n```\nlabel-audit score x.jsonl\n```\n<!-- docs-test: nap -->\n"
    errors = convention_errors(_write(tmp_path, bad))
    assert len(errors) == 4, errors
    assert "'sh'" in errors[0] and "'bash skip'" in errors[1] and "unlabelled" in errors[2] and "nap" in errors[3]


def test_runner_carries_exports_and_plays_actions(tmp_path):
    played = []
    session = Session(cwd=tmp_path, env=dict(os.environ), timeout=30)
    outcomes = run_document(_write(tmp_path, DOC), session, actions={"experts answer": lambda: played.append(1)})
    session.close()
    assert [o.ok for o in outcomes] == [True, True] and played == [1]
    assert (tmp_path / "out.txt").read_text() == "hello world\n"


def test_a_broken_command_fails_its_block_and_stops_the_document(tmp_path):
    doc = "```bash\necho before\nlabel-audit-no-such-command --help\necho after\n```\n\n```bash\necho next\n```\n"
    session = Session(cwd=tmp_path, env=dict(os.environ), timeout=30)
    outcomes = run_document(_write(tmp_path, doc), session, actions={})
    session.close()
    assert len(outcomes) == 1 and outcomes[0].returncode == 127
    assert "before" in outcomes[0].output and "after" not in outcomes[0].output


def test_timeout_and_background_processes_are_stopped(tmp_path):
    doc = "```bash\nsleep 300 &\necho $! > bg.pid\n```\n\n```bash\nsleep 300\n```\n"
    session = Session(cwd=tmp_path, env=dict(os.environ), timeout=2, secrets=("s3cret",))
    outcomes = run_document(_write(tmp_path, doc), session, actions={})
    assert outcomes[0].ok and outcomes[1].returncode is None  # the second block timed out
    pid = int((tmp_path / "bg.pid").read_text())
    session.close()
    time.sleep(0.2)
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1][:3]
    assert session.redact("token s3cret and my password is x") == "<a line naming a password, redacted>"
    assert session.redact("token s3cret") == "token <redacted>"
