"""The report renderer contract and its registry."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from auditor.registry import Registry
from reports.model import ReportData


@runtime_checkable
class ReportRenderer(Protocol):
    """Turns a finished run's ReportData into one file. Pure formatting: no store, no network."""

    format: str
    extension: str

    def render(self, data: ReportData, path: Path) -> Path: ...


def _validate(name: str, entry: object) -> ReportRenderer:
    obj = entry() if isinstance(entry, type) else entry
    if not isinstance(obj, ReportRenderer):
        raise TypeError(f"report format {name!r} does not implement ReportRenderer")
    return obj


def report_registry() -> Registry[ReportRenderer]:
    return Registry[ReportRenderer]("auditor.reports", validate=_validate).load_entry_points()
