"""The lead's score column and suspects tab follow the model version, on the real Label Studio."""

from __future__ import annotations

import pytest

from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.scoreview import SCORE_COLUMN, SUSPECTS_TITLE, suspect_marker
from backend.scoring.results import ItemResult
from backend.labelstudio.predictions import import_predictions, prediction_requests

pytestmark = pytest.mark.labelstudio

CONFIG = '<View><Text name="t" value="$t"/><Choices name="label" toName="t"><Choice value="0"/><Choice value="1"/></Choices></View>'
# What Label Studio's own front end saves when a lead first opens the Data Manager: the score hidden.
FRONTEND_DEFAULT_TAB = {"title": "Default", "type": "list", "target": "tasks",
                        "hiddenColumns": {"explore": ["tasks:inner_id", SCORE_COLUMN, "tasks:predictions_results"],
                                          "labeling": ["tasks:id", SCORE_COLUMN]},
                        "filters": {"conjunction": "and", "items": []}}


def raw(ls, method: str, path: str, **kwargs):
    resp = ls.client._client_wrapper.httpx_client.request(path, method=method, **kwargs)
    resp.raise_for_status()
    return resp.json() if resp.content else None


def tabs(ls, project: int) -> dict[str, dict]:
    return {v["data"]["title"]: v for v in raw(ls, "GET", "api/dm/views", params={"project": project})}


def listed(ls, project: int, view: int | None = None) -> list[tuple[int, float | None]]:
    params = {"project": project, "fields": "all", "page_size": 100, **({"view": view} if view else {})}
    return [(t["id"], t["predictions_score"]) for t in raw(ls, "GET", "api/tasks", params=params)["tasks"]]


def results(ids: list[int], confidences: list[float], flagged: list[bool]) -> list[ItemResult]:
    return [ItemResult(id=str(t), original="0", prediction="1" if f else "0", confidence=c, probs=None, flagged=f)
            for t, c, f in zip(ids, confidences, flagged)]


def test_score_column_and_suspects_tab_follow_the_model_version(label_studio):
    ls = label_studio
    project, ids = ls.create_project(CONFIG, [{"t": f"item {k}"} for k in range(4)])
    raw(ls, "POST", "api/dm/views", json={"project": project, "data": FRONTEND_DEFAULT_TAB})
    spec = spec_from_label_config(CONFIG)
    assert [s for _, s in listed(ls, project)] == [None] * 4  # new project: model_version "" -> no score

    import_predictions(ls.client, str(project), prediction_requests(
        results(ids, [0.9, 0.8, 0.7, 0.95], [True, False, True, False]), spec, "label-audit-v1"))
    assert dict(listed(ls, project)) == pytest.approx(dict(zip(ids, [0.9, 0.8, 0.7, 0.95])))
    found = tabs(ls, project)
    assert SCORE_COLUMN not in found["Default"]["data"]["hiddenColumns"]["explore"]  # the lead's tab shows it now
    assert found["Default"]["data"]["hiddenColumns"]["labeling"] == ["tasks:id", SCORE_COLUMN]  # rest untouched
    assert [t for t, _ in listed(ls, project, found[SUSPECTS_TITLE]["id"])] == [ids[0], ids[2]]

    # A new ensemble (new version) re-scores: the column and the tab follow it; old markers no longer count.
    import_predictions(ls.client, str(project), prediction_requests(
        results(ids, [0.6, 0.85, 0.75, 0.65], [False, True, True, False]), spec, "label-audit-v2"))
    assert ls.client.projects.get(id=project).model_version == "label-audit-v2"
    assert dict(listed(ls, project)) == pytest.approx(dict(zip(ids, [0.6, 0.85, 0.75, 0.65])))
    found = tabs(ls, project)
    assert list(found) == ["Default", SUSPECTS_TITLE]  # updated in place, not duplicated
    assert found[SUSPECTS_TITLE]["data"]["filters"]["items"][0]["value"] == suspect_marker("label-audit-v2")
    assert [t for t, _ in listed(ls, project, found[SUSPECTS_TITLE]["id"])] == [ids[1], ids[2]]


def test_a_project_without_tabs_gets_a_default_tab_first(label_studio):
    ls = label_studio
    project, ids = ls.create_project(CONFIG, [{"t": "x"}, {"t": "y"}])
    import_predictions(ls.client, str(project), prediction_requests(
        results(ids, [0.8, 0.9], [False, True]), spec_from_label_config(CONFIG), "label-audit-v9"))
    found = tabs(ls, project)
    assert list(found) == ["Default", SUSPECTS_TITLE]
    assert SCORE_COLUMN not in found["Default"]["data"]["hiddenColumns"]["explore"]
    # Default: every task, highest score first (the demo needs no third tab to rank the project)
    assert [t for t, _ in listed(ls, project, found["Default"]["id"])] == [ids[1], ids[0]]
