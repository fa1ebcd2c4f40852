"""Rankings of a list of responses (``<List>`` + ``<Ranker>``): every pair of ranked responses asked in both orders.

Label Studio's *LLM Ranker* template shows a ``<List>`` of responses (task data: a list of objects with ``id``,
``title``, ``body``) and a ``<Ranker>`` over it, perhaps with ``<Bucket>`` columns. A person's drag on Label
Studio 1.23.2 reads back as ``{"from_name": "rank", "to_name": "answers", "type": "ranker", "value": {"ranker":
{<column>: [ids...]}}}`` (docs/controls.md): one list of ids per column, in the order shown; without buckets the
one column is keyed by the ranker's own name (``{"rank": [...]}``), with buckets each bucket by its name and the
list's own column by ``"_"``. The label value
is that ``ranker`` object as compact JSON, its columns in the config's order, so the ledger and the review
stores keep one string per item and write it back unchanged.

What is ranked: the ids the annotator *placed*, best first. Without buckets the list's own column is the
ranking; with buckets, the buckets in config order (the first the best), each in its own order, and the ids
left in the list's column are not ranked (a bucket picks; nothing says how an unpicked response compares).

A judge ranks nothing at once. Each pair of ranked positions (p, q), p above q in the original, is one
preference question asked in both orders (the pairwise family's wording, :mod:`backend.families.pairwise`),
so a judge's lean to the response shown first cancels (:func:`backend.families.orders.merge_orders`). The
question's original answer is always "the first is better" (p ranks above q): the judge never learns which
one the annotator put first, since both orders are asked. The ensemble's ranking is Borda's (each position's
summed probability of beating the others; a tie keeps the original order), written back in the original's
columns and column sizes; its Kendall τ against the original is kept in the verdict's data. The item is
flagged when more pairs than the lead allows (``--delta`` / ``LABEL_AUDIT_DELTA``; default
:data:`backend.common.defaults.RANKER_SWAPS`) are confidently reversed (the pair's verdict is flagged under the
usual threshold).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from itertools import combinations
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from xml.sax.saxutils import quoteattr

from backend.common import defaults
from backend.common.defaults import STORE_COLUMN_CHARS
from backend.families.answers import control_answer
from backend.families.ranker_blind import blind_value
from backend.families.ranking import columns_of, dump, kendall_distance, kendall_tau, ranked_ids, reordered
from backend.families.orders import merge_orders
from backend.families.pairwise import FIRST, LEFT, ORDERS, RIGHT, SECOND, SHOWN
from backend.scoring.ensemble import VerdictRule
from backend.scoring.results import ErrorInfo, ItemResult, input_hash
from backend.task.family import Question, TaskFamily, questions_params, register_family
from backend.task.generic import derived_options, generic_spec
from backend.task.spec import PromptText

if TYPE_CHECKING:
    from backend.task.dataset import Item
    from backend.task.spec import TaskSpec

__all__ = ["MAX_RANKED", "RANKER_KEY", "RankerFamily", "RankerSetup", "review_xml"]

#: ``spec.extra`` key of the ranker's setup (:class:`RankerSetup` as a plain tuple).
RANKER_KEY = "ranker"
#: Responses compared per item at most: n ranked responses ask n(n-1) questions per judge (12: 132).
MAX_RANKED = 12
KIND = "ranker"


class RankerSetup(tuple):
    """``(list variable, list name, buckets, bucket titles)`` as the spec keeps it (``extra["ranker"]``)."""

    @classmethod
    def of(cls, spec: "TaskSpec") -> "RankerSetup":
        raw = spec.extra.get(RANKER_KEY)
        if not raw or len(raw) != 4 or raw[0] not in spec.fields:
            raise ValueError(f"a ranker spec names its list among its fields: extra['ranker'] = {raw!r}")
        return cls(raw)

    variable = property(lambda self: str(self[0]))
    list_name = property(lambda self: str(self[1]))
    buckets = property(lambda self: tuple(self[2]))
    titles = property(lambda self: tuple(self[3]))


def _pair_key(p: int, q: int) -> str:
    return f"r{p}-{q}"


def _question_keys() -> list[str]:
    """Every question's key, in question order: ``r<p>-<q>.<order>`` for p < q < MAX_RANKED."""
    return [f"{_pair_key(p, q)}.{order}" for p, q in combinations(range(MAX_RANKED), 2) for order in ORDERS]


def _parse_key(key: str) -> tuple[int, int, str]:
    pair, _, order = key.partition(".")
    p, q = pair[1:].split("-")
    return int(p), int(q), order


@register_family
class RankerFamily(TaskFamily):
    """A ranking of a list's responses, judged as preferences between the ranked pairs (module docstring)."""

    name = "ranker"
    one_text = False
    own_capabilities = frozenset({"ranking"})
    _SEE = ": the 'Rankings' section has the figures of a ranking"
    lacks = {"one_label": "members answer pairs of ranked responses, not one distribution per item, and a ranking "
                          "has no classes" + _SEE,
             "one_text": "the probes plant a single label, and p_d stratification needs one answer per item" + _SEE,
             "ordered": "rankings are not grades" + _SEE, "set": "a ranking is no set" + _SEE,
             "span": "a ranking marks no span" + _SEE,
             "preference": "the pairs of a ranking are no preference control" + _SEE}

    # -- the spec and its values -----------------------------------------------------------------------
    def check_spec(self, spec: "TaskSpec") -> None:
        RankerSetup.of(spec)

    def normalize_label(self, spec: "TaskSpec", value: Any) -> str | None:
        """A ranking (the ``ranker`` object, or its JSON text) -> its canonical JSON; None when it is none."""
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                return None
        columns = columns_of(value, RankerSetup.of(spec).buckets)
        return None if columns is None else dump(columns)

    def original_label(self, spec: "TaskSpec", labels: Sequence[str | None]) -> str | None:
        """The ranking most annotators gave (the first given on a tie): a ranking is kept whole, never averaged."""
        given = [lab for lab in labels if lab is not None]
        if not given:
            return None
        counts = Counter(given)
        return max(given, key=lambda lab: (counts[lab], -given.index(lab)))

    def split(self, spec: "TaskSpec", value: str) -> dict[str, str]:
        """Every question of a ranked pair -> "left" (the original puts its first position above its second)."""
        n = len(ranked_ids(value, RankerSetup.of(spec).buckets))
        return {f"{_pair_key(p, q)}.{o}": LEFT for p, q in combinations(range(min(n, MAX_RANKED)), 2) for o in ORDERS}

    def encode(self, spec: "TaskSpec", parts: Mapping[str, str]) -> str:
        raise ValueError("a ranking is not rebuilt from its pairs' answers (the family assembles it)")

    # -- questions -------------------------------------------------------------------------------------
    def questions(self, spec: "TaskSpec") -> tuple[Question, ...]:
        """One question per pair of ranked positions and order; asked only where the original ranks both."""
        specs = {order: self._order_spec(spec, order) for order in ORDERS}
        return tuple(Question(key, specs[key.rpartition(".")[2]], conditional=True) for key in _question_keys())

    def _order_spec(self, spec: "TaskSpec", order: str) -> "TaskSpec":
        """The pairwise question over two responses (the same two specs for every pair: one cache, one wording)."""
        setup, text = RankerSetup.of(spec), spec.prompt or PromptText()
        context = {var: spec.fields[var] for var in spec.fields if var != setup.variable}
        labels = [LEFT, RIGHT] if order == "ab" else [RIGHT, LEFT]
        titles = {var: text.titles.get(var, var) for var in context} | {FIRST: "Response 1", SECOND: "Response 2"}
        return generic_spec(labels=labels, fields={**context, FIRST: FIRST, SECOND: SECOND}, family="nominal",
                            name=f"{spec.name}#{order}", guidelines=text.guidelines,
                            shown=[SHOWN[LEFT], SHOWN[RIGHT]], titles=titles,
                            question=text.question or "Which response is better?", label_field=spec.label_field,
                            id_field=spec.id_field, option_orders=derived_options(spec)["option_orders"],
                            calibration="none")  # both orders already cancel the position lean

    def question_item(self, spec: "TaskSpec", question: Question, item: "Item") -> "Item":
        """Context first, then the p-th and q-th ranked responses in the question's order ("" past the ranking)."""
        setup = RankerSetup.of(spec)
        p, q, order = _parse_key(question.key)
        ranked = ranked_ids(item.original, setup.buckets)
        texts = _response_texts(item.fields.get(setup.variable, "[]"))
        first, second = (p, q) if order == "ab" else (q, p)
        fields = {var: text for var, text in item.fields.items() if var != setup.variable}
        fields[FIRST] = texts.get(ranked[first], "") if first < len(ranked) else ""
        fields[SECOND] = texts.get(ranked[second], "") if second < len(ranked) else ""
        return replace(item, fields=fields)

    def prompt_params(self, spec: "TaskSpec") -> dict[str, str]:
        """The two order questions' values (every pair asks one of these two specs)."""
        return questions_params(self.questions(spec)[:2])

    # -- the verdict -----------------------------------------------------------------------------------
    def assemble(self, spec: "TaskSpec", item: "Item", answers: Sequence[ItemResult], *,
                 rules: Sequence[Any] = ()) -> ItemResult:
        setup = RankerSetup.of(spec)
        first = rules[0] if rules else None
        rule = VerdictRule(self._order_spec(spec, "ab"), threshold=getattr(first, "threshold", None),
                           **({"quorum": first.quorum} if first is not None else {}))
        common = dict(id=item.id, original=item.original, line=item.line,
                      input_hash=input_hash(item.fields, item.images))
        ranked = ranked_ids(item.original, setup.buckets)
        problem = _unrankable(item, ranked, setup)
        if problem is not None:
            return ItemResult(prediction=None, confidence=None, probs=None, flagged=False, data=item.data,
                              error=problem, **common)
        by_key = dict(zip(_question_keys(), answers))
        pairs: list[ItemResult] = []
        for p, q in combinations(range(len(ranked)), 2):
            key = _pair_key(p, q)
            asked = [by_key[f"{key}.{o}"] for o in ORDERS]
            pairs.append(replace(merge_orders(replace(item, original=LEFT), asked, keys=ORDERS, rule=rule,
                                              labels=(LEFT, RIGHT)), id=key, data={}))
        return self._verdict(spec, item, ranked, pairs, delta=getattr(first, "delta", None), common=common)

    def _verdict(self, spec: "TaskSpec", item: "Item", ranked: list[str], pairs: list[ItemResult], *,
                 delta: int | None, common: dict[str, Any]) -> ItemResult:
        members = tuple(replace(m, member_id=f"{m.member_id}#{pair.id}") for pair in pairs for m in pair.members)
        answered = [pair for pair in pairs if pair.probs is not None]
        if len(answered) < len(pairs):
            failed = next(pair for pair in pairs if pair.probs is None)
            return ItemResult(prediction=None, confidence=None, probs=None, flagged=False, members=members,
                              questions=tuple(pairs), data=item.data,
                              error=failed.error or ErrorInfo("no_member_answered"), **common)
        above = {pair.id: float(pair.probs.get(LEFT, 0.0)) for pair in pairs}  # type: ignore[union-attr]
        borda = [0.0] * len(ranked)
        for p, q in combinations(range(len(ranked)), 2):
            borda[p] += above[_pair_key(p, q)]
            borda[q] += 1.0 - above[_pair_key(p, q)]
        order = sorted(range(len(ranked)), key=lambda k: (-borda[k], k))
        ensemble = [ranked[k] for k in order]
        swapped = [pair for pair in pairs if pair.flagged]
        allowed = defaults.RANKER_SWAPS if delta is None else delta
        tau = kendall_tau(ranked, ensemble)
        confidence = max((float(p.confidence or 0.0) for p in swapped), default=min(
            float(p.confidence or 0.0) for p in pairs))
        data = {**dict(item.data), "ranker_tau": round(tau, 4), "ranker_swapped": len(swapped),
                "ranker_ensemble": ensemble}
        return ItemResult(prediction=reordered(item.original, ensemble, RankerSetup.of(spec).buckets),
                          confidence=confidence, probs=above, flagged=len(swapped) > allowed, members=members,
                          insufficient=any(p.insufficient for p in pairs), questions=tuple(pairs), data=data,
                          **common)

    def disagrees(self, spec: "TaskSpec", prediction: str, original: str | None, *, delta: int | None = None) -> bool:
        """More swapped pairs than allowed between the two rankings (``delta``; default RANKER_SWAPS)."""
        if original is None:
            return False
        buckets = RankerSetup.of(spec).buckets
        allowed = defaults.RANKER_SWAPS if delta is None else delta
        return kendall_distance(ranked_ids(original, buckets), ranked_ids(prediction, buckets)) > allowed

    def describe_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        allowed = defaults.RANKER_SWAPS if delta is None else delta
        return (f"more than {allowed} pair(s) of ranked responses confidently reversed (each pair asked in both "
                "orders, averaged)")

    def short_flag_rule(self, spec: "TaskSpec", *, delta: int | None = None) -> str:
        return f", swaps > {defaults.RANKER_SWAPS if delta is None else delta}"

    # -- Label Studio ----------------------------------------------------------------------------------
    def read_result(self, spec: "TaskSpec", result: Sequence[Any]) -> str | None:
        """The ``ranker`` object of the control's region as canonical JSON; None without a region; ValueError for
        one that is no ranking (not an object of id lists, an id in two columns)."""
        control = spec.binding.from_name if spec.binding else ""
        if not control:
            return None
        return control_answer(result, control=control, kind=KIND, key=KIND, labels=("a ranking",),
                              read=lambda raw: self.normalize_label(spec, raw) if isinstance(raw, Mapping) else None)

    def write_result(self, spec: "TaskSpec", value: str) -> list[dict[str, Any]]:
        """The measured shape: ``to_name`` the ``<List>``, ``value.ranker`` the columns (docs/controls.md)."""
        setup = RankerSetup.of(spec)
        name = spec.binding.from_name if spec.binding else "rank"
        return [{"value": {KIND: json.loads(value)}, "from_name": name, "to_name": setup.list_name, "type": KIND}]

    def export(self, spec: "TaskSpec", value: str) -> Any:
        return json.loads(value)

    def placed(self, spec: "TaskSpec", value: str | None) -> list[str]:
        """The ids a ranking placed, best first ([] for None): what the report's "Rankings" section compares,
        read here so the section needs no bucket of the spec."""
        return ranked_ids(value, RankerSetup.of(spec).buckets)

    # -- review and gold -------------------------------------------------------------------------------
    def show_answer(self, spec: "TaskSpec", value: str) -> str:
        """``relevant: a > b; biased: c`` (ids as the list shows them; the list's own column as "ranked")."""
        setup = RankerSetup.of(spec)
        titles = dict(zip(setup.buckets, setup.titles))
        columns = json.loads(value)
        return "; ".join(f"{titles.get(k, 'ranked' if not setup.buckets else 'not placed')}: "
                         f"{' > '.join(str(i) for i in ids)}" for k, ids in columns.items() if ids)

    def disputed(self, spec: "TaskSpec", answers: Sequence[str], *, delta: int | None = None) -> tuple[str, ...]:
        """Two experts' rankings split when they differ by more swapped pairs than allowed."""
        return ("",) if any(self.disagrees(spec, a, b, delta=delta) for a, b in combinations(answers, 2)) else ()

    def review_config(self, spec: "TaskSpec", label_config: str, *, answer_fields: Sequence[str] = ()) -> str | None:
        """The blind view, built from the spec: the context under neutral titles, the list (no annotation, no
        prediction; each task's copy shuffled by :meth:`blind_data`) and the ranker with its buckets; round 2
        adds the round-1 answers (``answer_fields``: the data fields holding them,
        :mod:`backend.review.round1_text`)."""
        return review_xml(spec, answer_fields=answer_fields)

    def blind_data(self, spec: "TaskSpec", data: Mapping[str, Any], *, seed: str,
                   original: str | None = None) -> dict[str, Any]:
        """The list shuffled per ``seed``, never in the ranking under review (``original``; without one ranking
        two ids, the data order): a list stored ranked would show the expert the ranking
        (:mod:`backend.families.ranker_blind`)."""
        setup = RankerSetup.of(spec)
        key = spec.fields[setup.variable]
        if key not in data:
            return dict(data)
        try:
            ranked = ranked_ids(original, setup.buckets)
        except (ValueError, AttributeError):  # no ranking to avoid: the data order is
            ranked = []
        return {**data, key: blind_value(data[key], seed=seed, avoid=ranked if len(ranked) >= 2 else None)}


def review_xml(spec: "TaskSpec", *, answer_fields: Sequence[str] = ()) -> str:
    """See :meth:`RankerFamily.review_config`."""
    setup = RankerSetup.of(spec)
    control = spec.binding.from_name if spec.binding else "rank"
    lines = ["<View>"]
    for var, source in spec.fields.items():
        if var != setup.variable:
            lines += [f'  <Header value={quoteattr(source.replace("_", " ").capitalize())} size="5"/>',
                      f"  <Text name={quoteattr(source)} value={quoteattr('$' + source)}/>"]
    if answer_fields:
        lines.append('  <Header value="Round 1 answers" size="5"/>')
    lines += [f"  <Text name={quoteattr(field)} value={quoteattr('$' + field)}/>" for field in answer_fields]
    lines.append(f'  <List name={quoteattr(setup.list_name)} value={quoteattr("$" + spec.fields[setup.variable])} '
                 'title="Responses"/>')
    buckets = "".join(f"\n    <Bucket name={quoteattr(b)} title={quoteattr(t)}/>"
                      for b, t in zip(setup.buckets, setup.titles))
    lines.append(f"  <Ranker name={quoteattr(control)} toName={quoteattr(setup.list_name)}>{buckets}\n  </Ranker>")
    return "\n".join([*lines, "</View>"])


def _response_texts(raw: str) -> dict[str, str]:
    """id -> the text a judge reads (``body``, else ``html``, else ``title``) from the list's JSON."""
    try:
        entries = json.loads(raw)
    except ValueError:
        return {}
    out: dict[str, str] = {}
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, Mapping) and entry.get("id") is not None:
            text = next((entry[k] for k in ("body", "html", "title") if isinstance(entry.get(k), str)), "")
            out[str(entry["id"])] = text
    return out


def _unrankable(item: "Item", ranked: list[str], setup: RankerSetup) -> ErrorInfo | None:
    """Why an item's ranking cannot be audited (none, too short or long, an id not in the list), or None."""
    if item.original is None:
        return ErrorInfo("not_ranked", False, "the task has no ranking to audit")
    if len(ranked) < 2:
        return ErrorInfo("not_ranked", False, f"{len(ranked)} response(s) ranked: a ranking needs two")
    if len(ranked) > MAX_RANKED:
        return ErrorInfo("too_many_ranked", False, f"{len(ranked)} responses ranked: at most {MAX_RANKED} are "
                         "compared (each pair is asked of every judge in both orders)")
    if len(item.original) > STORE_COLUMN_CHARS:
        return ErrorInfo("ranking_too_long", False, f"the ranking takes more than the {STORE_COLUMN_CHARS} "
                         "characters the ledger stores per label value: shorten the ids")
    missing = [i for i in ranked if i not in _response_texts(item.fields.get(setup.variable, "[]"))]
    if missing:
        return ErrorInfo("bad_label", False, f"the ranking names id {missing[0]!r}, which the task's list lacks")
    return None
