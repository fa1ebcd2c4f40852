"""The prediction's readable name in Label Studio, mapped back to the run's key everywhere it is read.

The browser test logs into the session's real Label Studio 1.23.2 as the lead (headless Chromium) and
keeps its screenshots under ``artifacts/``.
"""

from __future__ import annotations

import pytest

from backend.labelstudio.modelname import readable_version, same_version, version_key
from backend.labelstudio.predictions import already_imported, import_predictions, prediction_requests
from backend.labelstudio.projectspec import spec_from_label_config
from backend.labelstudio.scoreview import SUSPECTS_TITLE, suspect_marker
from backend.scoring.members import parse_member_arg
from backend.scoring.results import ItemResult
from backend.task.spec import load_spec
from backend.worker.ensemble_config import EnsembleConfig

CONFIG = ('<View><Text name="t" value="$t"/><Choices name="label" toName="t">'
          '<Choice value="0"/><Choice value="1"/></Choices></View>')
KEY = "label-audit-0c0a49bea1ea"


def test_version_key_reads_names_and_bare_keys():
    assert version_key(f"smollm2 ×4 prompts · avg ≥ 0.50 · {KEY}") == KEY
    assert version_key(KEY) == KEY  # what releases before names wrote
    assert version_key("someone else's model v3") == "someone else's model v3"
    assert version_key(None) is None
    assert same_version(f"x · {KEY}", KEY) and same_version(KEY, f"y · {KEY}")
    assert not same_version(f"x · {KEY}", "label-audit-111111111111") and not same_version(None, KEY)


def test_the_name_states_judges_and_rule_and_ends_with_the_key():
    spec = spec_from_label_config(CONFIG)
    config = EnsembleConfig(members=(parse_member_arg("local:smollm2"), parse_member_arg("openai:gpt-4o-mini")),
                            threshold=0.7)
    name = config.ls_version(spec)
    assert name == (f"smollm2 ×4 prompts + gpt-4o-mini ×4 prompts · avg ≥ 0.70 · prior correction auto · "
                    f"{config.model_version(spec)}")  # the default correction re-reads a binary task's verdicts
    assert version_key(name) == config.model_version(spec)
    plain = EnsembleConfig(members=config.members, threshold=0.7, prior_correction="none")
    assert plain.ls_version(spec) == f"smollm2 ×4 prompts + gpt-4o-mini ×4 prompts · avg ≥ 0.70 · {plain.model_version(spec)}"
    # the default threshold of the family when none is set
    assert " · avg ≥ 0.55 · " in EnsembleConfig().ls_version(spec)


def test_an_ordinal_name_gives_its_distance():
    spec = load_spec("likert")
    assert spec.family == "ordinal"
    name = readable_version(KEY, [parse_member_arg("local:smollm2")], spec, threshold=None, delta=2)
    assert name.startswith("smollm2 ") and " · avg ≥ 0.20, |Δ| > 2 · " in name and name.endswith(KEY)
    kept = readable_version(KEY, [parse_member_arg("local:smollm2")], spec, threshold=None, delta=2,
                            prior_correction="auto")
    assert kept == name  # auto leaves an ordinal task's verdicts as judged: the name says no correction
    relevance = readable_version(KEY, [parse_member_arg("local:smollm2")], load_spec("relevance"), threshold=0.3,
                                 delta=None)
    assert "avg ≥ 0.30" in relevance and "across" in relevance  # relevance flags across its 2|1 boundary


def _results(ids, confidences, flagged):
    return [ItemResult(id=str(t), original="0", prediction="1" if f else "0", confidence=c, probs=None, flagged=f)
            for t, c, f in zip(ids, confidences, flagged)]


def _raw(ls, method, path, **kwargs):
    resp = ls.client._client_wrapper.httpx_client.request(path, method=method, **kwargs)
    resp.raise_for_status()
    return resp.json() if resp.content else None


@pytest.mark.labelstudio
def test_predictions_of_the_bare_key_are_renamed_and_still_read(label_studio):
    """A project scored by an older release (bare key) keeps every prediction, renamed, without a re-score."""
    ls = label_studio
    tasks = [{"t": f"claim {k}"} for k in range(3)]
    project, ids = ls.create_project(CONFIG, tasks)
    for task_id in ids:  # the original labels
        ls.client.annotations.create(id=task_id, result=[{"from_name": "label", "to_name": "t", "type": "choices",
                                                          "value": {"choices": ["0"]}}])
    spec = spec_from_label_config(CONFIG)
    config = EnsembleConfig()
    key, name = config.model_version(spec), config.ls_version(spec)
    import_predictions(ls.client, str(project), prediction_requests(_results(ids[:2], [0.9, 0.6], [True, False]),
                                                                    spec, key))  # the old release: bare key
    assert ls.client.projects.get(id=project).model_version == key
    import_predictions(ls.client, str(project), prediction_requests(_results(ids[2:], [0.7655], [True]), spec, key,
                                                                    ls_version=name))
    stored = [p.model_version for t in ids for p in ls.client.predictions.list(task=t)]
    assert stored == [name] * 3  # renamed in place: one prediction per task, no duplicate
    assert ls.client.projects.get(id=project).model_version == name
    assert already_imported(ls.client, str(project), [str(t) for t in ids], key) == {str(t) for t in ids}
    views = {v["data"]["title"]: v for v in _raw(ls, "GET", "api/dm/views", params={"project": project})}
    suspects = views[SUSPECTS_TITLE]
    assert suspects["data"]["filters"]["items"][0]["value"] == suspect_marker(key)  # the marker keeps the key
    listed = _raw(ls, "GET", "api/tasks", params={"project": project, "view": suspects["id"], "fields": "all"})["tasks"]
    assert [(t["id"], t["predictions_score"]) for t in listed] == [(ids[0], pytest.approx(0.9)),
                                                                    (ids[2], pytest.approx(0.7655))]
    _screenshots(ls, project, suspects["id"], ids[2], name)


def _screenshots(ls, project: int, view: int, task: int, name: str) -> None:
    """The lead's suspects tab and labeling stream: the name beside original label, ensemble label, score."""
    from tests.support.browser import ARTIFACTS, headless_chromium

    with headless_chromium() as browser:
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{ls.url}/user/login/")
        page.fill("input[name=email]", ls.process.username)
        page.fill("input[name=password]", ls.process.password)
        page.click("button[type=submit]")
        page.wait_for_url(lambda u: "/user/login" not in u)
        page.goto(f"{ls.url}/projects/{project}/data?tab={view}")
        page.wait_for_selector("text=Prediction model versions")
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1500)
        page.screenshot(path=str(ARTIFACTS / "modelname-suspects-tab.png"))
        table = page.inner_text("body")
        assert table.count(name) == 2  # both suspects, beside their score and labels
        assert "0.900" in table and "0.765" in table and "choices: [0]" in table and "choices: [1]" in table
        page.goto(f"{ls.url}/projects/{project}/data?tab={view}&task={task}")
        tab = page.wait_for_selector(f"text={name[:8]}")
        page.wait_for_load_state("networkidle")
        tab.hover()
        page.wait_for_timeout(1500)
        page.screenshot(path=str(ARTIFACTS / "modelname-labeling-tooltip.png"))
        stream = page.inner_text("body")
    assert f"{name[:8]}...{name[-6:]}" in stream  # the tab: first 8 and last 6 characters (Label Studio's cut)
    assert name in stream.replace("\n", " ").replace("label- audit", "label-audit")  # the tooltip: whole
