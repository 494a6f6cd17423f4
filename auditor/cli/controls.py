"""`auditor controls`: the framework mappings (NIST SP 800-207, SOC 2, NIST SP 800-53, PCI DSS, HIPAA),
requirement by requirement with the checks that evidence them; and the per-check column of
`auditor checks list --controls`."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from auditor.cli.app import app
from auditor.cli.console import out
from auditor.errors import UsageError


def controls_text(check_id: str) -> str:
    """`SOC 2: CC6.1, CC6.6; PCI DSS: 1.3.1` for one check, for the `checks list` table."""
    from reports.mappings import controls_by_check, load_frameworks

    refs = controls_by_check(load_frameworks()).get(check_id, [])
    by_fw: dict[str, list[str]] = {}
    for r in refs:
        by_fw.setdefault(r.framework, []).append(r.requirement)
    return "; ".join(f"{fw}: {', '.join(reqs)}" for fw, reqs in by_fw.items()) or "-"


def controls_json(check_id: str) -> list[dict[str, str]]:
    from reports.mappings import controls_by_check, load_frameworks

    return [
        {"framework": r.framework, "key": r.key, "requirement": r.requirement, "title": r.title}
        for r in controls_by_check(load_frameworks()).get(check_id, [])
    ]


@app.command("controls")
def controls(
    framework: Annotated[
        str | None, typer.Option("--framework", help="one framework key, e.g. soc2, pci-dss-v4")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON array on stdout, for scripts")] = False,
) -> None:
    """The control mappings: each framework requirement and the checks that evidence it."""
    from checks.base import check_registry
    from reports.mappings import load_frameworks

    frameworks = load_frameworks()
    if framework is not None:
        frameworks = tuple(f for f in frameworks if f.key == framework)
        if not frameworks:
            keys = ", ".join(f.key for f in load_frameworks())
            raise UsageError(f"unknown framework {framework!r}", hint=f"one of: {keys}")
    installed = set(check_registry())
    if as_json:
        print(json.dumps([fw.model_dump(mode="json") for fw in frameworks]))
        return
    for fw in frameworks:
        table = Table(title=f"{fw.framework} ({fw.version})", caption=fw.source, expand=True)
        table.add_column("requirement", no_wrap=True)
        table.add_column("title", overflow="fold")
        table.add_column("checks", overflow="fold")
        for req in fw.requirements:
            checks = [c if c in installed else f"[dim]{c} (not installed)[/]" for c in req.check_ids]
            table.add_row(req.id, req.title, "\n".join(checks))
        out.print(table)
