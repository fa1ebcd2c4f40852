"""``LABEL_AUDIT_ORDER_SKIP=margin:M``: the lossy second-order skip the bench replays, as a product option.

The engine with the margin rule on must ask the second order of exactly the items the bench's replay
(``bench/order_policies.py``, the same rule over a full two-order run) asks again, and give their verdicts; an
item answered from one order keeps an empty second order in :attr:`ItemResult.questions`, as under the exact
rule; the model version changes with the margin and only with it (off and exact keep the versions written
before). The content judge of ``test_order_skip_engine`` needs no model; the last test runs the embedded one.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace

import pytest
from rich.console import Console

from backend.config.settings import Settings
from backend.scoring.engine_config import EngineConfig
from backend.scoring.members import MemberSpec, build_members, ensemble_fingerprint, parse_member_arg
from backend.scoring.order_skip import OrderSkip, margin_skippable
from backend.scoring.question_engine import make_engine
from backend.task.dataset import Item
from backend.task.generic import generic_spec
from backend.worker.ensemble_config import EnsembleConfig
from tests.backend.costs.test_order_skip_engine import LABELS, ContentJudge
from tests.support.bench_module import load_bench_module

SPEC = generic_spec(labels=LABELS, fields=["text"], option_orders=2)
#: Threshold 0.5; against the given label: 0.025 (far below), 0.95 (far above), 0.6 and 0.45 (near the cut).
ITEMS = [Item(id="right", original="sport", fields={"text": "sport 0.95"}),
         Item(id="wrong", original="sport", fields={"text": "politics 0.95"}),
         Item(id="near-above", original="sport", fields={"text": "politics 0.6"}),
         Item(id="near-below", original="sport", fields={"text": "science 0.45"})]


def _policies():
    return load_bench_module("order_policies")


def _content_members(judge: ContentJudge | None = None) -> list:
    judge = judge or ContentJudge()
    return build_members([MemberSpec(provider=judge.name, model=judge.model, prompts=("generic-question",))],
                         SPEC, provider_factory=lambda e: judge)


def _content_run(order_skip: OrderSkip | bool):
    """The content judge over ITEMS at threshold 0.5: results, the judge's calls, the engine."""
    judge = ContentJudge()
    engine = make_engine(SPEC, _content_members(judge), cache=None,
                         config=EngineConfig(threshold=0.5, order_skip=order_skip))
    return list(engine.score(ITEMS)), judge.calls, engine


def _asked_again(results) -> list[str]:
    return [r.id for r in results if r.questions and r.questions[1].members]


# -- the setting -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, expected", [
    ("", OrderSkip()), ("false", OrderSkip()), ("off", OrderSkip()), ("0", OrderSkip()),
    ("true", OrderSkip("exact")), ("exact", OrderSkip("exact")), ("ON", OrderSkip("exact")), ("1", OrderSkip("exact")),
    ("margin:0.1", OrderSkip("margin", 0.1)), (" Margin: 0.25 ", OrderSkip("margin", 0.25)),
])
def test_the_setting_reads_off_exact_and_margin(raw, expected):
    settings = Settings.from_env({"LABEL_AUDIT_ORDER_SKIP": raw})
    assert settings.order_skip == expected and settings.engine_config().order_skip == expected
    assert bool(settings.order_skip) is (expected.mode != "off")


@pytest.mark.parametrize("raw", ["maybe", "margin", "margin:", "margin:0", "margin:1", "margin:-0.1", "margin:1.5",
                                 "margin:x", "margin:nan", "margin:inf", "exact:0.1", "0.1"])
def test_anything_else_is_refused_at_settings_load(raw):
    with pytest.raises(ValueError, match=r"LABEL_AUDIT_ORDER_SKIP must be .*margin:M with 0 < M < 1"):
        Settings.from_env({"LABEL_AUDIT_ORDER_SKIP": raw})


def test_the_default_is_off_and_bools_given_directly_are_read_as_before():
    assert Settings.from_env({}).order_skip == OrderSkip() and not Settings.from_env({}).engine_config().order_skip
    assert Settings(order_skip=True).order_skip == OrderSkip("exact")  # a field set in code, not from the env
    assert EngineConfig(order_skip=False).order_skip == OrderSkip() and EngineConfig().order_skip == OrderSkip()
    assert EngineConfig(order_skip="margin:0.2").order_skip == OrderSkip("margin", 0.2)
    for bad in (dict(mode="margin"), dict(mode="exact", margin=0.1), dict(mode="lossy"), dict(mode="margin", margin=1.0)):
        with pytest.raises(ValueError):
            OrderSkip(**bad)
    with pytest.raises(ValueError, match="order_skip must be"):
        EngineConfig(order_skip="margin:2")


# -- the rule, the engine and the replay -------------------------------------------------------------------

def test_the_margin_asks_again_only_near_the_threshold():
    full, full_calls, _ = _content_run(False)
    margin, calls, engine = _content_run(OrderSkip("margin", 0.2))
    assert (full_calls, calls) == (8, 6)  # "right" and "wrong" are far from 0.5: one order each
    assert _asked_again(margin) == ["near-above", "near-below"] and _asked_again(full) == [r.id for r in full]
    assert [len(r.questions) for r in margin] == [2] * 4  # the skipped order is kept, empty, as under exact
    assert [r.flagged for r in margin] == [r.flagged for r in full] == [False, True, True, False]
    assert margin[0].probs == margin[0].questions[0].probs and margin[2].probs == full[2].probs
    exact, exact_calls, _ = _content_run(True)  # at 0.5 the exact bound settles nothing (order_skip module)
    assert exact_calls == 8 and _asked_again(exact) == _asked_again(full)
    rule = engine.rules[0]
    assert [margin_skippable(r.questions[0], r.original, rule, margin=0.2) for r in full] == [True, True, False, False]


def test_the_rule_asks_again_without_a_verdict_an_original_or_the_quorum():
    full, _, engine = _content_run(False)
    first, rule = full[1].questions[0], engine.rules[0]
    assert margin_skippable(first, "sport", rule, margin=0.1)
    assert not margin_skippable(first, None, rule, margin=0.1)
    assert not margin_skippable(replace(first, insufficient=True), "sport", rule, margin=0.1)
    assert not margin_skippable(replace(first, probs=None), "sport", rule, margin=0.1)


@pytest.mark.parametrize("margin", [0.05, 0.2, 0.5])
def test_the_engine_asks_again_what_the_replay_asks_again(margin):
    full, _, engine = _content_run(False)
    replayed = _policies().replay(full, engine.rules[0], _policies().margin_skips(margin))
    product, _, _ = _content_run(OrderSkip("margin", margin))
    assert _asked_again(product) == [r.id for r in replayed.results if r.questions]
    for ours, theirs in zip(product, replayed.results):
        assert (ours.id, ours.flagged, ours.prediction) == (theirs.id, theirs.flagged, theirs.prediction)
        assert ours.probs == pytest.approx(theirs.probs, abs=1e-12)


# -- the model version ------------------------------------------------------------------------------------

#: ``ensemble_fingerprint`` of the content judge on SPEC and the backend's version of local:smollm2 on SPEC,
#: computed on main at 520c7a2, before the setting took a margin: off and exact must keep them. The backend's was
#: computed again when generic-definitions became v3 (a prompt's text enters the model version, as it should).
#: Both without a prior correction (``none``, named: a correction is a version of its own).
PINNED_SCORE_VERSION = "b6a4d33d27bc"
PINNED_BACKEND_VERSION = "label-audit-6f708c0273a9"


def _backend_version(raw: str) -> str:
    settings = Settings.from_env({"LABEL_AUDIT_ORDER_SKIP": raw, "LABEL_AUDIT_PRIOR_CORRECTION": "none"},
                                 members=(parse_member_arg("local:smollm2"),))
    return EnsembleConfig(settings).model_version(SPEC)


def test_the_model_version_changes_with_the_margin_and_only_with_it():
    members = _content_members()
    versions = {raw: ensemble_fingerprint(members, SPEC, order_skip=OrderSkip.parse(raw))
                for raw in ("false", "exact", "margin:0.1", "margin:0.2")}
    assert versions["false"] == versions["exact"] == ensemble_fingerprint(members, SPEC) == PINNED_SCORE_VERSION
    assert len({versions["false"], versions["margin:0.1"], versions["margin:0.2"]}) == 3
    backend = {raw: _backend_version(raw) for raw in ("", "true", "margin:0.1", "margin:0.2")}
    assert backend[""] == backend["true"] == PINNED_BACKEND_VERSION
    assert len({backend[""], backend["margin:0.1"], backend["margin:0.2"]}) == 3


def test_the_run_summary_carries_the_margins_model_version(tmp_path):
    from backend.commands.score import run_scoring

    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps({"id": it.id, "text": it.fields["text"], "label": it.original}) + "\n"
                            for it in ITEMS), "utf-8")

    def summary(order_skip: OrderSkip) -> dict:
        return run_scoring(data, SPEC, _content_members(), config=EngineConfig(threshold=0.5, order_skip=order_skip),
                           cache=None, out=tmp_path / "out.jsonl", summary_json=None, top=3, progress=False,
                           console=Console(file=io.StringIO()), prior_correction="none")

    off, margin = summary(OrderSkip()), summary(OrderSkip("margin", 0.2))
    assert off["model_version"] == PINNED_SCORE_VERSION != margin["model_version"]
    assert (off["flagged"], margin["flagged"]) == (2, 2) and margin["llm_calls"] == off["llm_calls"] - 2
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text("utf-8").splitlines()]
    assert [[len(q["members"]) for q in r["questions"]] for r in written] == [[1, 0], [1, 0], [1, 1], [1, 1]]


# -- the embedded judge -----------------------------------------------------------------------------------

@pytest.mark.llm
def test_on_the_embedded_judge_the_engine_matches_the_replay(smollm2_path):
    """local:smollm2 through the real engine: one full two-order run, replayed with a margin chosen between the
    items' distances to the threshold (so some items skip and some are asked again), then the engine with that
    margin: same items asked again, same verdicts, a second-order call fewer per skipped item."""
    texts = ["The striker scored twice in the final.", "The senate passed the budget bill.",
             "The telescope found water on a distant planet.", "The coach was sacked after the defeat.",
             "Parliament voted on the new tax law.", "A new vaccine was tested on mice."]
    items = [Item(id=f"i{k}", original=LABELS[(k + (k % 2)) % 3], fields={"text": t}) for k, t in enumerate(texts)]
    members = build_members([MemberSpec(provider="local", model="smollm2", prompts=("generic-question",))], SPEC)

    def run(order_skip):
        engine = make_engine(SPEC, members, cache=None, config=EngineConfig(order_skip=order_skip))
        return list(engine.score(items)), engine

    full, engine = run(OrderSkip())
    rule, cut = engine.rules[0], engine.threshold
    gaps = sorted({abs(max(p for lab, p in r.questions[0].probs.items() if lab != r.original) - cut) for r in full})
    assert len(gaps) > 1, "every item equally far from the threshold: no margin splits them"
    margin = (gaps[len(gaps) // 2 - 1] + gaps[len(gaps) // 2]) / 2  # the nearer half asked again, the rest not
    replayed = _policies().replay(full, rule, _policies().margin_skips(margin))
    product, product_engine = run(OrderSkip("margin", margin))
    asked = _asked_again(product)
    assert asked == [r.id for r in replayed.results if r.questions] and 0 < len(asked) < len(items)
    assert product_engine.stats.llm_calls == engine.stats.llm_calls - (len(items) - len(asked))
    for ours, theirs in zip(product, replayed.results):
        assert (ours.id, ours.flagged, ours.prediction) == (theirs.id, theirs.flagged, theirs.prediction)
        assert ours.probs == pytest.approx(theirs.probs, abs=1e-9)
