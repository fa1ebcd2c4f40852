"""The real judge's answers, kept in the repository so the benchmarks replay without calling it again.

Why: ``bench_presentations.py`` on the real judge costs 2-5 CPU-seconds a call and a full set x presentation table
some 7,000 calls (hours on 2 cores); every reading, threshold and skip rule it reports is computed over the same
answers. The call cache that holds them is a local SQLite file a fresh machine does not have. This file moves
the cache's rows of one model into a gzipped JSON-lines file and back (``seed``): a run seeded from it makes no
call for any prompt already answered, and one whose prompts changed (a rewritten template, another
presentation) asks only those. Rows are keyed by the cache's own content hash (:func:`backend.scoring.cache.call_key`),
so a stale row is simply never looked up.

Run::

    python bench/recorded_answers.py export --model qwen2.5-coder-1.5b --out bench/data/real_judge_answers.jsonl.gz
    python bench/bench_presentations.py --answers bench/data/real_judge_answers.jsonl.gz ...   # seeds, then runs
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Sequence

from sqlalchemy import select

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from backend.providers.base import ClassDistribution  # noqa: E402
from backend.scoring.cache import CallCache, llm_call_cache  # noqa: E402

DEFAULT_CACHE = f"sqlite:///{ROOT / '.label-audit' / 'bench_presentations.sqlite'}"


def export(cache: CallCache, path: Path, *, model: str) -> int:
    """Write every cached answer of ``model`` to ``path`` (gzipped JSON lines, sorted by key: a re-export of the
    same answers gives the same file); return how many."""
    cols = llm_call_cache.c
    query = (select(cols.key, cols.provider, cols.model, cols.template_id, cols.template_version, cols.distribution,
                    cols.latency_s).where(cols.model == model).order_by(cols.key))
    with cache.db_engine.connect() as conn:
        rows = conn.execute(query).all()
    with gzip.GzipFile(filename="", mode="wb", fileobj=path.open("wb"), mtime=0) as out:
        for key, provider, name, template_id, version, blob, latency in rows:
            line = {"key": key, "provider": provider, "model": name, "template_id": template_id,
                    "template_version": version, "distribution": json.loads(blob), "latency_s": latency}
            out.write((json.dumps(line, sort_keys=True) + "\n").encode("utf-8"))
    return len(rows)


def seed(cache: CallCache, path: Path) -> int:
    """Put every answer of ``path`` into ``cache`` (a key already there is left as it is); return how many were read."""
    n = 0
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for raw in lines:
            row = json.loads(raw)
            cache.put(row["key"], ClassDistribution.from_dict(row["distribution"]), provider=row["provider"],
                      model=row["model"], template_id=row["template_id"], template_version=row["template_version"],
                      latency_s=row["latency_s"])
            n += 1
    return n


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("export", "seed"))
    parser.add_argument("--cache-url", default=DEFAULT_CACHE)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="export: the model whose answers to keep")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "data" / "real_judge_answers.jsonl.gz",
                        help="export: the file to write; seed: the file to read")
    args = parser.parse_args(argv)
    (ROOT / ".label-audit").mkdir(exist_ok=True)
    cache = CallCache(args.cache_url)
    try:
        n = export(cache, args.out, model=args.model) if args.action == "export" else seed(cache, args.out)
    finally:
        cache.close()
    print(f"{args.action}: {n} answers ({args.out})")


if __name__ == "__main__":
    main()
