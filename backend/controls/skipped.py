"""Control tags left out of the audit, each with the reason the commands print (the project proceeds).

A tag that gets audited moves to a module of its own (its reason goes).
"""

from backend.controls.control_type import REGIONS, SKIPPED, ControlType

_REGION_TAGS = ("Rectangle", "Polygon", "KeyPoint", "Brush", "Ellipse", "VideoRectangle", "MagicWand")
_RANKING = "a ranking of a list: not a choice among options"
_RELATIONS = "relations between regions: regions are not audited by this tool"

CONTROL_TYPES = (
    ControlType(tag="TextArea", audit=SKIPPED, skip_reason="free text: a judge answers options, not prose"),
    ControlType(tag="Taxonomy", audit=SKIPPED, skip_reason="a tree of nested choices: not audited yet (its answer "
                                                          "is a list of paths, see docs/controls.md)"),
    ControlType(tag="DateTime", audit=SKIPPED, skip_reason="a date: not a choice among options"),
    ControlType(tag="Ranker", audit=SKIPPED, skip_reason=_RANKING),
    ControlType(tag="List", audit=SKIPPED, skip_reason=_RANKING),
    ControlType(tag="Relations", audit=SKIPPED, skip_reason=_RELATIONS),
    ControlType(tag="Relation", audit=SKIPPED, skip_reason=_RELATIONS),
    *(ControlType(tag=tag, audit=REGIONS) for tag in _REGION_TAGS),
)
