"""The one "prompt" of a confident-learning member: the item's inputs, rendered as the engine renders prompts.

Nothing reads it as a prompt. It exists so that the engine treats the member like any other (member id
``cleanlab:tfidf-logreg/features@v1``, cache key from the rendered text) and so that the member can
look its fitted answer up by the same text the engine hands it. Kept apart from the provider so that
building members (and the backend's model version) never imports scikit-learn.
"""

from __future__ import annotations

from backend.scoring.prompting import ANSWER_CUE, PromptTemplate
from backend.task.spec import TaskSpec

KIND = "cleanlab"
TEMPLATE_ID = "features"
TEMPLATE_VERSION = 1


def not_applicable(spec: TaskSpec) -> str | None:
    """Why a confident-learning member makes no sense for ``spec`` (None: it applies)."""
    if not spec.task_family.confident_learning:  # one single-choice question per item, classes unordered
        return f"NOT APPLICABLE to the {spec.family} family (it learns one single-choice label per item)"
    if not spec.fields:
        return "NOT APPLICABLE: the task has no text inputs to learn from"
    return None


def feature_template(spec: TaskSpec) -> PromptTemplate:
    """Every input of the task under its variable name, in spec order."""
    body = "\n".join(f"{name}:\n{{{name}}}" for name in spec.fields)
    return PromptTemplate(id=TEMPLATE_ID, version=TEMPLATE_VERSION, family=spec.prompt_dir,
                          text=f"{body}\n{ANSWER_CUE}", description="the item's inputs (a classifier's features)")
