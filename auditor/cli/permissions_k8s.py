"""`auditor permissions k8s`: the read-only ClusterRole the Kubernetes collector needs."""

from __future__ import annotations

from typing import Annotated

import typer

from auditor.cli.permissions import permissions_app


@permissions_app.command("k8s")
def permissions_k8s(
    name: Annotated[
        str, typer.Option("--name", help="name of the ClusterRole")
    ] = "segmentation-auditor-read",
    service_account: Annotated[
        str | None,
        typer.Option(
            "--service-account", help="NAMESPACE/NAME: also print the bindings to this ServiceAccount"
        ),
    ] = None,
    lines: Annotated[
        bool, typer.Option("--lines", help="one `verb resource` a line instead of YAML")
    ] = False,
) -> None:
    """Print the ClusterRole (YAML, for `kubectl apply -f -`): `list` on exactly the resources the
    collector reads and `get` on API discovery, and a kube-system Role with `get` of the coredns
    ConfigMap only (resourceNames); nothing else."""
    from auditor.errors import AuditorError
    from collectors.kubernetes.rbac import rbac_yaml, required_permissions

    if lines:
        for line in required_permissions():
            typer.echo(line)
        return
    try:
        typer.echo(rbac_yaml(name, service_account), nl=False)
    except ValueError as exc:
        raise AuditorError(
            f"--service-account: {exc}", hint="for example --service-account audit/auditor"
        ) from None
