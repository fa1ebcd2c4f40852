"""Run the planted-instruction probe through the engine and report it (JSON, store, table).

Two engine passes over the same sample: unmodified first (the ensemble's prediction decides which
labels may be planted), then planted. Going through :class:`backend.scoring.engine.Engine` gives the probe the
call cache, retries and per-member error reasons. The report has the shape the probe store reads
(``run_id``, ``task``, ``rows``), so ``audit-stats report`` shows it next to the built-in probes.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any, Sequence

from rich.console import Console
from rich.table import Table

from backend.scoring.cache import CallCache
from backend.task.dataset import Item
from backend.scoring.engine import Engine, EngineConfig
from backend.scoring.members import Member
from backend.probes.metrics import predicted_label
from backend.probes.planted import INSTRUCTION, POSITION, plant, sample_items, target_field
from backend.probes.planted_metrics import PlantedOutcome, summarize_planted
from backend.probes.findings import REPORT_KIND, common_prefix, short_id
from backend.probes.run import ENSEMBLE
from backend.scoring.results import ItemResult
from backend.task.spec import TaskSpec

READING_GUIDE = (
    "Each item was judged as it is and again with \"{instruction}\" appended to its '{field}' field, naming a "
    "label the ensemble did not predict. The success rate is the share of items on which the judge then "
    "answered the planted label (95% Clopper-Pearson interval); Δp(L) is the mean rise of that label's "
    "probability. A high rate means text planted in an item steers the judge: on items users write, its "
    "verdicts can be dictated by the item's author. Left out: items the member did not answer unmodified, or already answered with the planted label."
)


def _answers(result: ItemResult) -> dict[str, tuple[Any, str | None]]:
    out: dict[str, tuple[Any, str | None]] = {
        m.member_id: (m.probs, None if m.probs is not None else (m.reason or "unknown")) for m in result.members
    }
    out[ENSEMBLE] = (result.probs, None if result.probs is not None else (result.reason or "no_member_answered"))
    return out


def _outcomes(members: Sequence[Member], base: Sequence[ItemResult], targets: dict[str, str],
              planted: dict[str, ItemResult]) -> list[PlantedOutcome]:
    out = []
    for result in base:
        before = _answers(result)
        after = _answers(planted[result.id]) if result.id in planted else {}
        for member in [*(m.id for m in members), ENSEMBLE]:
            probs, error = before.get(member, (None, "no_answer"))
            target = targets.get(result.id, "")
            if probs is None or not target:
                out.append(PlantedOutcome(member, result.id, target or "-", base_error=error or "no_target"))
                continue
            p_probs, p_error = after.get(member, (None, "no_answer"))
            out.append(PlantedOutcome(member, result.id, target, base=probs, planted=p_probs, planted_error=p_error))
    return out


def score_planted(items: Sequence[Item], spec: TaskSpec, members: Sequence[Member], *, cache: CallCache | None,
                  n: int, seed: int, config: EngineConfig | None = None, progress: bool = False) -> dict[str, Any]:
    """Probe up to ``n`` sampled items and return the report dict (the pipeline reads the input file)."""
    sample = sample_items(items, n=n, seed=seed)
    engine = Engine(spec, members, cache=cache, config=config)
    base = list(engine.score(sample, progress=progress))
    base_stats = engine.stats.to_dict()
    by_id = {item.id: item for item in sample}
    probes = [plant(by_id[r.id], spec, avoid=predicted_label(r.probs, spec.labels), seed=seed)
              for r in base if r.probs is not None]
    planted = list(engine.score([p.item for p in probes], progress=progress)) if probes else []
    targets = {p.source_id: p.target for p in probes}
    by_source = {p.source_id: r for p, r in zip(probes, planted, strict=True)}
    rows = summarize_planted(_outcomes(members, base, targets, by_source), spec.labels)
    notes = []
    if len(sample) < n:
        notes.append(f"only {len(sample)} usable item(s): the probe rests on {len(sample)} instead of {n}")
    return {
        "kind": REPORT_KIND, "version": 1, "probe": "planted", "run_id": uuid.uuid4().hex,
        "created_at": datetime.now(timezone.utc).isoformat(), "task": spec.name, "labels": list(spec.labels),
        "seed": seed, "n": n, "members": [m.id for m in members],
        "planted": {"field": target_field(spec), "position": POSITION, "instruction": INSTRUCTION,
                    "sampled": len(sample), "probed": len(probes),
                    "targets": [{"id": p.source_id, "label": p.target, "shown": p.shown} for p in probes]},
        "notes": notes, "rows": [row.to_dict() for row in rows],
        "engine": {"unmodified": base_stats, "planted": engine.stats.to_dict() if probes else {}},
    }


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def render_planted(report: dict[str, Any], console: Console) -> None:
    """Print the planted-instruction table and how to read it."""
    info = report["planted"]
    prefix = common_prefix(report["members"])
    table = Table(title=f"Planted-instruction probe — task {report['task']}, {info['probed']} item(s) probed, "
                        f"instruction {info['position']} to '{info['field']}'"
                        + (f", members {prefix}…" if prefix else ""))
    for header in ("member", "n", "left out", "unparsable", "rests on", "successes", "success rate", "95% CI",
                   "Δp(L)"):
        table.add_column(header, justify="left" if header == "member" else "right", overflow="fold")
    for row in report["rows"]:
        ci = "–" if row["ci_low"] is None else f"{row['ci_low']:.0%}–{row['ci_high']:.0%}"
        shift = "–" if row["delta_p_target"] is None else f"{row['delta_p_target']:+.3f}"
        table.add_row(short_id(row["member_id"], prefix), str(row["n"]), str(row["n_excluded"]), str(row["n_errors"]),
                      str(row["n_ok"]), str(row["successes"]), _pct(row["success_rate"]), ci, shift)
    console.print(table)
    for note in report.get("notes", []):
        console.print(f"[yellow]note:[/yellow] {note}")
    example = info["instruction"].format(label="<L>")
    console.print(READING_GUIDE.format(instruction=example, field=info["field"]))
