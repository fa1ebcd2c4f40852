"""``cleanlab:tfidf-logreg`` as an ensemble member: chosen like any member, one fit per run, cache reuse and
invalidation, left out with the reason below the minimum. Real scikit-learn and cleanlab; the demo's
self-written tickets (planted errors known)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from backend.scoring.cache import CallCache
from backend.commands.score import run_scoring
from backend.confident.fitting import prepare_members
from backend.demo.tickets import LABELS, ticket_records
from backend.scoring.engine import EngineConfig
from backend.task.dataset import Item
from backend.task.generic import generic_spec
from backend.scoring.members import MemberSpec, build_members, members_from_config
from backend.config.settings import Settings
from backend.task.spec import load_spec

SPEC = generic_spec(labels=list(LABELS), fields=["text"], name="tickets")
CLEANLAB = MemberSpec(provider="cleanlab", model="tfidf-logreg")


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def score(path: Path, cache: CallCache, tmp_path: Path):
    members = build_members([CLEANLAB], SPEC)
    out = tmp_path / "out.jsonl"
    summary = run_scoring(path, SPEC, members, config=EngineConfig(), cache=cache, out=out, summary_json=None,
                          top=5, progress=False, console=Console(file=open("/dev/null", "w")))
    return members[0].provider, summary, [json.loads(line) for line in out.read_text().splitlines()]


def test_fitted_once_per_run_cached_and_refitted_when_a_label_changes(tmp_path):
    records = ticket_records(n=150, error_rate=0.1, seed=7)
    path = write(tmp_path / "tickets.jsonl", records)
    cache = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    provider, summary, results = score(path, cache, tmp_path)
    assert provider.fits == 1  # 150 items, one fit
    flagged = [r for r in results if r["flagged"]]
    hits = sum(r["data"]["planted"] for r in flagged)
    assert hits >= 12 and hits / len(flagged) >= 0.7  # 15 planted; chance precision would be 0.1
    ranking = summary["confident_learning"]["cleanlab_ranking"][0]
    assert ranking["items"] == 150 and ranking["issues"] > 0 and ranking["also_flagged_by_ensemble"] > 0
    assert summary["top_suspects"][0]["found_by"] == ["cleanlab:tfidf-logreg/features@v1"]

    again, summary2, results2 = score(path, cache, tmp_path)  # same items and labels: every answer cached
    assert again.fits == 0 and summary2["cache_hits"] == 150
    assert [r["flagged"] for r in results2] == [r["flagged"] for r in results]

    records[0] = {**records[0], "label": next(c for c in LABELS if c != records[0]["label"])}
    edited, summary3, _ = score(write(path, records), cache, tmp_path)
    assert edited.fits == 1 and summary3["cache_hits"] == summary["cache_hits"]  # new training set: refit, no reuse
    cache.close()


def test_left_out_with_the_reason_below_the_minimum_and_refused_alone():
    spec = load_spec("factual-consistency")  # the 24-item sample: 12 per class, below 20
    from backend.task.dataset import read_items
    from importlib import resources

    with resources.as_file(resources.files("backend").joinpath("data", "sample_factual_consistency.jsonl")) as f:
        items = list(read_items(f, spec))
    members = build_members([CLEANLAB, MemberSpec(provider="local", model="smollm2", prompts=("fc-premise-hypothesis",))],
                            spec)
    prepared = prepare_members(members, items, spec, delimit=True)
    assert [m.kind for m in prepared.members] == ["local"]
    (reason,) = prepared.left_out.values()
    assert "too few labelled items per class" in reason and "minimum is 20" in reason
    with pytest.raises(ValueError, match="no member left"):
        prepare_members(build_members([CLEANLAB], spec), items, spec, delimit=True)


def test_chosen_from_the_environment_and_members_files_with_options(tmp_path):
    settings = Settings.from_env({"LABEL_AUDIT_MEMBERS": "cleanlab:tfidf-logreg"})
    (member,) = build_members(settings.members, SPEC)
    assert member.id == "cleanlab:tfidf-logreg/features@v1" and member.kind == "cleanlab"
    file = tmp_path / "members.yaml"
    file.write_text("- provider: cleanlab\n  model: tfidf-logreg\n  options: {folds: 3, min_per_class: 5}\n")
    (member,) = members_from_config(file, SPEC)
    assert member.provider.cache_params()["folds"] == 3
    file.write_text("- provider: cleanlab\n  model: tfidf-logreg\n  options: {folds: 1}\n")
    with pytest.raises(ValueError, match="folds"):
        members_from_config(file, SPEC)
    with pytest.raises(ValueError, match="unknown confident-learning classifier"):
        build_members([MemberSpec(provider="cleanlab", model="bert")], SPEC)


def test_asked_in_the_first_option_order_only_beside_a_judge_asked_in_every_order(tmp_path):
    """Its classifier answers by class, not by letter: a second order would repeat its answer (and its fit)."""
    from backend.families.orders import position_flips
    from backend.scoring.question_engine import make_engine
    from backend.task.option_orders import with_option_orders
    from tests.support.position_judge import LetterBiasedJudge

    records = ticket_records(n=90, error_rate=0.1, seed=3)
    items = [Item(id=str(r["id"]), original=r["label"], fields={"text": r["text"]}) for r in records]
    spec = with_option_orders(SPEC, 2)
    judge = LetterBiasedJudge(share=0.5)
    members = [*build_members([CLEANLAB], spec),
               *build_members([MemberSpec(provider=judge.name, model=judge.model, prompts=("generic-question",))],
                              spec, provider_factory=lambda e: judge)]
    members = prepare_members(members, items, spec, delimit=True).members
    cache = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    engine = make_engine(spec, members, cache=cache)
    results = list(engine.score(items))
    cleanlab_id, judge_id = members[0].id, members[1].id
    for result in results:
        first, second = result.questions
        assert [m.member_id for m in first.members] == [cleanlab_id, judge_id]
        assert [m.member_id for m in second.members] == [judge_id]  # the classifier is not asked again
        merged = {m.member_id: m for m in result.members}
        assert merged[cleanlab_id].probs == first.members[0].probs  # its one answer, not halved or averaged
        assert set(position_flips(result, spec.labels)) == {judge_id}
    assert members[0].provider.fits == 1
    assert len(judge.prompts) == 2 * len(items)  # the judge still answers both orders
    assert engine.stats.llm_calls == 3 * len(items)  # 90 classifier answers + 2 x 90 judge calls
    cache.close()


def test_alone_in_several_option_orders_it_is_asked_once_and_fitted_once(tmp_path):
    """No member reads the letters: the other orders are not asked at all (a worker job asking them again
    missed the primed cache and refitted per job)."""
    from backend.scoring.question_engine import make_engine
    from backend.task.option_orders import with_option_orders

    records = ticket_records(n=90, error_rate=0.1, seed=3)
    items = [Item(id=str(r["id"]), original=r["label"], fields={"text": r["text"]}) for r in records]
    spec = with_option_orders(SPEC, 2)
    members = prepare_members(build_members([CLEANLAB], spec), items, spec, delimit=True).members
    cache = CallCache(f"sqlite:///{tmp_path / 'cache.sqlite'}")
    once = list(make_engine(SPEC, prepare_members(build_members([CLEANLAB], SPEC), items, SPEC,
                                                   delimit=True).members, cache=None).score(items))
    engine = make_engine(spec, members, cache=cache)
    results = list(engine.score(items))
    assert engine.stats.llm_calls == len(items) and members[0].provider.fits == 1
    for result, alone in zip(results, once):
        assert len(result.members) == 1 and [len(q.members) for q in result.questions] == [1, 0]
        assert result.members[0].probs == pytest.approx(alone.members[0].probs)
        assert result.prediction == alone.prediction and result.flagged == alone.flagged
    cache.close()
