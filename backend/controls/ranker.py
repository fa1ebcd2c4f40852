"""``<Ranker toName="answers">`` over a ``<List>``: a ranking of responses, read from a ``ranker`` result.

Every pair of ranked responses is asked of every judge in both orders, so a ranking cannot share a project's
questions (``alone_reason``). The ``<List>`` it ranks is an item input this control brings (``input_tags``);
the family builds its own blind review view (nothing placed, the list shuffled per task so no stored order
shows a ranking: ``RankerFamily.blind_data``), so no attribute of the source's element is kept.
"""

from backend.controls.control_type import ControlType

CONTROL_TYPES = (ControlType(
    tag="Ranker", order=60, result_type="ranker", families={"ranker": "backend.families.ranker"},
    spec_builder="backend.families.ranker_spec:control_spec", input_tags=("List",),
    alone_reason="a ranking is audited on its own (its pairs are asked of every judge)",
),)
