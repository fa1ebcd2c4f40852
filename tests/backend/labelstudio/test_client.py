"""SDK helpers against the session's real Label Studio."""

from __future__ import annotations

import pytest

from backend.config.settings import Settings
from backend.labelstudio.client import connect, ensure_user, find_user, iter_tasks
from backend.labelstudio.tasks import annotation_results

pytestmark = pytest.mark.labelstudio

CONFIG = (
    "<View><Text name='text' value='$text'/>"
    "<Choices name='label' toName='text'><Choice value='0'/><Choice value='1'/></Choices></View>"
)


def test_fixture_serves_the_port_it_was_asked_for(label_studio):
    assert label_studio.process.ready()
    assert label_studio.url.endswith(f":{label_studio.process.port}")
    assert label_studio.token not in repr(label_studio)


def test_iter_tasks_pages_through_every_task(label_studio):
    project, ids = label_studio.create_project(CONFIG, [{"text": f"item {i}"} for i in range(7)])
    listed = list(iter_tasks(label_studio.client, project, page_size=3))
    assert [t.id for t in listed] == ids
    assert [t.data["text"] for t in listed] == [f"item {i}" for i in range(7)]
    picked = list(iter_tasks(label_studio.client, project, page_size=2, task_ids=[ids[1], ids[5]]))
    assert sorted(t.id for t in picked) == [ids[1], ids[5]]
    assert list(iter_tasks(label_studio.client, project, task_ids=[])) == []


def test_iter_tasks_selects_many_ids_in_chunks(label_studio, monkeypatch):
    import backend.labelstudio.client as lsclient

    project, ids = label_studio.create_project(CONFIG, [{"text": f"item {i}"} for i in range(9)])
    monkeypatch.setattr(lsclient, "SELECT_CHUNK", 4)
    picked = list(iter_tasks(label_studio.client, project, page_size=3, task_ids=ids[1:]))
    assert sorted(t.id for t in picked) == ids[1:]


def test_ensure_user_creates_once_and_sets_the_organization(label_studio):
    from tests.support.labelstudio import unique_email

    email = unique_email("expert")
    uid = ensure_user(label_studio.client, email, org_id=label_studio.org_id)
    assert ensure_user(label_studio.client, email.upper(), org_id=label_studio.org_id) == uid
    user = find_user(label_studio.client, email)
    assert user.id == uid and user.active_organization == label_studio.org_id
    with pytest.raises(ValueError):
        ensure_user(label_studio.client, "not-an-email", org_id=label_studio.org_id)


def test_annotations_are_attributed_and_read_back(label_studio):
    project, ids = label_studio.create_project(CONFIG, [{"text": "a"}])
    expert = label_studio.create_user()
    result = [{"from_name": "label", "to_name": "text", "type": "choices", "value": {"choices": ["1"]}}]
    label_studio.client.annotations.create(id=ids[0], result=result, completed_by=expert.id)
    (task,) = iter_tasks(label_studio.client, project, with_annotations=True)
    ((_, annotator, got),) = annotation_results(task)
    assert annotator == expert.id and got[0]["value"]["choices"] == ["1"]
    # The expert's own token works (their active organization was set) and sees the project.
    assert project in [p.id for p in expert.client.projects.list()]


def test_connect_takes_the_settings_address_and_token_and_never_echoes_the_token(label_studio):
    settings = Settings.from_env({"LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.token})
    assert connect(settings.label_studio_url, settings.label_studio_token).users.whoami().id is not None
    with pytest.raises(ValueError) as err:
        connect(settings.label_studio_url, None)
    assert label_studio.token not in str(err.value)
