"""A worker derives a project's spec once per process, however many jobs it runs (issue 41).

A job carries the label config as Label Studio sent it (plain data: readable in the queue, valid across a
code upgrade between enqueue and run, unlike a pickled spec), and the worker's first job of a config parses
it; every later job of the same config and settings reuses that spec (``projectspec._spec_once``). Counted
at the one parser (``backend.controls.parse``), over real jobs called as rq calls them, on a real ledger.
"""

from __future__ import annotations

import pytest

import backend.controls.parse as parse_module
from backend.config.settings import Settings
from backend.labelstudio.projectspec import _spec_once
from backend.worker.ensemble_config import EnsembleConfig
from backend.worker.jobs import score_tasks

CONFIG = "<View><Text name='t' value='$t'/><Rating name='r' toName='t' maxRating='5'/></View>"


@pytest.fixture()
def settings(tmp_path, monkeypatch) -> Settings:
    for name, value in {"DATABASE_URL": f"sqlite:///{tmp_path / 'audit.sqlite'}", "LABEL_AUDIT_HOME": str(tmp_path),
                        "OPENAI_API_KEY": "sk-test-not-used",
                        "LABEL_AUDIT_MEMBERS": "openai:smol@http://127.0.0.1:9/v1"}.items():
        monkeypatch.setenv(name, value)
    for name in ("LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return Settings.from_env()


def test_three_jobs_of_one_config_parse_it_once(settings, monkeypatch):
    parsed: list[int] = []
    real = parse_module.safe_fromstring

    def counting(xml, **kw):
        parsed.append(len(xml))
        return real(xml, **kw)

    monkeypatch.setattr(parse_module, "safe_fromstring", counting)
    _spec_once.cache_clear()
    version = EnsembleConfig(settings).model_version(EnsembleConfig(settings).spec(CONFIG))  # the enqueuer's side
    assert len(parsed) == 1
    for job in range(3):  # tasks answered with a grade outside the scale: counted bad, no member called
        tasks = [{"id": 10 * job + i, "data": {"t": f"text {i}"}, "annotations": [{"id": i, "completed_by": 1, "result": [
            {"from_name": "r", "to_name": "t", "type": "rating", "value": {"rating": 6}}]}]} for i in (1, 2)]
        counts = score_tasks(project="7", tasks=tasks, label_config=CONFIG, model_version=version,
                             job_key=f"job-{job}", settings=settings)
        assert counts["errors"] == 2, counts
    assert len(parsed) == 1, f"the config was parsed {len(parsed)} times over three jobs"
