"""``<Rating maxRating>``: star grades 1..N, an ordered scale read from a ``rating`` result."""

from backend.controls.control_type import ControlType

CONTROL_TYPES = (ControlType(
    tag="Rating", order=30, result_type="rating", families={"rating": "backend.families.rating"},
    spec_builder="backend.families.rating:control_spec", render_attrs=("maxRating", "icon", "size"),
),)
