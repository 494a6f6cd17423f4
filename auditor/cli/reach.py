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


EXIT_NOT_EVALUATED = 3  # a policy kind (or part) the engine cannot evaluate: the list would be wrong


@reach_app.command("k8s")
def reach_k8s(
    directory: Annotated[
        Path, typer.Argument(help="a directory (or file) of Kubernetes manifests, YAML or JSON")
    ],
    output: Annotated[
        Literal["txt", "json"], typer.Option("--output", "-o", help="txt (netpol-analyzer connlist) or json")
    ] = "txt",
) -> None:
    """List the allowed connections among the workloads (NetworkPolicy, AdminNetworkPolicy, Baseline,
    Cilium, Calico; Ingress and Route). Exits 3, listing nothing, when a kind cannot be evaluated."""
    from checks.k8s.compile import compile_policies
    from checks.k8s.connlist import connlist, to_json, to_text
    from checks.k8s.engine import PolicyEngine
    from checks.k8s.manifests import read_directory

    if not directory.exists():
        console.print(f"[red]error:[/] {directory}: no such file or directory")
        raise typer.Exit(2)
    manifests = read_directory(directory)
    for problem in manifests.problems:
        where = f"{problem.origin}:{problem.line}" if problem.line else problem.origin
        console.print(f"[yellow]warning:[/] {where}: {problem.message}")
    if manifests.files == 0:
        console.print(f"[red]error:[/] {directory}: no .yaml, .yml or .json manifest found")
        raise typer.Exit(2)
    compiled = compile_policies(((p, p) for p in manifests.policies), manifests.services)
    if compiled.gaps:
        kinds = sorted({g.kind for g in compiled.gaps})
        for gap in compiled.gaps:
            console.print(f"[red]not evaluated:[/] {gap.kind}: {gap.text}")
        console.print(
            f"[red]error:[/] cannot evaluate {', '.join(kinds)}: no connection list is printed, since "
            "it could show connections those objects deny or miss ones they allow"
        )
        raise typer.Exit(EXIT_NOT_EVALUATED)
    engine = PolicyEngine(manifests.namespaces, compiled)
    connections = connlist(
        engine, manifests.workloads, services=manifests.services, ingresses=manifests.ingresses
    )
    text = to_json(connections) if output == "json" else to_text(connections)
    out.print(text, end="", markup=False, highlight=False, soft_wrap=True)
