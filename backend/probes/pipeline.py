"""One probe run end to end: dataset items -> probe set -> scored passes -> report (-> store).

Kept apart from the CLI so the RQ worker or a notebook can run probes the same way. ``probe="planted"``
runs the planted-instruction probe (:mod:`backend.probes.planted_run`) on the same good items instead.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from backend.scoring.cache import CallCache
from backend.task.dataset import Item, ItemError
from backend.scoring.engine import EngineConfig
from backend.scoring.members import Member
from backend.probes.construct import RANDP_LENGTHS, build_probes
from backend.probes.planted_run import score_planted
from backend.probes.findings import build_report
from backend.probes.run import score_probes
from backend.task.spec import TaskSpec
from backend.task.option_orders import with_option_orders


def run_probes(
    entries: Iterable[Item | ItemError],
    spec: TaskSpec,
    members: Sequence[Member],
    *,
    cache: CallCache | None,
    n: int = 20,
    seed: int = 0,
    lengths: Sequence[int] = RANDP_LENGTHS,
    config: EngineConfig | None = None,
    compare_delimiting: bool = False,
    progress: bool = False,
    probe: str = "builtin",
) -> dict[str, Any]:
    """Build probes from the good items, score them (fenced, and unfenced too when
    ``compare_delimiting``) and return the report dict (see :func:`backend.probes.findings.build_report`).

    Bad input records are skipped and counted in the report's notes. Raises ValueError when no good
    item is left, the spec has no probe layout (built-in probes) or ``probe`` is unknown.
    """
    if probe not in ("builtin", "planted"):
        raise ValueError(f"probe must be 'builtin' or 'planted', got {probe!r}")
    if spec.answer_tokens:  # a probe plants one label per item and measures the order as given
        spec = with_option_orders(spec, 1)
    questions = spec.task_family.questions(spec)
    if len(questions) != 1 or questions[0].spec is not spec:
        raise ValueError(f"the probes plant one label per item: a {spec.family} task asks {len(questions)} questions "
                         "per item (probe a single-label task)")
    items: list[Item] = []
    bad = 0
    for entry in entries:
        if isinstance(entry, ItemError):
            bad += 1
        else:
            items.append(entry)
    if not items:
        raise ValueError("no usable item in the input: nothing to build probes from")
    if probe == "planted":
        report = score_planted(items, spec, members, cache=cache, n=n, seed=seed, config=config, progress=progress)
    else:
        probe_set = build_probes(items, spec, n=n, seed=seed, lengths=lengths)
        modes = (True, False) if compare_delimiting else (True,)
        passes = [
            score_probes(probe_set, spec, members, cache=cache, config=config, delimit=mode, progress=progress)
            for mode in modes
        ]
        report = build_report(spec=spec, probe_set=probe_set, members=members, passes=passes, seed=seed, n=n,
                              lengths=lengths)
    if bad:
        report["notes"].append(f"{bad} input record(s) could not be read and were skipped")
    return report
