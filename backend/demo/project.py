"""The demo's Label Studio side: the sample project, its model connection, and the two demo experts (each on their own instance).

The sample project is what a real user has: items with their original annotations and a label config
written for people (titled inputs, choices that say what they mean, guidelines). Everything is found
again on a second run (project by id or title, the model by project, experts by email), so re-running
the demo adds nothing twice.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import httpx
from label_studio_sdk import LabelStudio

from backend.labelstudio.client import create_project, find_user, import_tasks
from backend.labelstudio.signup import invite_user

SAMPLE = "sample_snli.jsonl"
TITLE = "label-audit demo: premise and hypothesis"  # Label Studio allows 50 characters
# Choice values are what people read; aliases are the stored labels the ensemble predicts ("0"/"1").
LABEL_CONFIG = """<View>
  <Header value="Premise (a photo caption)"/>
  <Text name="grounding" value="$grounding"/>
  <Header value="Hypothesis"/>
  <Text name="generated_text" value="$generated_text"/>
  <Header value="Does the premise support the hypothesis?"/>
  <Choices name="label" toName="generated_text" choice="single-radio" showInLine="true">
    <Choice value="Supported" alias="1" hint="The hypothesis is true whenever the premise is"/>
    <Choice value="Not supported" alias="0" hint="The premise contradicts the hypothesis, or leaves it open"/>
  </Choices>
</View>"""
GUIDELINES = ("<p>Read the premise (a caption of a photo), then the hypothesis. Choose <b>Supported</b> when the "
              "hypothesis must be true of any photo the premise describes (paraphrases and plain common sense "
              "count), <b>Not supported</b> when the premise contradicts it or leaves it open (it may or may not "
              "be true).</p>")
DESCRIPTION = ("32 premise/hypothesis pairs from SNLI with their labels (a 100-vote crowd confirms each); 6 labels "
               "are planted wrong, and the columns 'planted' and 'snli_label' say which and what SNLI says. The "
               "tab 'Suspected label errors' lists what the ensemble flags, most confident first.")


def sample_rows() -> list[dict[str, Any]]:
    """The bundled sample (``bench/demo_sample.py`` says where it comes from), one dict per item."""
    text = resources.files("backend").joinpath("data", SAMPLE).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def sample_tasks() -> list[dict[str, Any]]:
    """The sample as Label Studio tasks: the inputs, the item id, what was planted (for the lead: the
    experts' copies hold the inputs only), the original label as an annotation."""
    tasks = []
    for row in sample_rows():
        choice = {"from_name": "label", "to_name": "generated_text", "type": "choices",
                  "value": {"choices": [str(row["label"])]}}
        tasks.append({"data": {"item": row["id"], "grounding": row["grounding"],
                               "generated_text": row["generated_text"], "planted": bool(row.get("planted")),
                               "snli_label": row.get("snli_label", "")},
                      "annotations": [{"result": [choice]}]})
    return tasks


def ensure_project(client: LabelStudio, *, known_id: int | None) -> tuple[int, bool]:
    """(project id, created now): the recorded project, else one with the demo's title, else a new one."""
    if known_id is not None:
        try:
            return int(client.projects.get(id=known_id).id), False
        except Exception:  # deleted by the user: look it up or create it again
            pass
    for project in client.projects.list(title=TITLE):
        if project.title == TITLE:
            return int(project.id), False
    project_id = create_project(client, title=TITLE, label_config=LABEL_CONFIG, description=DESCRIPTION,
                                expert_instruction=GUIDELINES, show_instruction=True)
    import_tasks(client, project_id, sample_tasks())
    return project_id, True


def connect_model(client: LabelStudio, project_id: int, *, url: str, auth: tuple[str, str]) -> int:
    """Connect the backend as the project's model (basic auth), or point the existing connection at ``url``.

    The backend's first /setup of a label config builds the ensemble (the local model loads), which can
    outlast Label Studio's /setup timeout on a busy machine: so the demo makes that first call itself.
    """
    label_config = client.projects.get(id=project_id).label_config
    httpx.post(f"{url}/setup", json={"project": str(project_id), "schema": label_config}, auth=auth,
               timeout=600.0).raise_for_status()
    user, password = auth
    for ml in client.ml.list(project=project_id):
        if ml.url.rstrip("/") == url:
            return int(ml.id)
        client.ml.update(id=ml.id, url=url, auth_method="BASIC_AUTH", basic_auth_user=user,
                         basic_auth_pass=password)
        return int(ml.id)
    created = client.ml.create(project=project_id, url=url, title="label-audit", auth_method="BASIC_AUTH",
                               basic_auth_user=user, basic_auth_pass=password, is_interactive=False)
    return int(created.id)


def ensure_expert(client: LabelStudio, email: str, password: str) -> None:
    """Sign a demo expert up on their own instance (sign-up is closed: through a one-use invite link)."""
    if find_user(client, email) is None:
        invite_user(client, email, password)
    user = find_user(client, email)
    org = int(client.users.whoami().active_organization)
    if user is not None and user.active_organization != org:
        client.users.update(user.id, active_organization=org)
