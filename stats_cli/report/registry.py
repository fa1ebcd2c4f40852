"""Report sections register themselves: a subclass of :class:`ReportSection` names its key, title and place.

Adding a section is one new module in ``stats_cli/report/sections/`` holding a subclass; the builder finds
it (every module of that package is imported) and orders sections by ``order``. No list to extend, no
title written twice: a section's ``pending``/``not applicable`` states use the class's own title.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from .model import Section, not_applicable, pending

if TYPE_CHECKING:  # pragma: no cover
    from stats_cli.sources.audit_data import AuditData

_REGISTRY: dict[str, type["ReportSection"]] = {}


@dataclass(frozen=True)
class BuildOptions:
    """What every section may use besides the data (keyword options of `audit-stats report`)."""

    target_precision: float = 0.8
    seed: int = 0
    prices: Any = None  # backend.costs.prices.PriceTable from --prices (the judges section's costs)


class ReportSection:
    """One section of the report: ``compute`` turns the audit data into a :class:`Section`.

    Subclasses set the class attributes ``key`` (unique, the JSON key), ``title`` and ``order``
    (reading order: smaller first) and are registered when their module is imported.
    """

    key: ClassVar[str] = ""
    title: ClassVar[str] = ""
    order: ClassVar[int] = 100
    #: What the task's answers must be for the section to apply (capabilities of its family, in the order
    #: they are checked: ``one_label``, ``one_text``, ``ordered``, ``set``, ``span``, ``preference``; see
    #: ``TaskFamily.capabilities``); the family says why it lacks one, else ``lacking`` does.
    needs: ClassVar[tuple[str, ...]] = ()
    lacking: ClassVar[str] = "the task's answers are not what this section reads"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.key:
            return
        if not cls.title:
            raise ValueError(f"report section {cls.__name__} needs a title")
        known = _REGISTRY.get(cls.key)
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise ValueError(f"two report sections use the key {cls.key!r}: {known.__name__}, {cls.__name__}")
        _REGISTRY[cls.key] = cls

    @classmethod
    def compute(cls, data: "AuditData", options: BuildOptions) -> Section:
        raise NotImplementedError

    @classmethod
    def unmet(cls, data: "AuditData") -> str | None:
        """Why the section does not apply to the task's family (the first capability it needs and the family
        lacks); None: it applies."""
        family = data.spec.task_family
        missing = [need for need in cls.needs if need not in family.capabilities]
        return (family.lacks.get(missing[0]) or cls.lacking) if missing else None

    @classmethod
    def pending(cls, reason: str, *, sizes: Mapping[str, int] | None = None) -> Section:
        return pending(cls.key, cls.title, reason, sizes=sizes)

    @classmethod
    def not_applicable(cls, reason: str, *, sizes: Mapping[str, int] | None = None) -> Section:
        return not_applicable(cls.key, cls.title, reason, sizes=sizes)


def registered_sections() -> list[type[ReportSection]]:
    """Every section of ``stats_cli.report.sections``, in reading order."""
    # cycle: every section module imports this registry; the package is loaded when the sections are listed
    from . import sections

    for module in pkgutil.iter_modules(sections.__path__):
        importlib.import_module(f"{sections.__name__}.{module.name}")
    return sorted(_REGISTRY.values(), key=lambda cls: (cls.order, cls.key))
