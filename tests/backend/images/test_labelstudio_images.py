"""A real Label Studio 1.23.2 image project: PNG and JPEG files made here, uploaded through its import API,
read back through the product's own path (SDK listing -> job payload -> items with fetched images), and
scored end to end by the worker job.

The judge is ``tests.support.recording_openai_server`` (TEST-ONLY, not a model): a vision model cannot run
on this machine, so a real HTTP server stands in for an OpenAI-compatible vision server, records every
request the real ``openai`` SDK sends, and answers a fixed option with top logprobs. What is asserted is
what was sent: exactly the uploaded bytes, as data URLs; never a verdict.
"""

from __future__ import annotations

import base64
import io
import json

import httpx
import pytest
from PIL import Image

from backend.images.fetch import ImageFetcher, ImageRefused
from backend.providers.image_part import placeholder
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.taskshape import job_task
from backend.labelstudio.tasks import tasks_to_items
from backend.ledger import Ledger
from backend.scoring.results import input_hash
from backend.config.settings import Settings
from backend.worker.ensemble_config import EnsembleConfig
from tests.support.recording_openai_server import RecordingOpenAIServer, image_urls

CONFIG = """<View>
  <Image name="image" value="$image"/>
  <Choices name="animal" toName="image" choice="single-radio">
    <Choice value="Cat"/><Choice value="Dog"/><Choice value="Bird"/>
  </Choices>
</View>"""


def picture(fmt: str, size: tuple[int, int], colour: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, fmt)
    return buf.getvalue()


def upload(ls, project: int, files: dict[str, bytes]) -> list[int]:
    """Upload image files with Label Studio's import API (one task per file, each under its own form field:
    Label Studio reads uploads by field name); the new task ids, in the
    order of ``files`` (read from each task's upload path, which ends with the file's name)."""
    parts = [(name, (name, data, "image/png" if name.endswith(".png") else "image/jpeg"))
             for name, data in files.items()]
    answer = httpx.post(f"{ls.url}/api/projects/{project}/import", files=parts,
                        headers={"Authorization": f"Token {ls.token}"}, params={"return_task_ids": "true"},
                        timeout=60)
    assert answer.status_code == 201, answer.text[:300]
    made = [t for t in listed(ls, project) if int(t["id"]) in set(answer.json()["task_ids"])]
    return [next(int(t["id"]) for t in made if str(t["data"]["image"]).endswith(name)) for name in files]


def annotate(ls, task_ids: list[int], label: str) -> None:
    for task_id in task_ids:
        ls.client.annotations.create(id=task_id, result=[{"from_name": "animal", "to_name": "image", "type": "choices",
                                                          "value": {"choices": [label]}}])


def listed(ls, project: int) -> list[dict]:
    return [job_task(t) for t in iter_tasks(ls.client, project, with_annotations=True)]


def test_uploaded_images_are_read_back_byte_for_byte_and_an_edit_changes_the_input_hash(label_studio):
    ls = label_studio
    png, jpeg = picture("PNG", (40, 30), (220, 20, 20)), picture("JPEG", (24, 24), (20, 20, 220))
    project, _ = ls.create_project(CONFIG)
    ids = upload(ls, project, {"red.png": png, "blue.jpg": jpeg})
    annotate(ls, ids, "Cat")
    tasks = listed(ls, project)
    assert all(str(t["data"]["image"]).startswith("/data/upload/") for t in tasks)
    spec = spec_from_label_config(CONFIG)
    with ImageFetcher(ls.url, ls.token) as fetcher:
        converted = tasks_to_items(tasks, spec, fetcher=fetcher)
    assert converted.errors == []
    by_id = {int(it.id): it for it in converted.items}
    assert [by_id[i].images[0].data for i in ids] == [png, jpeg]
    assert [by_id[i].images[0].mime for i in ids] == ["image/png", "image/jpeg"]
    assert (by_id[ids[0]].images[0].width, by_id[ids[0]].images[0].height) == (40, 30)
    assert by_id[ids[0]].fields == {"image": placeholder(1)} and by_id[ids[0]].original == "Cat"

    # the first task now shows the second image: same text fields, another input hash
    ls.client.tasks.update(id=ids[0], data={"image": tasks[1]["data"]["image"]})
    with ImageFetcher(ls.url, ls.token) as fetcher:
        again = {int(it.id): it for it in tasks_to_items(listed(ls, project), spec, fetcher=fetcher).items}
    before, after = by_id[ids[0]], again[ids[0]]
    assert after.images[0].data == jpeg and after.fields == before.fields
    assert input_hash(after.fields, after.images) != input_hash(before.fields, before.images)
    assert input_hash(after.fields, after.images) == input_hash(again[ids[1]].fields, again[ids[1]].images)

    # without the token, Label Studio serves nothing: the task's error, not a crash
    with ImageFetcher(ls.url, None) as anonymous:
        refused = tasks_to_items(listed(ls, project), spec, fetcher=anonymous)
    assert refused.items == [] and {e.error.reason for e in refused.errors} == {"image_fetch"}


def test_the_worker_job_sends_exactly_the_uploaded_images_to_a_vision_judge(label_studio, tmp_path, monkeypatch):
    from backend.worker.jobs import score_tasks

    ls = label_studio
    png, jpeg = picture("PNG", (64, 48), (250, 200, 0)), picture("JPEG", (32, 40), (0, 120, 60))
    project, planted = ls.create_project(CONFIG, [{"data": {"image": "http://169.254.169.254/latest/meta-data/"}}])
    ids = upload(ls, project, {"yellow.png": png, "green.jpg": jpeg})
    annotate(ls, ids + planted, "Dog")
    with RecordingOpenAIServer(answer="A", other="B", confidence=0.9) as judge:
        db = f"sqlite:///{tmp_path / 'audit.sqlite'}"
        for name, value in {"LABEL_STUDIO_URL": ls.url, "LABEL_STUDIO_API_KEY": ls.token, "DATABASE_URL": db,
                            "LABEL_AUDIT_HOME": str(tmp_path), "LABEL_AUDIT_MEMBERS": f"openai:vision-test@{judge.url}",
                            "OPENAI_API_KEY": "sk-test-not-used"}.items():
            monkeypatch.setenv(name, value)
        config = EnsembleConfig(Settings.from_env())
        spec = config.spec(CONFIG)
        version = config.model_version(spec)
        counts = score_tasks(project=str(project), tasks=listed(ls, project), label_config=CONFIG,
                             model_version=version, job_key="img-e2e", settings=Settings.from_env())
    assert counts["scored"] == 2 and counts["errors"] == 1
    prompts, orders = len(config.build(spec)), len(spec.task_family.questions(spec))  # option orders
    assert len(judge.requests) == 2 * prompts * orders  # every prompt and order of each uploaded image; nothing for the planted URL
    sent = [image_urls(body) for body in judge.requests]
    assert all(len(urls) == 1 for urls in sent)
    decoded = {base64.b64decode(urls[0].split("base64,", 1)[1], validate=True) for urls in sent}
    assert decoded == {png, jpeg}
    assert {urls[0].split(";", 1)[0] for urls in sent} == {"data:image/png", "data:image/jpeg"}
    assert all(ls.token not in json.dumps(body) for body in judge.requests)
    results = {r.id: r for r in Ledger(db).results(str(project), model_version=version)}
    assert results[str(planted[0])].error.reason == "image_private_address"
    for task_id in ids:
        res = results[str(task_id)]
        assert res.error is None and res.prediction in spec.labels and res.original == "Dog"
        assert [m.reason for m in res.members] == [None] * prompts


@pytest.mark.parametrize("members", ["local:smollm2"])
def test_a_project_no_member_can_see_is_refused_before_any_job(members, monkeypatch):
    monkeypatch.setenv("LABEL_AUDIT_MEMBERS", members)
    with pytest.raises(ValueError, match="no member of the ensemble can see"):
        EnsembleConfig(Settings.from_env()).spec(CONFIG)


def test_a_personal_access_token_is_exchanged_and_fetches_like_a_legacy_one(label_studio):
    """Label Studio 1.23.2's personal access tokens are JWT refresh tokens: the fetcher has the SDK exchange
    it for an access token (``Bearer``), as every other call of the tool does."""
    from tests.support.labelstudio import unique_email

    ls = label_studio
    user = ls.create_user(unique_email("pat"))
    made = httpx.post(f"{ls.url}/api/token/", headers={"Authorization": f"Token {user.token}"}, timeout=30)
    assert made.status_code in (200, 201), made.text[:200]
    pat = made.json()["token"]
    assert pat.count(".") == 2  # a JWT, not a legacy key
    png = picture("PNG", (12, 10), (1, 2, 3))
    project, _ = ls.create_project(CONFIG)
    (task_id,) = upload(ls, project, {"pat.png": png})
    reference = listed(ls, project)[0]["data"]["image"]
    with ImageFetcher(ls.url, pat) as fetcher:
        assert fetcher.fetch(reference, variable="image", task_id=task_id).data == png
    with ImageFetcher(ls.url, pat[:-4] + "AAAA") as forged, pytest.raises(ImageRefused) as info:
        forged.fetch(reference, variable="image", task_id=task_id)
    assert info.value.reason == "image_fetch" and pat not in str(info.value)
