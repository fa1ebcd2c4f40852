"""Family flags that replaced family-name lists: the readers ask the family, and the answers are the lists'.

Why: ``backend/review/ambiguous.py`` offered its choice to ("binary", "nominal") and the confident-learning
member applied to ("binary", "nominal", "ordinal"); a new family had to be added to (or kept out of) each
list by name. The flags hold the same sets.
"""

from __future__ import annotations

import pytest

from backend.labelstudio.projectspec import spec_from_label_config
from backend.review.ambiguous import check_offerable
from backend.scoring.confident_template import not_applicable
from backend.task.family import family_names, get_family

TEXTS = '<Text name="t" value="$text"/><Text name="u" value="$other"/>'


def _spec(control: str):
    return spec_from_label_config(f"<View>{TEXTS}{control}</View>")


def test_the_flags_hold_the_former_lists():
    families = [n for n in family_names() if n in ("binary", "nominal", "ordinal", "multilabel", "spans", "rating",
                                                   "number", "pairwise", "controls")]
    assert {n for n in families if get_family(n).ambiguous_choice} == {"binary", "nominal"}
    assert {n for n in families if get_family(n).confident_learning} == {"binary", "nominal", "ordinal"}


@pytest.mark.parametrize(("control", "offered", "learns"), [
    ('<Choices name="c" toName="t"><Choice value="yes"/><Choice value="no"/></Choices>', True, True),
    ('<Choices name="c" toName="t"><Choice value="a"/><Choice value="b"/><Choice value="c"/></Choices>', True, True),
    ('<Choices name="c" toName="t"><Choice value="1"/><Choice value="2"/><Choice value="3"/></Choices>', False, True),
    ('<Rating name="r" toName="t" maxRating="5"/>', False, False),
    ('<Pairwise name="p" toName="t,u"/>', False, False),
])
def test_the_readers_ask_the_family(control, offered, learns):
    spec = _spec(control)
    if offered:
        check_offerable(spec, single_choices=True)
    else:
        with pytest.raises(ValueError, match="binary or nominal"):
            check_offerable(spec, single_choices=True)
    assert (not_applicable(spec) is None) is learns
