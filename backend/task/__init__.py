"""The task model: what an item is, what an answer is, and the family that judges it.

See :mod:`backend.task.family` for the interface and how to add a family; the built-in families are
:mod:`backend.families.single` (binary, ordinal, nominal) and :mod:`backend.families.multilabel`.
"""

from backend.task.family import FAMILY_MODULES, Question, TaskFamily, family_names, get_family, register_family

__all__ = ["FAMILY_MODULES", "Question", "TaskFamily", "family_names", "get_family", "register_family"]
