"""A named judge is a member wherever members are named: --member, members files, LABEL_AUDIT_MEMBERS (workers).

The model file here is a sparse file of the model's size in a temporary models folder: the look-up checks
the size and providers load weights only at their first call, so the resolution is tested for real without
the 1.1 GB model (the scoring itself: test_named_judge_score.py). The folder is a setting
(LABEL_AUDIT_MODELS_DIR, resolved by ``Settings.from_env`` at an edge and passed down to the providers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from backend.providers.local_gguf import LocalGGUFProvider, resolve_model_path
from backend.common import defaults
from backend.providers.model_verify import record_verified
from backend.providers.named_models import NAMED_MODELS, models_dir
from backend.providers.provider_settings import ProviderSettings
from backend.scoring.members import build_members, member_specs_from_config
from backend.config.settings import Settings
from backend.task.spec import load_spec
from backend.worker.ensemble_config import EnsembleConfig

NAME = "qwen2.5-coder-1.5b"


@pytest.fixture()
def models(tmp_path: Path) -> Path:
    folder = tmp_path / "models"
    folder.mkdir()
    model = NAMED_MODELS[NAME]
    with (folder / model.file_name).open("wb") as handle:
        handle.truncate(model.size)  # sparse: no disk used
    # as the installer leaves it: the file and the record of its verified hash (read instead of 1.1 GB)
    record_verified(folder / model.file_name, model.sha256)
    return folder


def check_members(members, folder: Path) -> None:
    assert members and all(m.id.startswith(f"local:{NAME}/") for m in members)
    provider = members[0].provider
    assert isinstance(provider, LocalGGUFProvider) and provider.path == folder / NAMED_MODELS[NAME].file_name
    assert provider.model == NAME  # the weights are read at the first call (cache_params reads the template)


def test_the_name_resolves_in_the_models_folder(models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert models_dir(models) == models
    assert resolve_model_path(NAME, models_dir=models) == models / NAMED_MODELS[NAME].file_name
    monkeypatch.setenv("LABEL_AUDIT_MODELS_DIR", str(models))  # below the edge nothing reads it: the default stays
    assert models_dir() == Path(defaults.MODELS_DIR).expanduser()
    assert Settings.from_env().models_dir == models  # the edge does


def test_the_environment_and_a_workers_config_name_it(models: Path) -> None:
    settings = Settings.from_env({"LABEL_AUDIT_MEMBERS": f"local:{NAME},local:smollm2",
                                  "LABEL_AUDIT_MODELS_DIR": str(models)})
    spec = load_spec("factual-consistency")
    members = build_members(settings.members, spec, providers=settings.provider_settings())
    worker_members = EnsembleConfig.from_settings(settings).build(spec)
    assert {m.model for m in members} == {m.model for m in worker_members} == {NAME, "smollm2"}
    check_members([m for m in members if m.model == NAME], models)
    check_members([m for m in worker_members if m.model == NAME], models)


def test_a_members_file_names_it(models: Path, tmp_path: Path) -> None:
    path = tmp_path / "members.yaml"
    path.write_text(f"- provider: local\n  model: {NAME}\n  prompts: [fc-premise-hypothesis]\n")
    members = build_members(member_specs_from_config(path), load_spec("factual-consistency"),
                            providers=ProviderSettings(models_dir=models))
    check_members(members, models)
    assert [m.template.id for m in members] == ["fc-premise-hypothesis"]


def test_without_the_file_the_member_is_refused_with_the_install_command(tmp_path: Path) -> None:
    settings = Settings.from_env({"LABEL_AUDIT_MEMBERS": f"local:{NAME}",  # naming it is fine; building is not
                                  "LABEL_AUDIT_MODELS_DIR": str(tmp_path / "empty")})
    with pytest.raises(FileNotFoundError, match=f"install_judge.sh {NAME}"):
        build_members(settings.members, load_spec("factual-consistency"), providers=settings.provider_settings())
    assert not (tmp_path / "empty").exists()
