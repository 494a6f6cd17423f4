"""Render a stored run in the requested formats into an output directory."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from sqlalchemy import Engine

from auditor.evidence.verify import VerifyResult
from checks.base import check_registry
from reports.base import report_registry
from reports.build import build_report_data


def check_formats(formats: Iterable[str]) -> None:
    """Fail before any collection when a requested report format is not installed (exit 2, not a
    finished run without its report)."""
    registry = report_registry()
    for fmt in formats:
        registry.get(fmt)


def render_reports(
    engine: Engine,
    run_id: int,
    formats: Iterable[str],
    output: Path,
    pubkey: bytes | None = None,
    verified: VerifyResult | None = None,
) -> list[Path]:
    """`pubkey` pins the key the seal must be signed with for the reports to say "verified";
    `verified` is a verification the caller just made of this run with that key (not repeated)."""
    registry = report_registry()
    checks = [c for _, c in check_registry().items()]
    data = build_report_data(engine, run_id, checks, pubkey=pubkey, verified=verified)
    output.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        renderer = registry.get(fmt)
        paths.append(renderer.render(data, output / f"run-{run_id}{renderer.extension}"))
    return paths
