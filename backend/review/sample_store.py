"""The drawn review sample, stored beside the review so re-running never draws twice.

Two ``review_sample_*`` tables in the audit database: one row per stratum (design, seed, N_h, n_h,
when drawn) and one per drawn item. The report estimates from exactly these rows, so the
inclusion probabilities it uses are the ones the draw had, whatever the ledger holds later.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Sequence

from sqlalchemy import Column, DateTime, Engine, Integer, String, Table, UniqueConstraint, select

from backend.common.defaults import STORE_COLUMN_CHARS
from backend.sqlstore.tables import ensure_schema, metadata

from backend.review.sampling import FLAGGED_REVIEWED, Candidate, Draw, DrawnItem, draw_sample

__all__ = ["SampleStore", "ensure_draw"]

KEY = STORE_COLUMN_CHARS

strata_table = Table(
    "review_sample_strata", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source_project", String(KEY), nullable=False, index=True),
    Column("stratum", String(KEY), nullable=False),
    Column("design", String(32), nullable=False),
    Column("seed", Integer, nullable=False),
    Column("population", Integer, nullable=False),  # N_h when drawn
    Column("sample", Integer, nullable=False),  # n_h drawn
    Column("drawn_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("source_project", "stratum", name="uq_review_sample_strata"),
)
items_table = Table(
    "review_sample_items", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source_project", String(KEY), nullable=False, index=True),
    Column("task_id", String(KEY), nullable=False),
    Column("stratum", String(KEY), nullable=False),
    UniqueConstraint("source_project", "task_id", name="uq_review_sample_items"),
)


class SampleStore:
    """Read and write one source project's draw (at most one per project)."""

    def __init__(self, engine: Engine) -> None:
        self.db_engine = engine
        ensure_schema(engine)

    def draw(self, source_project: str) -> Draw | None:
        """The stored draw of ``source_project``, or None when no sample was drawn."""
        key = str(source_project)
        with self.db_engine.connect() as conn:
            strata = list(conn.execute(select(strata_table).where(strata_table.c.source_project == key)
                                       .order_by(strata_table.c.stratum)))
            items = list(conn.execute(select(items_table).where(items_table.c.source_project == key)
                                      .order_by(items_table.c.id)))
        if not strata:
            return None
        sizes = {r.stratum: (r.population, r.sample) for r in strata}
        drawn = tuple(DrawnItem(r.task_id, r.stratum, *sizes[r.stratum]) for r in items)
        return Draw(design=strata[0].design, seed=strata[0].seed, strata={k: v[0] for k, v in sizes.items()},
                    items=drawn)

    def save(self, source_project: str, draw: Draw) -> None:
        """Store ``draw`` in one transaction (the unique keys refuse a second draw for the project)."""
        key, now, planned = str(source_project), datetime.now(timezone.utc), draw.sample_sizes()
        with self.db_engine.begin() as conn:
            conn.execute(strata_table.insert(), [
                {"source_project": key, "stratum": name, "design": draw.design, "seed": draw.seed,
                 "population": size, "sample": planned[name], "drawn_at": now}
                for name, size in draw.strata.items()])
            if draw.items:
                conn.execute(items_table.insert(), [
                    {"source_project": key, "task_id": i.task_id, "stratum": i.stratum} for i in draw.items])

    def grow(self, source_project: str, draw: Draw) -> None:
        """Store a larger ``draw`` of the same design over the stored one (``review push --until-width``'s next batch).

        One transaction: each stratum's n_h updated, the new items added; an item drawn before is never dropped
        (ValueError), so the sample only grows and every earlier batch stays a prefix of it.
        """
        key, planned = str(source_project), draw.sample_sizes()
        stored = self.draw(key)
        if stored is None:
            self.save(key, draw)
            return
        had = {i.task_id for i in stored.items}
        if not had <= {i.task_id for i in draw.items} or stored.design != draw.design or stored.seed != draw.seed:
            raise ValueError("a control sample only grows: the new draw must keep every item drawn before")
        with self.db_engine.begin() as conn:
            for name in draw.strata:
                conn.execute(strata_table.update().where(strata_table.c.source_project == key)
                             .where(strata_table.c.stratum == name).values(sample=planned[name]))
            fresh = [{"source_project": key, "task_id": i.task_id, "stratum": i.stratum}
                     for i in draw.items if i.task_id not in had]
            if fresh:
                conn.execute(items_table.insert(), fresh)

    def sampled_ids(self, source_project: str) -> frozenset[str]:
        """Ids of the drawn items (the review treats them as controls: the experts decide them)."""
        draw = self.draw(source_project)
        return frozenset(i.task_id for i in draw.items) if draw else frozenset()


def ensure_draw(store: SampleStore, source_project: str, candidates: Sequence[Candidate], *, budget: int,
                design: str, seed: int, bands: Sequence[float] = ()) -> tuple[Draw, bool]:
    """The project's draw, made and stored now if there is none: (draw, whether it is new).

    A repeated request (same design and seed, a size at least the drawn one) gets the stored draw;
    another design, seed or a smaller size is refused, because re-drawing until a sample looks
    convenient would make the estimate no longer rest on a random sample.
    """
    existing = store.draw(source_project)
    if existing is not None:
        drawn = sum(n for name, n in existing.sample_sizes().items() if name != FLAGGED_REVIEWED)
        if existing.design != design or existing.seed != seed or budget < drawn:
            raise ValueError(f"a {existing.design} sample of {drawn} items (seed {existing.seed}) was already drawn "
                             "for this project; it is kept and never re-drawn")
        return existing, False
    draw = draw_sample(candidates, budget=budget, design=design, seed=seed, bands=bands)
    store.save(source_project, draw)
    return draw, True
