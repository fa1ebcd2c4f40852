"""``<Labels>`` over a ``<Text>``: entity spans, audited as a span project of its own (:mod:`backend.spans`).

Among other controls it marks regions, which a per-item audit leaves out (its reason: the registry's
``REGION_REASON``); its spec and review config are :mod:`backend.spans.config`'s.
"""

from backend.controls.control_type import REGIONS, ControlType

CONTROL_TYPES = (ControlType(tag="Labels", order=20, audit=REGIONS, result_type="labels",
                             families={"spans": "backend.families.spans"}),)
