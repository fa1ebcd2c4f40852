"""The name a prediction carries in Label Studio: readable judges and rule, plus the fingerprint key.

Label Studio shows a prediction by its ``model_version`` string (the labeling stream's prediction tab,
the Data Manager's model-version column and filter). Ours used to be the bare key
``label-audit-<fingerprint>``, which tells the lead nothing. Inside label-audit that key stays the
identity of a scoring run: the ledger's key, the jobs' and workers' model version, the importer's
outbox and the suspects-tab marker. Only what is *written to* Label Studio changes::

    smollm2 ×4 prompts · avg ≥ 0.50 · label-audit-3f2a9c1d0bea

and every reader of a Label Studio ``model_version`` maps it back to the key with :func:`version_key`,
so predictions stored under the old bare key, and ledgers written before, are read as before (no
re-score). Measured in Chromium on 1.23.2: the labeling stream's prediction tab shows a name over 15
characters as its first 8 and last 6 (the name above as ``smollm2 ...1d0bea``) and the whole name on
hover; the Data Manager's "Prediction model versions" column shows it whole. So the judges come
first and the key last.

The readable part states what the lead needs to judge a score: which models, how many prompts each,
the average, the confidence threshold and the ordinal distance, and the prior correction where one re-reads the
verdicts (the default ``auto`` on a binary or nominal task). Threshold and distance are not part of
the fingerprint (changing them re-decides flags, it does not re-score), so two names with one key can
exist in a project; :func:`version_key` makes them one version for every reader.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Sequence

from backend.scoring.members import MemberSpec, entry_templates
from backend.task.spec import TaskSpec
from backend.scoring.ensemble import resolve_threshold

SEPARATOR = " · "
# MODEL_VERSION_PREFIX (backend.worker.ensemble_config) + the 12 hex digits of backend.scoring.members.spec_fingerprint
_KEY = re.compile(r"(label-audit-[0-9a-f]{12})\Z")
MAX_MODEL_CHARS = 24


def version_key(ls_version: str | None) -> str | None:
    """The label-audit key a Label Studio ``model_version`` stands for (itself when it is no name of ours).

    ``"smollm2 ×4 prompts · avg ≥ 0.50 · label-audit-3f2a9c1d0bea"`` and the old bare
    ``"label-audit-3f2a9c1d0bea"`` both give ``"label-audit-3f2a9c1d0bea"``.
    """
    if ls_version is None:
        return None
    text = str(ls_version).strip()
    found = _KEY.search(text)
    return found.group(1) if found else text


def same_version(ls_version: str | None, key: str) -> bool:
    """True when a prediction's Label Studio ``model_version`` belongs to the run keyed ``key``."""
    return ls_version is not None and version_key(ls_version) == version_key(key)


def _model_label(entry: MemberSpec) -> str:
    """A model as the lead knows it: its name (a file path's stem), the provider only for non-LLM members."""
    model = str(entry.model)
    if "/" in model and (model.endswith(".gguf") or model.startswith(("/", "."))):
        model = PurePosixPath(model).stem
    if len(model) > MAX_MODEL_CHARS:
        model = model[: MAX_MODEL_CHARS - 1] + "…"
    return f"{entry.provider} {model}" if entry.provider == "cleanlab" else model


def judges_text(entries: Sequence[MemberSpec], spec: TaskSpec, *, prompts_root: Path | None = None) -> str:
    """``"smollm2 ×4 prompts + gpt-4o-mini ×2 prompts"``: each model entry with its number of prompts
    (those under ``prompts_root``, the settings' ``prompts_dir``; None: the shipped folder)."""
    parts = []
    for entry in entries:
        try:
            n = len(entry_templates(entry, spec, prompts_root=prompts_root))
        except (ValueError, OSError):
            n = len(entry.prompts or ())
        label = _model_label(entry)
        parts.append(label if n <= 1 else f"{label} ×{n} prompts")
    return " + ".join(parts) or "no judges"


def rule_text(spec: TaskSpec, *, threshold: float, delta: int | None) -> str:
    """``"avg ≥ 0.50"``; a family whose rule says more adds it (ordinal: ``"avg ≥ 0.20, |Δ| > 1"``)."""
    return f"avg ≥ {threshold:.2f}" + spec.task_family.short_flag_rule(spec, delta=delta)


def readable_version(key: str, entries: Sequence[MemberSpec], spec: TaskSpec, *, threshold: float | None,
                     delta: int | None, prompts_root: Path | None = None, prior_correction: str = "none") -> str:
    """The ``model_version`` written to Label Studio for the run keyed ``key``: judges · rule · key, with the prior
    correction before the key where it re-reads this task's verdicts (the score is then not the plain average:
    ``"... · avg ≥ 0.55 · prior correction auto · label-audit-..."``; the report says which reading it chose)."""
    from backend.scoring.project_pass import corrects

    cut = resolve_threshold(spec, threshold)
    parts = [judges_text(entries, spec, prompts_root=prompts_root), rule_text(spec, threshold=cut, delta=delta)]
    if corrects(prior_correction, spec.family):
        parts.append(f"prior correction {prior_correction}")
    return SEPARATOR.join((*parts, key))
