"""Image items through the real task conversion and engine: fetched images, per-item refusals, the cache
key and input hash by content, members that cannot see left out (``no_vision``), and the one refusal of
an ensemble where nobody sees.

The judges are TEST-ONLY providers (tests/backend/hash_provider.py, not LLMs: they judge nothing) so the
bookkeeping is exact; the end-to-end test against a recording OpenAI-compatible server and a real Label
Studio is tests/backend/images/test_labelstudio_images.py.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any, Iterator, Sequence

import pytest

from backend.scoring.cache import CallCache
from backend.scoring.engine import Engine, EngineConfig
from backend.scoring.ensemble import Quorum
from backend.images.fetch import ImageFetcher
from backend.providers.image_part import placeholder
from backend.images.vision import check_members_see
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.tasks import tasks_to_items
from backend.scoring.members import build_members, parse_member_arg
from backend.scoring.results import input_hash
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig
from tests.backend.hash_provider import HashTestProvider, hash_distribution
from tests.support.http_recorder import Recorder, image_bytes

CONFIG = """<View><Header value="Photo"/><Image name="photo" value="$photo"/><Header value="Caption"/>
<Text name="caption" value="$caption"/>
<Choices name="animal" toName="photo"><Choice value="Cat"/><Choice value="Dog"/><Choice value="Bird"/></Choices></View>"""
SPEC = spec_from_label_config(CONFIG)
RED, BLUE = image_bytes(color="red"), image_bytes("JPEG", (6, 6), "blue")


class SeeingTestProvider(HashTestProvider):
    """TEST-ONLY: the hash provider that takes images; its answer depends on the images' bytes too."""

    accepts_images = True

    def __init__(self, model: str = "see-1") -> None:
        super().__init__(model)
        self.images_seen: list[tuple[bytes, ...]] = []

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float, images: Sequence[Any] = ()):
        with self.lock:
            self.images_seen.append(tuple(image.data for image in images))
        salt = "".join(hashlib.sha256(image.data).hexdigest() for image in images)
        super().classify(prompt, labels, timeout=timeout)  # counts the call
        return hash_distribution(prompt + salt, labels)


@pytest.fixture
def instance() -> Iterator[Recorder]:
    rec = Recorder(routes={"/data/upload/1/red.png": (200, {}, RED), "/data/upload/1/blue.jpg": (200, {}, BLUE)}).start()
    yield rec
    rec.stop()


@pytest.fixture
def cache(tmp_path):
    c = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    yield c
    c.close()


def task(task_id: int, photo: str, label: str = "Cat") -> dict:
    return {"id": task_id, "data": {"photo": photo, "caption": f"caption {task_id}"},
            "annotations": [{"id": 10 + task_id, "completed_by": 1, "result": [
                {"from_name": "animal", "to_name": "photo", "type": "choices", "value": {"choices": [label]}}]}]}


def members(*providers):
    by_model = {p.model: p for p in providers}
    entries = [parse_member_arg(f"hash:{p.model}") for p in providers]
    return build_members(entries, SPEC, provider_factory=lambda e: by_model[e.model])


def test_tasks_become_items_with_their_images_and_refusals_become_counted_errors(instance):
    fetcher = ImageFetcher(instance.url, "tok")
    tasks = [task(1, "/data/upload/1/red.png"), task(2, "http://169.254.169.254/latest/meta-data/", "Dog"),
             task(3, "https://elsewhere.example.com/cat.png"), task(4, "/data/upload/1/blue.jpg", "Bird")]
    converted = tasks_to_items(tasks, SPEC, fetcher=fetcher)
    assert [it.id for it in converted.items] == ["1", "4"]
    first = converted.items[0]
    assert first.images[0].data == RED and first.fields["photo"] == placeholder(1)
    assert first.fields["caption"] == "caption 1" and first.original == "Cat"
    assert converted.items[1].images[0].mime == "image/jpeg"
    assert {e.id: e.error.reason for e in converted.errors} == {"2": "image_private_address", "3": "image_host"}
    assert all(e.input_hash for e in converted.errors)
    assert sorted(c.task_id for c in converted.crowd) == ["1", "2", "3", "4"]  # their labels still count
    assert [path for path, _ in instance.seen] == ["/data/upload/1/red.png", "/data/upload/1/blue.jpg"]
    no_fetcher = tasks_to_items(tasks[:1], SPEC)
    assert no_fetcher.items == [] and no_fetcher.errors[0].error.reason == "image_fetch"


def test_an_image_is_judged_only_by_members_that_see_and_the_others_are_counted_no_vision(instance, cache):
    items = tasks_to_items([task(1, "/data/upload/1/red.png")], SPEC, fetcher=ImageFetcher(instance.url, None)).items
    seeing, blind = SeeingTestProvider(), HashTestProvider("blind-1")
    engine = Engine(SPEC, members(seeing, blind), cache=cache, config=EngineConfig(quorum=Quorum(min_share=1.0)))
    (result,) = list(engine.score(items))
    assert result.error is None and result.prediction in SPEC.labels and not result.insufficient  # quorum: seers only
    assert blind.total_calls == 0 and seeing.total_calls == len(engine.members) // 2
    assert all(images == (RED,) for images in seeing.images_seen)
    reasons = {m.member_id.split("/")[0]: m.reason for m in result.members}
    assert reasons == {"hash:see-1": None, "hash:blind-1": "no_vision"}
    assert engine.stats.errors["no_vision"] == len(engine.members) // 2 and engine.stats.llm_calls == seeing.total_calls
    assert result.input_hash == input_hash(items[0].fields, items[0].images)


def test_text_items_still_go_to_every_member_without_images(cache):
    spec = spec_from_label_config(CONFIG.replace("<Image", "<Text"))
    item_list = tasks_to_items([task(1, "a photo described in words")], spec).items
    seeing, blind = SeeingTestProvider(), HashTestProvider("blind-1")
    by_model = {p.model: p for p in (seeing, blind)}
    built = build_members([parse_member_arg("hash:see-1"), parse_member_arg("hash:blind-1")], spec,
                          provider_factory=lambda e: by_model[e.model])
    (result,) = list(Engine(spec, built, cache=cache).score(item_list))
    assert result.error is None and blind.total_calls > 0 and all(images == () for images in seeing.images_seen)


def test_the_cache_key_and_input_hash_follow_the_image_content(instance, cache):
    fetcher = ImageFetcher(instance.url, None)
    red = tasks_to_items([task(1, "/data/upload/1/red.png")], SPEC, fetcher=fetcher).items
    blue = tasks_to_items([task(1, "/data/upload/1/blue.jpg")], SPEC, fetcher=fetcher).items
    assert red[0].fields == blue[0].fields  # same task text: only the image differs
    assert input_hash(red[0].fields, red[0].images) != input_hash(blue[0].fields, blue[0].images)
    assert input_hash(red[0].fields) == input_hash(red[0].fields, ())  # text-only hashes unchanged
    seeing = SeeingTestProvider()
    engine = Engine(SPEC, members(seeing), cache=cache)
    list(engine.score(red))
    calls = seeing.total_calls
    list(engine.score(blue))  # an edited image is asked again
    assert seeing.total_calls == 2 * calls
    list(engine.score(red))  # the same image again: from the cache
    assert seeing.total_calls == 2 * calls and engine.stats.cache_hits == calls
    member = engine.members[0]
    prompt = engine.prompt_for(member, red[0])
    assert engine.key_for(member, prompt) != engine.key_for(member, prompt, red[0].images)


def test_early_exit_leaves_the_blind_members_out_too(instance, cache):
    items = tasks_to_items([task(1, "/data/upload/1/red.png")], SPEC, fetcher=ImageFetcher(instance.url, None)).items
    seeing, blind = SeeingTestProvider(), HashTestProvider("blind-1")
    engine = Engine(SPEC, members(seeing, blind), cache=cache, config=EngineConfig(early_exit=True, quorum=Quorum(min_share=1.0)))
    (result,) = list(engine.score(items))
    assert result.error is None and not result.insufficient and blind.total_calls == 0 and seeing.total_calls >= 1


def test_an_ensemble_where_nobody_sees_is_refused_once_before_anything_is_queued():
    with pytest.raises(ValueError, match="no member of the ensemble can see them") as info:
        EnsembleConfig(members=(parse_member_arg("local:smollm2"),)).spec(CONFIG)
    assert "<Image> 'photo'" in str(info.value) and "local:smollm2" in str(info.value)
    EnsembleConfig(members=(parse_member_arg("local:smollm2"),)).spec(CONFIG.replace("<Image", "<Text"))
    with pytest.raises(ValueError, match="can see"):
        check_members_see(SPEC, members(HashTestProvider("blind-1")))
    check_members_see(SPEC, members(SeeingTestProvider(), HashTestProvider("blind-1")))


def test_the_backend_fetches_only_scored_tasks_to_check_their_stored_verdicts(instance, monkeypatch):
    """/predict and enqueueing compare stored verdicts with the tasks' current inputs: for an image project
    that needs the images, so only tasks that have a stored result are fetched; a refused image's hash is
    the one its error result is stored with, so it is not queued again and again."""
    from backend.worker.queueing import input_hashes

    settings = Settings.from_env({"LABEL_STUDIO_URL": instance.url})  # the server's, resolved at its start
    config = EnsembleConfig(settings, members=(parse_member_arg("gemini:gemini-2.0-flash"),))
    tasks = [task(1, "/data/upload/1/red.png"), task(2, "/data/upload/1/blue.jpg"), task(3, "http://10.0.0.1/x.png")]
    hashes = input_hashes(tasks, config, CONFIG, scored=lambda ids: {"1", "3"})
    assert set(hashes) == {"1", "3"} and [path for path, _ in instance.seen] == ["/data/upload/1/red.png"]
    with ImageFetcher(instance.url, None) as fetcher:
        converted = tasks_to_items(tasks, SPEC, fetcher=fetcher)
    item = next(it for it in converted.items if it.id == "1")
    assert hashes["1"] == input_hash(item.fields, item.images)
    assert hashes["3"] == next(e.input_hash for e in converted.errors if e.id == "3")


def test_label_audit_score_reads_image_files_and_refuses_a_blind_ensemble(instance, tmp_path, monkeypatch):
    """``label-audit score FILE --label-config`` with an <Image>: data URLs and the instance's paths are
    fetched; a private URL is that line's counted error. The judge is the TEST-ONLY recording server."""
    from typer.testing import CliRunner

    from backend.cli import app
    from tests.support.recording_openai_server import RecordingOpenAIServer, image_urls

    config = tmp_path / "config.xml"
    config.write_text(CONFIG)
    inline = "data:image/png;base64," + base64.b64encode(BLUE).decode()
    rows = [{"id": "a", "photo": "/data/upload/1/red.png", "caption": "one", "label": "Cat"},
            {"id": "b", "photo": inline, "caption": "two", "label": "Dog"},
            {"id": "c", "photo": "http://169.254.169.254/latest/", "caption": "three", "label": "Bird"}]
    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setenv("LABEL_STUDIO_URL", instance.url)
    monkeypatch.setenv("LABEL_AUDIT_HOME", str(tmp_path / "home"))
    blind = CliRunner().invoke(app, ["score", str(data), "--label-config", str(config), "--member", "local:smollm2"])
    assert blind.exit_code == 2 and "no member of the ensemble can see" in blind.output
    assert instance.seen == []
    out = tmp_path / "out.jsonl"
    with RecordingOpenAIServer(answer="A", other="B") as judge:
        result = CliRunner().invoke(app, ["score", str(data), "--label-config", str(config), "--no-cache",
                                          "--member", f"openai:vision-test@{judge.url}", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert lines["c"]["error"] == "image_private_address" and lines["a"]["error"] is None and lines["b"]["error"] is None
    sent = {base64.b64decode(image_urls(body)[0].split(",", 1)[1]) for body in judge.requests}
    assert sent == {RED, BLUE} and [path for path, _ in instance.seen] == ["/data/upload/1/red.png"]
