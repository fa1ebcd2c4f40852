"""``<Number min max step>``: a small integer scale, ordered, read from a ``number`` result."""

from backend.controls.control_type import ControlType

CONTROL_TYPES = (ControlType(
    tag="Number", order=40, result_type="number", families={"number": "backend.families.number"},
    spec_builder="backend.families.number:control_spec", render_attrs=("min", "max", "step", "slider"),
),)
