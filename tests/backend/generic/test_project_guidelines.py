"""The backend keeps each project's guidelines with its label config; editing them changes the model version."""

from __future__ import annotations

from backend.labelstudio.projectspec import split_guidelines
from backend.ledger import Ledger
from backend.server.projects import ProjectSpecs
from backend.worker.ensemble_config import EnsembleConfig
from tests.backend.generic.templates import SENTIMENT, SENTIMENT_GUIDELINES, SPAM
from tests.backend.server.conftest import CLOSED_SERVER_MEMBER


def specs(tmp_path) -> ProjectSpecs:
    return ProjectSpecs(Ledger(f"sqlite:///{tmp_path / 'l.sqlite'}"), EnsembleConfig(members=(CLOSED_SERVER_MEMBER,)))


def test_guidelines_from_a_webhook_survive_a_setup_without_them_and_change_the_version(tmp_path):
    projects = specs(tmp_path)
    bare = projects.context("7", SENTIMENT)
    with_notes = projects.context("7", SENTIMENT, guidelines=SENTIMENT_GUIDELINES)  # PROJECT_UPDATED payload
    assert with_notes.model_version != bare.model_version
    again = projects.context("7", SENTIMENT)  # /predict sends only the config
    assert again.model_version == with_notes.model_version
    assert split_guidelines(again.label_config)[1] == SENTIMENT_GUIDELINES
    assert "overall sentiment" in again.spec.prompt.guidelines
    assert projects.context("7").model_version == with_notes.model_version  # from the ledger alone
    cleared = projects.context("7", SENTIMENT, guidelines="")
    assert cleared.model_version == bare.model_version


def test_each_project_gets_its_own_spec_with_no_task_setting(tmp_path):
    projects = specs(tmp_path)
    sentiment, spam = projects.context("1", SENTIMENT), projects.context("2", SPAM)
    assert sentiment.spec.family == "nominal" and spam.spec.family == "binary"
    assert spam.spec.labels == ("spam", "ham") and dict(spam.spec.fields) == {"message": "message"}
    assert sentiment.model_version != spam.model_version
