"""`python -m bench.simulate`: every figure of the report against a planted truth, over many replicates.

Run: ``python -m bench.simulate [--replicates 500] [--seed 0] [--jobs 2] [--items 300] [--families ...] [--designs ...]
[--all-sections] [--write-docs docs/statistics.md]``. Prints the coverage table (Markdown) and, with ``--write-docs``, writes
it into docs/statistics.md between its markers. The same ``--replicates`` and ``--seed`` give the same table.
Time: about 0.5 s of CPU per replicate (150 items, the checked sections; controls 0.9 s, binary 0.6, spans 0.2; the
sources' table's 200 bootstrap refits are most of it), so the default grid at 500 replicates is about 1.3 h of CPU;
``--estimate`` runs 3 replicates of each cell and prints the estimate for the asked ``--replicates``;
``--checkpoint`` writes the table after every round of ``--round`` replicates per cell.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import sklearn.linear_model  # noqa: F401  (loads scipy's BLAS and sklearn's OpenMP now: threadpool_limits reaches
from threadpoolctl import threadpool_limits  # only the pools loaded when it is entered)

from .coverage import Tallies
from .designs import DESIGNS
from .figures import control_truths, figures
from .pipeline import Runner
from .projects import CASES
from .table import markdown, write_into


#: The designs every family runs; the two only the binary and the several-control projects run (they vary the
#: review, not the family); the designs without sampling error, which need few replicates.
EVERY_FAMILY = ("random", "stratified", "flagged", "census")
SOME_FAMILIES = {"control": ("binary", "controls"), "round2": ("binary", "controls")}
FEW = ("census", "flagged")
#: Replicates per task sent to a worker (and per round of --checkpoint).
CHUNK = 25


def grid(families: list[str], designs: list[str]) -> list[tuple[str, str]]:
    """The (family, design) cells run: every asked family on the asked designs that apply to it."""
    return [(f, d) for f in families for d in designs if d in EVERY_FAMILY or f in SOME_FAMILIES.get(d, ())]


def run_cell(family: str, design: str, seeds: list[int], every_section: bool = False,
             items: int | None = None) -> list[tuple]:
    """One (family, design) cell's replicates, each as (planted counts per control, printed figures).

    One BLAS thread: the report's small fits (the judge rows' logistic calibration) spin on a second thread that
    a loaded 2-core machine does not give them (docs/architecture.md#one-blas-thread-while-fitting): 1.9 s -> 1.0 s
    per replicate under load, the same figures.
    """
    with threadpool_limits(limits=1), tempfile.TemporaryDirectory(prefix="simulate-") as tmp:
        db = f"sqlite:///{Path(tmp) / 'audit.sqlite'}"
        runner = Runner(db, sections=None) if every_section else Runner(db)
        out = []
        for seed in seeds:
            case = CASES[family] if items is None else replace(CASES[family], items=items)
            rep = runner.run(case, DESIGNS[design], seed=seed)
            out.append((control_truths(rep), list(figures(rep.report))))
        return out


def _chunks(seeds: list[int], size: int) -> list[list[int]]:
    return [seeds[k:k + size] for k in range(0, len(seeds), size)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=500, help="replicates per family and design")
    parser.add_argument("--census-replicates", type=int, default=20,
                        help="replicates of the census and flagged designs (no sampling error: the census is exact)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--families", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=list(DESIGNS))
    parser.add_argument("--write-docs", type=Path, default=None, help="write the table into this Markdown file")
    parser.add_argument("--items", type=int, default=None, help="items per planted project (default: each case's, 300)")
    parser.add_argument("--all-sections", action="store_true",
                        help="build the whole report (slower): every figure with an interval is listed, checked or not")
    parser.add_argument("--estimate", action="store_true", help="time 3 replicates per cell, print the estimate")
    parser.add_argument("--checkpoint", action="store_true",
                        help="with --write-docs: write the table after every round of --round replicates per cell "
                             "(stopped early, the file holds the table of the replicates that finished)")
    parser.add_argument("--round", type=int, default=CHUNK,
                        help=f"replicates per cell sent to a worker at once, and per --checkpoint (default {CHUNK})")
    args = parser.parse_args(argv)
    if min(args.replicates, args.jobs, args.census_replicates, args.round) < 1 or (args.items is not None and args.items < 20):
        parser.error("--replicates, --census-replicates, --round and --jobs must be at least 1, --items at least 20")
    cells = grid(args.families, args.designs)
    if args.estimate:
        start = time.perf_counter()
        for family, design in cells:
            run_cell(family, design, [args.seed * 1_000_003 + k for k in range(3)], args.all_sections, args.items)
        per = (time.perf_counter() - start) / (3 * len(cells))
        total = per * sum(args.census_replicates if d in FEW else args.replicates for _, d in cells) / args.jobs
        print(f"{per:.2f} s per replicate; {len(cells)} cells × {args.replicates} replicates with --jobs {args.jobs}: "
              f"about {total / 60:.0f} min")
        return 0
    def seeds(design: str) -> list[int]:
        n = args.census_replicates if design in FEW else args.replicates
        return [args.seed * 1_000_003 + k for k in range(n)]

    # round by round: the k-th chunk of every cell before any cell's (k+1)-th, so after each round every cell has
    # the same replicates (a cell's own replicates are still added in seed order: its figures do not depend on
    # the interleaving) and --checkpoint writes the table those replicates give
    chunks = {(f, d): _chunks(seeds(d), args.round) for f, d in cells}
    rounds = max(len(c) for c in chunks.values())
    work = [(f, d, chunks[f, d][k], k) for k in range(rounds) for f, d in cells if k < len(chunks[f, d])]
    tallies = Tallies()
    started = time.perf_counter()

    def table(done: int) -> str:
        return markdown(tallies.rows(), replicates=done, census=min(done, args.census_replicates), seed=args.seed,
                        items=args.items or CASES[args.families[0]].items)

    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_cell, f, d, chunk, args.all_sections, args.items) for f, d, chunk, _ in work]
        for k, ((family, design, _, index), future) in enumerate(zip(work, futures)):
            for truths, printed in future.result():  # in submission order: the table does not depend on timing
                tallies.add(family, design, truths, printed)
            print(f"[{k + 1}/{len(work)}] {family} {design} ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
            last_of_round = k + 1 == len(work) or work[k + 1][3] != index
            if last_of_round and args.checkpoint and args.write_docs is not None and k + 1 < len(work):
                write_into(args.write_docs, table(min(args.replicates, (index + 1) * args.round)))
                print(f"checkpoint: {min(args.replicates, (index + 1) * args.round)} replicates per cell written to "
                      f"{args.write_docs}", file=sys.stderr)
    print(table(args.replicates))
    if args.write_docs is not None:
        write_into(args.write_docs, table(args.replicates))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
