"""The suspect marker: how a flagged prediction's regions are marked for the lead's suspects tab.

Its own module, below every family and Label Studio module (it imports nothing of the project): the
families write their predictions' regions, :mod:`backend.labelstudio.scoreview` filters the suspects tab on
the same marker, and neither has to import the other (that import closed a ten-file cycle through the
model name, the members and the task spec).
"""

from __future__ import annotations

from typing import Any

__all__ = ["mark_result", "suspect_marker"]


def suspect_marker(model_version: str) -> str:
    """The region id of a flagged prediction of ``model_version`` (what the suspects tab filters on)."""
    return f"{model_version}-suspect"


def mark_result(result: list[dict[str, Any]], *, flagged: bool, model_version: str) -> list[dict[str, Any]]:
    """``result`` with its regions' id set to the suspect marker when the item is flagged.

    Several regions get one id each (the marker, then ``-1``, ``-2``...): the tab's filter matches any id
    that contains the marker, and Label Studio keeps regions apart by their ids.
    """
    if not flagged:
        return result
    marker = suspect_marker(model_version)
    return [{**region, "id": marker if i == 0 else f"{marker}-{i}"} for i, region in enumerate(result)]
