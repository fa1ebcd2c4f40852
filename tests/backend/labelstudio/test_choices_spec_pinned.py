"""A ``<Choices>`` control's spec and model version do not move when its derivation moves (issue 41).

The versions below were computed on main before the ``<Choices>`` spec left ``projectspec`` for its own
module (:mod:`backend.families.choices_spec`): a model version keys every saved verdict, so a spec that
changed in the move would silently re-score every project. Each case pins the model version (the spec
fingerprint the ledger keys on) and a digest of the whole spec (its binding, hints and prompts included,
which the fingerprint does not read).
"""

from __future__ import annotations

import hashlib

import pytest

from backend.labelstudio.projectspec import spec_from_label_config
from backend.scoring.members import parse_member_arg
from backend.worker.ensemble_config import EnsembleConfig

TEXT = "<View><Text name='t' value='$text'/>"
PAIR = "<View><Text name='q' value='$query'/><Text name='p' value='$passage'/>"


def _choices(name: str, values, attrs: str = "", to: str = "t") -> str:
    options = "".join(f"<Choice value='{v}'/>" for v in values)
    return f"<Choices name='{name}' toName='{to}'{attrs}>{options}</Choices>"


CASES = {
    "binary": (TEXT + _choices("c", ("Positive", "Negative")) + "</View>", {}),
    "nominal_hints_header": (
        "<View><Header value='Choose the topic:'/><Text name='t' value='$text'/><Choices name='topic' toName='t'>"
        "<Choice value='Sports' hint='games, teams'/><Choice value='Politics' alias='pol' hint='elections'/>"
        "<Choice value='Tech'/></Choices></View>", {}),
    "multilabel": (TEXT + _choices("tags", "abc", " choice='multiple'") + "</View>", {}),
    "ordinal_1_5": (TEXT + _choices("score", (3, 1, 2, 5, 4)) + "</View>", {}),
    "builtin_relevance": (PAIR + _choices("rel", range(4), to="p") + "</View>", {}),
    "builtin_named_other_labels": (PAIR + _choices("rel", (4, 0, 2, 1, 3), to="p") + "</View>", {"name": "relevance"}),
    "named_negative": (TEXT + _choices("c", ("spam", "none", "ham")) + "</View>", {"named_negative": "none"}),
    "family_override": (TEXT + _choices("c", (1, 2, 3)) + "</View>", {"family": "nominal"}),
    "image_choices": ("<View><Image name='i' value='$image'/>" + _choices("c", ("cat", "dog"), to="i") + "</View>", {}),
    "several_controls": (
        "<View><Header value='Source'/><Text name='s' value='$source'/><Header value='Summary'/>"
        "<Text name='m' value='$summary'/><Header value='Is it faithful?'/>" + _choices("ok", ("yes", "no"), to="m")
        + "<Rating name='r' toName='m' maxRating='5'/></View>", {}),
}

#: (model version, sha256 of the spec's repr, first 16 hex digits), computed on main at 04ce468; the model versions
#: of the generic-prompt cases computed again when generic-definitions became v3 (the specs' reprs did not move).
PINNED = {
    "binary": ("label-audit-4d7acd519b0e", "6e925a93906a8bb1"),
    "nominal_hints_header": ("label-audit-84995edb4c99", "abbd6c7168baf6c7"),
    "multilabel": ("label-audit-09a7ed056425", "ba54f40919fd53fa"),
    "ordinal_1_5": ("label-audit-884b467f01a2", "b9742ea6f8492a32"),
    "builtin_relevance": ("label-audit-ed71de3673b0", "ccf6b2d365fffdeb"),
    "builtin_named_other_labels": ("label-audit-4a3e0dfe631d", "74ed9b86444ab8ab"),
    "named_negative": ("label-audit-6785b79058cc", "213a2d72f4ad4468"),
    "family_override": ("label-audit-59cac88f1c3c", "8a87e0fb509c62e8"),
    "image_choices": ("label-audit-7679197ac0f2", "c85ff41bb350bf59"),
    "several_controls": ("label-audit-f0f02bc87acf", "c95070790f23ee1a"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_choices_spec_keeps_its_model_version(case):
    """Pinned without a prior correction (``none``, named); the default (``auto``) and ``fitted`` re-read the
    verdicts of binary and nominal tasks only, so they move exactly their versions."""
    xml, options = CASES[case]
    spec = spec_from_label_config(xml, **options)
    member = (parse_member_arg("local:smollm2"),)
    version = EnsembleConfig(members=member, prior_correction="none").model_version(spec)
    assert (version, hashlib.sha256(repr(spec).encode()).hexdigest()[:16]) == PINNED[case]
    for mode in ("fitted", None):  # None: the default
        moved = EnsembleConfig(members=member, **({"prior_correction": mode} if mode else {})).model_version(spec)
        assert (moved != version) == (spec.family in ("binary", "nominal")), mode


def test_the_cases_cover_the_builtin_and_generic_paths():
    builtin = spec_from_label_config(CASES["builtin_relevance"][0])
    generic = spec_from_label_config(CASES["nominal_hints_header"][0])
    assert (builtin.name, builtin.prompt_dir) == ("relevance", "relevance")
    assert (generic.name, generic.family, generic.labels) == ("labelstudio", "nominal", ("Sports", "pol", "Tech"))
    assert spec_from_label_config(CASES["multilabel"][0]).family == "multilabel"
    assert spec_from_label_config(CASES["ordinal_1_5"][0]).labels == ("1", "2", "3", "4", "5")
