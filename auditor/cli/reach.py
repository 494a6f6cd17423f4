"""`auditor reach k8s DIR`: the allowed connections among the workloads of a manifest directory.

Prints netpol-analyzer's connlist format (`src => dst : connections`), so the Kubernetes half of the
reachability model can be compared line by line with that tool. Reads the directory directly: no
config, no store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from auditor.cli.app import app
from auditor.cli.console import console, out

reach_app = typer.Typer(help="Reachability analyses, without a store: `reach k8s DIR`.", no_args_is_help=True)
app.add_typer(reach_app, name="reach")


@reach_app.command("k8s")
def reach_k8s(
    directory: Annotated[
        Path, typer.Argument(help="a directory (or file) of Kubernetes manifests, YAML or JSON")
    ],
    output: Annotated[
        Literal["txt", "json"], typer.Option("--output", "-o", help="txt (netpol-analyzer connlist) or json")
    ] = "txt",
) -> None:
    """List the allowed connections among the workloads (NetworkPolicy, AdminNetworkPolicy, Baseline)."""
    from checks.lateral.k8s_connlist import connlist, to_json, to_text
    from checks.lateral.k8s_eval import PolicyEngine
    from checks.lateral.k8s_manifests import read_directory
    from checks.lateral.k8s_policies import compile_policies

    if not directory.exists():
        console.print(f"[red]error:[/] {directory}: no such file or directory")
        raise typer.Exit(2)
    manifests = read_directory(directory)
    for problem in manifests.problems:
        where = f"{problem.origin}:{problem.line}" if problem.line else problem.origin
        console.print(f"[yellow]warning:[/] {where}: {problem.message}")
    compiled = compile_policies((p, p) for p in manifests.policies)
    for message in compiled.problems:
        console.print(f"[yellow]warning:[/] {message}")
    for policy in compiled.unsupported:
        console.print(
            f"[yellow]warning:[/] {policy.subject()}: {policy.flavor.value} policies are not evaluated"
        )
    if manifests.files == 0:
        console.print(f"[red]error:[/] {directory}: no .yaml, .yml or .json manifest found")
        raise typer.Exit(2)
    engine = PolicyEngine(manifests.namespaces, compiled)
    connections = connlist(engine, compiled, manifests.workloads)
    text = to_json(connections) if output == "json" else to_text(connections)
    out.print(text, end="", markup=False, highlight=False, soft_wrap=True)
