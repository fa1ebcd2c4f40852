"""``<Pairwise toName="a,b">``: a preference between two responses, read from a ``pairwise`` result.

The expert clicks the response they prefer: nothing is required (a click is the answer) and the title says
how to answer.
"""

from backend.controls.control_type import ControlType

CONTROL_TYPES = (ControlType(
    tag="Pairwise", order=50, result_type="pairwise", families={"pairwise": "backend.families.pairwise"},
    spec_builder="backend.families.pairwise:control_spec",
    render_attrs=("selectionStyle", "leftClass", "rightClass"), review_ask="click the one you prefer",
    required=False, compares_objects=True,
),)
