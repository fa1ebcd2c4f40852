"""Blind review with the image (issue 21): the expert's instance serves a neutral copy, never the source file.

Real Label Studio 1.23.2 servers: ``label_studio`` holds a real image project (PNG and JPEG files made here
with Pillow, uploaded to it, each carrying a marker in its EXIF / PNG text / JPEG comment and a file name
holding its label and the source project id), ``review_ls`` is the expert's own instance
(``LABEL_AUDIT_EXPERT_INSTANCES``). ``review push`` must give every review task a copy uploaded to the
expert's instance: served there with the expert's own session, pixel-equal to the source, with no marker,
source name, label or score in the task or the file. One task's image is missing on the source: that
item is reported and counted, the rest goes on. The expert logs in through the form in headless Chromium
and sees the image (screenshot in /tmp/shots/). Then the expert answers, and the HTML report shows the
thumbnail grid of the confirmed errors (screenshot too); the Markdown report says where the grid is.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest
from PIL import Image, PngImagePlugin
from typer.testing import CliRunner

from backend.cli import app
from backend.labelstudio.client import iter_tasks
from backend.labelstudio.taskshape import field as task_field
from backend.labelstudio.uploads import upload_file
from backend.ledger import Ledger
from backend.scoring.results import ItemResult
from backend.review.source import REF_FIELD
from backend.review.review_store import ROUND_REVIEW, ReviewStore
from stats_cli.cli import app as audit_stats
from tests.support.browser import headless_chromium, login
from tests.support.labelstudio import login_session, unique_email

pytestmark = [pytest.mark.labelstudio, pytest.mark.timeout(1200)]

SHOTS = Path(os.environ.get("LABEL_AUDIT_SHOTS", "/tmp/shots"))
MARKER = "SRCMARK7d3f"
CONFIG = """<View>
  <Image name="image" value="$image"/>
  <Choices name="animal" toName="image" choice="single-radio">
    <Choice value="cat"/>
    <Choice value="dog"/>
  </Choices>
</View>"""
# Per item: (format, colour, original label, ensemble prediction, confidence, the expert's answer).
# Items 0, 2 and 5 are confirmed errors (the expert agrees with the ensemble), item 1 keeps its label,
# item 3's image is missing on the source, item 4 is not flagged; item 5's source file is deleted after
# the push, so the report cannot fetch it.
ITEMS = [("PNG", (220, 40, 40), "cat", "dog", 0.93, "dog"), ("JPEG", (40, 160, 60), "dog", "cat", 0.88, "dog"),
         ("PNG", (40, 60, 200), "cat", "dog", 0.81, "dog"), ("PNG", (0, 0, 0), "dog", "cat", 0.77, None),
         ("PNG", (200, 200, 40), "dog", "dog", 0.9, None), ("JPEG", (150, 60, 160), "cat", "dog", 0.85, "dog")]
VERSION = "label-audit-1ma9e5"


def make_image(fmt: str, colour: tuple[int, int, int]) -> bytes:
    """A 96x64 picture: a coloured square with a diagonal stripe, carrying the marker in its metadata."""
    image = Image.new("RGB", (96, 64), (250, 250, 250))
    for x in range(96):
        for y in range(64):
            if 16 <= x < 80 and 8 <= y < 56:
                image.putpixel((x, y), colour)
            if abs(x - y) < 3:
                image.putpixel((x, y), (10, 10, 10))
    exif = Image.Exif()
    exif[0x010E] = f"{MARKER} label=cat score=0.93"
    buf = io.BytesIO()
    if fmt == "PNG":
        info = PngImagePlugin.PngInfo()
        info.add_text("Comment", f"{MARKER} original label cat")
        image.save(buf, "PNG", pnginfo=info, exif=exif)
    else:
        image.save(buf, "JPEG", quality=92, exif=exif, comment=f"{MARKER} dog".encode())
    return buf.getvalue()


def pixels(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as image:
        return image.convert("RGB").tobytes()


def invoke(env: dict[str, str], *args: str) -> Any:
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


@dataclass
class Scene:
    source: Any
    review: Any
    project: int
    ids: list[int]
    images: dict[int, bytes]
    source_names: dict[int, str]
    expert: str
    env: dict[str, str]
    db: str
    push: dict = field(default_factory=dict)

    def review_tasks(self) -> list[Any]:
        (project,) = ReviewStore(self.db).projects(str(self.project), round=ROUND_REVIEW)
        return list(iter_tasks(self.review.client, project.ls_project_id))

    def source_of(self, ref: str) -> int:
        (match,) = [a for a in ReviewStore(self.db).assignments(str(self.project)) if a.ref == ref]
        return int(match.task_id)


@pytest.fixture(scope="module")
def scene(label_studio, review_ls, tmp_path_factory) -> Iterator[Scene]:
    project, _ = label_studio.create_project(CONFIG, title="animals source")
    images, names, tasks = {}, {}, []
    for k, (fmt, colour, label, *_rest) in enumerate(ITEMS):
        data = make_image(fmt, colour)
        ext, mime = ("png", "image/png") if fmt == "PNG" else ("jpg", "image/jpeg")
        name = f"{label}_project{project}-item{k}_{MARKER}.{ext}"
        url = upload_file(label_studio.client, project, name=name, data=data, mime=mime)
        if k == 3:
            url = f"/data/upload/{project}/0000dead-{label}_missing_{MARKER}.png"  # never uploaded
        images[k], names[k] = data, url.rsplit("/", 1)[-1]
        tasks.append({"data": {"image": url},
                      "annotations": [{"result": [{"from_name": "animal", "to_name": "image", "type": "choices",
                                                   "value": {"choices": [label]}}]}]})
    from backend.labelstudio.client import import_tasks

    ids = import_tasks(label_studio.client, project, tasks)
    folder = tmp_path_factory.mktemp("img-review")
    db = f"sqlite:///{folder / 'audit.sqlite'}"
    results = [ItemResult(id=str(t), original=o, prediction=p, confidence=c, probs=None, flagged=o != p)
               for t, (_f, _c, o, p, c, _a) in zip(ids, ITEMS)]
    Ledger(db).record_many(str(project), VERSION, results)
    expert = unique_email("img-expert")
    experts_file = folder / "experts.json"
    experts_file.write_text(json.dumps({expert: {"url": review_ls.url, "token": review_ls.token}}))
    os.chmod(experts_file, 0o600)
    env = {"DATABASE_URL": db, "LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token,
           "LABEL_AUDIT_HOME": str(folder / "home"), "LABEL_AUDIT_EXPERT_INSTANCES": str(experts_file)}
    scene = Scene(label_studio, review_ls, project, ids, {ids[k]: v for k, v in images.items()},
                  {ids[k]: v for k, v in names.items()}, expert, env, db)
    result = invoke(env, "review", "push", "--project", str(project), "--experts", expert, "--initial-passwords",
                    "--json")
    try:
        assert result.exit_code == 0, result.output
        scene.push = json.loads(result.stdout)
        yield scene
    finally:
        drop_review_projects(review_ls.client, ReviewStore(db), project)


def drop_review_projects(client: Any, store: ReviewStore, source_project: int) -> None:
    """Delete this module's projects from the session's review instance: every user of an instance sees
    every project of it, and other modules count what their experts see there."""
    for project in store.projects(str(source_project)):
        client.projects.delete(id=project.ls_project_id)


def test_push_uploads_a_copy_per_item_and_counts_the_missing_image(scene):
    assert scene.push["new_tasks"] == {scene.expert: 4}
    missing = str(scene.ids[3])
    assert set(scene.push["errors"]) == {missing}
    assert "not copied for review" in scene.push["errors"][missing] and "image_fetch" in scene.push["errors"][missing]
    tasks = scene.review_tasks()
    assert sorted(scene.source_of(t.data[REF_FIELD]) for t in tasks) == sorted(scene.ids[:3] + [scene.ids[5]])
    for task in tasks:
        assert set(task.data) == {"image", REF_FIELD}
        assert re.fullmatch(r"/data/upload/\d+/[0-9a-f]{8}-[0-9a-f]{32}\.png", task.data["image"]), task.data


def test_review_tasks_carry_nothing_of_the_source(scene):
    for task in scene.review_tasks():
        source_id = scene.source_of(task.data[REF_FIELD])
        text = json.dumps(task.data)
        assert MARKER not in text and scene.source_names[source_id] not in text
        assert not {"cat", "dog", "0.93", "0.88", "0.81", "project"} & set(re.findall(r"[a-z0-9.]+", text))
        stored = task.data["image"].rsplit("/", 1)[-1].split("-", 1)[1]
        assert re.fullmatch(r"[0-9a-f]{32}\.png", stored)  # random: neither the source's name nor its id


def test_the_copy_is_served_to_the_expert_and_equals_the_source_in_pixels(scene):
    session = login_session(scene.review.url, scene.expert, scene.push["passwords"][scene.expert])
    assert session is not None
    try:
        for task in scene.review_tasks():
            source_id = scene.source_of(task.data[REF_FIELD])
            resp = session.get(task.data["image"])
            assert resp.status_code == 200, resp.status_code
            data = resp.content
            assert MARKER.encode() not in data and b"cat" not in data and b"dog" not in data
            assert pixels(data) == pixels(scene.images[source_id])  # exactly the source's pixels
            with Image.open(io.BytesIO(data)) as image:
                assert image.format == "PNG" and not image.info and not image.getexif()
        # The source's own file is not reachable from the review instance (nor with the expert's session).
        source_url = scene.review_tasks()[0].data["image"].replace("/data/upload/", "/data/upload/x")
        assert session.get(source_url).status_code >= 400
    finally:
        session.close()
    anonymous = __import__("httpx").get(f"{scene.review.url}{scene.review_tasks()[0].data['image']}")
    assert anonymous.status_code in (401, 403) or "/user/login" in str(anonymous.headers.get("location", ""))


def test_browser_the_expert_sees_the_image_and_nothing_else_of_the_source(scene):
    SHOTS.mkdir(parents=True, exist_ok=True)
    (project,) = ReviewStore(scene.db).projects(str(scene.project), round=ROUND_REVIEW)
    tasks = scene.review_tasks()
    first = tasks[0]
    with headless_chromium() as browser:
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        page.set_default_timeout(120_000)
        login(page, scene.review.url, scene.expert, scene.push["passwords"][scene.expert])
        page.goto(f"{scene.review.url}/projects/{project.ls_project_id}/data?task={first.id}")
        page.wait_for_function("() => [...document.images].some(i => i.src.includes('/data/upload/') "
                               "&& i.complete && i.naturalWidth === 96)")
        page.wait_for_timeout(1500)
        page.screenshot(path=str(SHOTS / "image-review-expert.png"))
        loaded = page.evaluate("() => [...document.images].filter(i => i.src.includes('/data/upload/'))"
                               ".map(i => [i.src, i.naturalWidth, i.naturalHeight])")
        html = page.content()
        text = page.inner_text("body")
    assert loaded and all(w == 96 and h == 64 for _src, w, h in loaded)
    # The labelling view shows the first task's copy; the Data Manager's column the other copies, nothing else.
    shown = {src.split(scene.review.url, 1)[-1] for src, _w, _h in loaded}
    assert first.data["image"] in shown and shown <= {t.data["image"] for t in tasks}
    assert MARKER not in html and not any(n in html for n in scene.source_names.values())
    assert "animals source" not in text and "0.93" not in text and "Prediction" not in text


@pytest.fixture(scope="module")
def answered(scene) -> Scene:
    """The expert answers every review task; then item 5's file is deleted from the source project."""
    (project,) = ReviewStore(scene.db).projects(str(scene.project), round=ROUND_REVIEW)
    by_source = {scene.source_of(t.data[REF_FIELD]): t for t in scene.review_tasks()}
    for k, (*_rest, answer) in enumerate(ITEMS):
        task = by_source.get(scene.ids[k])
        if task is not None and answer is not None:
            scene.review.client.annotations.create(
                id=task.id, completed_by=project.expert_user_id,
                result=[{"from_name": "animal", "to_name": "image", "type": "choices", "value": {"choices": [answer]}}])
    listed = scene.source.client._client_wrapper.httpx_client.request(
        f"api/projects/{scene.project}/file-uploads", method="GET", params={"all": "true"}).json()
    (gone,) = [f["id"] for f in listed if "item5" in str(f["file"])]
    scene.source.client.files.delete(gone)
    return scene


def test_gold_and_sync_gold_work_for_the_image_project(answered, tmp_path):
    scene = answered
    result = invoke(scene.env, "review", "gold", "--project", str(scene.project), "--json")
    assert result.exit_code == 0, result.output
    out = tmp_path / "gold.jsonl"
    synced = CliRunner().invoke(audit_stats, ["sync-gold", "--project", str(scene.project), "--out", str(out),
                                              "--to-labelstudio"], env=scene.env)
    assert synced.exit_code == 0, synced.output
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    corrected = {k for k in range(len(ITEMS)) if rows[str(scene.ids[k])]["action"] == "corrected"}
    assert corrected == {0, 2, 5} and all(rows[str(scene.ids[k])]["label"] == "dog" for k in corrected)
    assert int(re.search(r"(\d+) created", synced.output).group(1)) >= 3
    tasks = {int(t.id): t for t in iter_tasks(scene.source.client, scene.project, with_annotations=True)}
    for k in corrected:
        results = [task_field(a, "result") for a in task_field(tasks[scene.ids[k]], "annotations")]
        assert [{"from_name": "animal", "to_name": "image", "type": "choices", "value": {"choices": ["dog"]}}] in \
            [[{key: r[key] for key in ("from_name", "to_name", "type", "value")} for r in res] for res in results]


def test_report_shows_the_confirmed_errors_as_thumbnails(answered, tmp_path):
    scene = answered
    out = tmp_path / "report.html"
    result = CliRunner().invoke(audit_stats, ["report", "--project", str(scene.project), "--format", "html",
                                              "--out", str(out), "--no-progress", "--no-cache"], env=scene.env)
    assert result.exit_code == 0, result.output
    html = out.read_text()
    grid = html.split("<section id='error_images'>", 1)[1].split("</section>", 1)[0]
    figures = re.findall(r"<figure data-item='(\d+)'>(.*?)</figure>", grid)
    assert [int(item) for item, _ in figures] == [scene.ids[0], scene.ids[2], scene.ids[5]]  # the confirmed errors
    for item, body in figures:
        assert "cat → dog" in body
        if int(item) == scene.ids[5]:  # its source file is gone: said, never a broken image
            assert "<img" not in body and "class='missing'" in body and "image not available: image_fetch" in body
            continue
        (data,) = re.findall(r"src='data:image/png;base64,([^']+)'", body)
        png = base64.b64decode(data)
        assert MARKER.encode() not in png  # made from the pixels only
        with Image.open(io.BytesIO(png)) as thumb:
            assert max(thumb.size) <= 160 and thumb.size == (96, 64)  # already small: not enlarged
    SHOTS.mkdir(parents=True, exist_ok=True)
    with headless_chromium() as browser:
        page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
        page.goto(out.as_uri())
        page.locator("#error_images").scroll_into_view_if_needed()
        sizes = page.evaluate("() => [...document.querySelectorAll('#error_images .grid img')]"
                              ".map(i => [i.complete, i.naturalWidth])")
        page.locator("#error_images").screenshot(path=str(SHOTS / "image-report-grid.png"))
    assert sizes == [[True, 96], [True, 96]]
    md = CliRunner().invoke(audit_stats, ["report", "--project", str(scene.project), "--format", "md",
                                          "--no-progress", "--no-cache"], env=scene.env)
    assert md.exit_code == 0, md.output
    section = md.stdout.split("## Confirmed errors, pictured", 1)[1].split("\n## ", 1)[0]
    assert "the thumbnail grid of the confirmed errors is in the HTML report" in section
