"""Every ```bash block of README.md and docs/*.md runs as written, against real services.

README.md runs first (a new user's path: services, connect, audit, review, report, sync), then each
docs/*.md. The blocks run in a sandbox that mirrors the checkout (symlinks, so outputs stay out of it),
with the environment README's "Say where things are" step asks the reader for: the session's Label
Studio (``LABEL_STUDIO_URL``/``_API_KEY``), the shared review instance (``LABEL_AUDIT_REVIEW_URL``/``_API_KEY``,
for the reconciliation round), each expert's own review instance (``ANA_REVIEW_URL``/``_API_KEY``,
``BEN_REVIEW_URL``/``_API_KEY``: two more Label Studios, sign-up closed, started here), ``PROJECT`` (a small sentiment project of the reader's own, with instructions and original labels), a
fresh PostgreSQL ledger (``DATABASE_URL``; SQLite when PostgreSQL is absent locally), Redis and a queue of
its own (``LABEL_AUDIT_QUEUE``). No cloud key is set: the judges are the embedded model. Where the text says
the experts label (``<!-- docs-test: experts answer -->``), the test answers as each expert, on that
expert's own instance.
"""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import pytest

from tests.docs.blocks import convention_errors, documents
from tests.docs.runner import Outcome, Session, run_document
from tests.support.labelstudio import LabelStudioServer, start_label_studio
from tests.support.services import PG_ADMIN_URL, missing_service, port_open

pytestmark = [pytest.mark.labelstudio, pytest.mark.redis, pytest.mark.llm, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[1]
DOCS = documents(REPO)
EXPERTS = ("ANA", "BEN")  # README's ana@lab.org and ben@lab.org: the variable prefix of each one's instance
DOCUMENTED_PORTS = {9090: "README's ML backend", 8000: "docs/reference.md's llama_cpp.server"}
SKIP_IN_SANDBOX = {".git", ".label-audit", "artifacts", ".pytest_cache"}
# Label Studio's *Sentiment Analysis* template (three choices), the one README names.
CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text" choice="single-radio" showInLine="true">
    <Choice value="Positive"/>
    <Choice value="Negative"/>
    <Choice value="Neutral"/>
  </Choices>
</View>"""
INSTRUCTIONS = "<p>Positive: the reviewer likes the product. Negative: the reviewer does not.</p>"
REVIEWS = [("Great battery, I use it every day.", "Negative"), ("It broke after one week.", "Positive"),
           ("Exactly what I wanted, thank you.", "Positive"), ("Terrible support, never again.", "Negative")]


def _choice(label: str) -> list[dict]:
    return [{"from_name": "sentiment", "to_name": "text", "type": "choices", "value": {"choices": [label]}}]


@pytest.fixture(scope="module")
def ledger_url(tmp_path_factory) -> Iterator[str]:
    """A fresh PostgreSQL database for the ledger (SQLite when no PostgreSQL answers, locally)."""
    if not port_open("127.0.0.1", 5432):
        yield f"sqlite:///{tmp_path_factory.mktemp('docs-ledger') / 'audit.sqlite'}"
        return
    import psycopg

    name = f"la_docs_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def expert_ls(label_studio) -> Iterator[dict[str, LabelStudioServer]]:
    """Each expert's own Label Studio (sign-up closed, as README's step 0 starts them), started in parallel.

    ``label_studio`` first: the session's instance is then up, so only these two start concurrently.
    """
    with tempfile.TemporaryDirectory(prefix="la-docs-experts-") as tmp, ThreadPoolExecutor(len(EXPERTS)) as pool:
        started = list(pool.map(lambda name: start_label_studio(Path(tmp) / name.lower()), EXPERTS))
        try:
            yield dict(zip(EXPERTS, started))
        finally:
            for server in started:
                server.process.stop()


@pytest.fixture(scope="module")
def reader_env(label_studio, review_ls, expert_ls, redis_url, ledger_url, smollm2_path) -> dict[str, str]:
    """What a reader has after README's install and its "Say where things are" step."""
    for port, what in DOCUMENTED_PORTS.items():
        if port_open("127.0.0.1", port):  # another server there would answer the documented commands
            missing_service(f"a free port {port} ({what}; something else listens there)")
    tasks = [{"data": {"text": text}, "annotations": [{"result": _choice(label)}]} for text, label in REVIEWS]
    project, _ = label_studio.create_project(CONFIG, tasks, title="docs: my reviews",
                                             expert_instruction=INSTRUCTIONS, show_instruction=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LABEL_AUDIT_", "LABEL_STUDIO_", "OPENAI", "GEMINI", "GOOGLE_API"))
           and k not in ("DATABASE_URL", "REDIS_URL", "PROJECT", "PYTEST_CURRENT_TEST")}
    experts = {f"{name}_REVIEW_{key}": value for name, ls in expert_ls.items()
               for key, value in (("URL", ls.url), ("API_KEY", ls.token))}
    return {**env, **experts, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            "PYTHONPATH": str(REPO), "COLUMNS": "120",
            "LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token,
            "LABEL_AUDIT_REVIEW_URL": review_ls.url, "LABEL_AUDIT_REVIEW_API_KEY": review_ls.token,
            "PROJECT": str(project), "DATABASE_URL": ledger_url, "REDIS_URL": redis_url,
            "LABEL_AUDIT_QUEUE": f"docs-{uuid.uuid4().hex[:8]}",
            # The tests' tiny judge answers near one third on the three-choice template README audits: at the nominal
            # default 0.45 it flags nothing and the review README walks through would be empty. The setting reaches
            # the worker and every command alike (the generic-projects module does the same for two classes).
            "LABEL_AUDIT_THRESHOLD": "0.4"}


def sandbox(base: Path) -> Path:
    """A directory that looks like the checkout (each top-level entry a symlink): outputs land here."""
    base.mkdir(parents=True)
    for entry in REPO.iterdir():
        if entry.name not in SKIP_IN_SANDBOX:
            (base / entry.name).symlink_to(entry)
    return base


def experts_answer(env: dict[str, str], expert_ls: dict[str, LabelStudioServer]) -> None:
    """Each expert labels every task of their project on their own instance; the second disagrees on the first.

    A round-1 project on any other instance (the shared one) fails here: README gives each expert their own.
    """
    from backend.labelstudio.client import iter_tasks
    from backend.review.review_store import ROUND_REVIEW, ReviewStore

    by_url = {ls.url.rstrip("/"): ls for ls in expert_ls.values()}
    store = ReviewStore(env["DATABASE_URL"])
    projects = sorted(store.projects(env["PROJECT"], round=ROUND_REVIEW), key=lambda p: p.expert)
    assert len(projects) == len(EXPERTS) and len({p.instance for p in projects}) == len(EXPERTS), projects
    for index, project in enumerate(projects):
        ls = by_url[(project.instance or "").rstrip("/")]
        for n, task in enumerate(iter_tasks(ls.client, project.ls_project_id, with_annotations=True)):
            if not task.annotations:
                label = "Negative" if index == 1 and n == 0 else "Positive"
                ls.client.annotations.create(id=task.id, result=_choice(label), completed_by=project.expert_user_id)


def run(path: Path, env: dict[str, str], expert_ls: dict[str, LabelStudioServer], cwd: Path) -> list[Outcome]:
    tokens = (env["LABEL_STUDIO_API_KEY"], env["LABEL_AUDIT_REVIEW_API_KEY"], *(ls.token for ls in expert_ls.values()))
    session = Session(cwd=sandbox(cwd), env=env, timeout=300.0, secrets=tokens)
    try:
        return run_document(path, session, actions={"experts answer": lambda: experts_answer(env, expert_ls)})
    finally:
        session.close()


def report(outcomes: list[Outcome]) -> str:
    """The failing block and the tail of its output; the time every block took."""
    lines = [f"{o.block.where}: {'ok' if o.ok else 'FAILED'} in {o.seconds:.1f} s" for o in outcomes]
    bad = [o for o in outcomes if not o.ok]
    if bad:
        what = "timed out" if bad[0].returncode is None else f"exit {bad[0].returncode}"
        lines += [f"--- {bad[0].block.where} ({what}):", bad[0].block.text, "--- output (tail):",
                  bad[0].output[-3000:]]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def readme_dir(tmp_path_factory) -> Path:
    """README's sandbox (its step 5 writes the experts' map file there)."""
    return tmp_path_factory.mktemp("docs") / "README"


@pytest.fixture(scope="module")
def readme_outcomes(reader_env, expert_ls, readme_dir) -> list[Outcome]:
    """README's path, once: the docs that follow build on the project it audited."""
    return run(REPO / "README.md", reader_env, expert_ls, readme_dir)


def test_every_shell_block_is_bash_or_bash_norun() -> None:
    errors = [e for path in DOCS for e in convention_errors(path)]
    assert errors == []


def test_readme_path_runs_as_written(readme_outcomes) -> None:
    print("\n" + report(readme_outcomes))
    assert readme_outcomes and all(o.ok for o in readme_outcomes), report(readme_outcomes)


@pytest.mark.parametrize("path", DOCS[1:], ids=lambda p: p.name)
def test_doc_runs_as_written(path, readme_outcomes, reader_env, expert_ls, readme_dir, tmp_path) -> None:
    # The reader's terminal still has what README's step 5 exported: the experts' instances.
    env = {**reader_env, "LABEL_AUDIT_EXPERT_INSTANCES": str(readme_dir / "experts.json")}
    outcomes = run(path, env, expert_ls, tmp_path / path.stem)
    print("\n" + report(outcomes))
    assert all(o.ok for o in outcomes), report(outcomes)
