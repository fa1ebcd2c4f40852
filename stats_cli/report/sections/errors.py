"""Label errors found by the experts, with exact and finite-population bounds (Nahum Table 2, App. G.1).

Two rows, because they answer two questions. *Among reviewed items*: of the items the experts
settled, how many original labels were wrong (the precision of the flags), with the exact
Clopper-Pearson interval. *Whole project*: following Nahum et al., an item the ensemble agrees with
keeps its label, so every item with a settled gold label is the sample and every audited item the
population; the FPC-adjusted interval's lower end is the error rate the project has at least.
"""

from __future__ import annotations

from backend.review.outcome import GoldStatus
from stats_cli.bounds import error_rate_bounds

from ..inputs import AuditData
from ..model import Section, Status, Table, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "errors", "Label errors"
COLUMNS = ("sample", "n", "errors", "% error", "CP 95% low", "CP 95% high", "population N",
           "FPC low", "FPC high")


def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


def errors_section(data: AuditData, *, confidence: float = 0.95) -> Section:
    """Error count and rate with Clopper-Pearson and FPC bounds; pending until an expert settles an item."""
    reviewed = data.reviewed()
    population = len(data.items)  # every audited item, as "items audited" in the audit section
    open_items = sum(1 for it in data.items if data.gold(it)[1] is GoldStatus.PENDING)
    sizes = {"reviewed": len(reviewed), "open reviews": open_items, "items audited (N)": population}
    if not reviewed:
        return pending(KEY, TITLE, "no expert decision is settled yet, so no label error is confirmed", sizes=sizes)
    k_rev = sum(1 for it, gold in reviewed if gold != it.original)
    rev = error_rate_bounds(k_rev, len(reviewed), confidence=confidence)
    settled = [(it, g) for it in data.scored for g, _src in [data.gold(it)] if g is not None]
    k_all = sum(1 for it, gold in settled if gold != it.original)
    whole = error_rate_bounds(k_all, len(settled), population=population, confidence=confidence)
    rows = [
        ("reviewed by experts", rev.sample, rev.errors, _pct(rev.rate), _pct(rev.cp_low), _pct(rev.cp_high),
         None, None, None),
        ("whole project (settled items)", whole.sample, whole.errors, _pct(whole.rate), _pct(whole.cp_low),
         _pct(whole.cp_high), population, _pct(whole.fpc_low), _pct(whole.fpc_high)),
    ]
    notes = [f"At least {_pct(whole.fpc_low):.1f}% of the project's labels are wrong "
             f"({100 * confidence:.0f}% confidence, FPC lower bound; {whole.errors} errors confirmed among "
             f"{whole.sample} settled items of {population})."]
    if open_items:
        notes.append(f"{open_items} items are still in review and are left out of both rows until settled.")
    no_verdict = population - len(data.scored)
    unsettled = len(data.scored) - len(settled)
    if unsettled:
        notes.append(f"{unsettled} audited items have no gold label (the ensemble disagrees, nobody reviewed "
                     "them); the whole-project row treats the settled items as the sample.")
    if no_verdict:
        notes.append(f"{no_verdict} audited items have no ensemble verdict or no original label; they count in "
                     "the population N but cannot be settled.")
    table = Table.build(f"Label errors (Nahum Table 2; {100 * confidence:.0f}% intervals, in %)", COLUMNS, rows)
    return Section(KEY, TITLE, Status.OK, sizes=sizes, tables=(table,), notes=tuple(notes),
                   values={"reviewed": rev.to_json(), "project": whole.to_json()})


class ErrorsSection(ReportSection):
    key, title, order = KEY, TITLE, 30

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return errors_section(data)
