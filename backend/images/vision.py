"""Whether an ensemble can judge an image project at all: one clear refusal before anything is queued.

Why: a member that takes no images is left out of each image item (``no_vision``, counted), which is
right for a mixed ensemble; an ensemble where *no* member sees would turn every task into the same
per-item error, after queueing them all. So the project is refused once, where its spec is derived
(:meth:`backend.worker.ensemble_config.EnsembleConfig.spec`: the backend's /setup, webhook and /predict, the
workers, ``label-audit audit``) and where ``label-audit score`` builds its members, naming the members
and what would work.
"""

from __future__ import annotations

from typing import Any, Sequence

from backend.providers.base import accepts_images
from backend.task.spec import TaskSpec
from backend.providers.registry import provider_class

HINT = ("add a member that sees images: an OpenAI-protocol vision model (e.g. openai:gpt-4o-mini, or a "
        "vision model behind vLLM or llama.cpp) or Gemini (e.g. gemini:gemini-2.0-flash)")


def entry_sees(entry: Any) -> bool | None:
    """Whether a configured member (a :class:`backend.scoring.members.MemberSpec`) takes images, without building
    its provider: its ``vision`` option when given (true/false), else its provider class's class-level
    ``accepts_images``; None when the provider decides per instance (its endpoint...) or the kind is unknown."""
    vision = (entry.options or {}).get("vision")
    if isinstance(vision, bool):
        return vision
    try:
        cls = provider_class(entry.provider)
    except (ValueError, ImportError):
        return None
    value = getattr(cls, "accepts_images", None)
    return value if isinstance(value, bool) else None


def _refusal(spec: TaskSpec, names: Sequence[str]) -> ValueError:
    shown = ", ".join(f"<Image> {v!r}" for v in spec.image_fields)
    return ValueError(f"the project shows images ({shown}) and no member of the ensemble can see them "
                      f"({', '.join(names)}): {HINT}")


def check_entries_see(spec: TaskSpec, entries: Sequence[Any]) -> None:
    """Raise ValueError when ``spec`` has image fields and every configured member surely takes none."""
    if spec.image_fields and entries and all(entry_sees(e) is False for e in entries):
        raise _refusal(spec, [f"{e.provider}:{e.model}" for e in entries])


def check_members_see(spec: TaskSpec, members: Sequence[Any]) -> None:
    """Raise ValueError when ``spec`` has image fields and no built member's provider takes images."""
    if spec.image_fields and members and not any(accepts_images(m.provider) for m in members):
        raise _refusal(spec, list(dict.fromkeys(f"{m.kind}:{m.model}" for m in members)))


__all__ = ["check_entries_see", "check_members_see", "entry_sees"]
