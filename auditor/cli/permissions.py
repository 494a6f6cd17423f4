"""`auditor permissions`: the least privilege each live collector needs, built from what it declares."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from auditor.cli.app import app

permissions_app = typer.Typer(
    help="The least-privilege permissions the live collectors need (read-only).", no_args_is_help=True
)
app.add_typer(permissions_app, name="permissions")


@permissions_app.command("aws")
def permissions_aws(
    actions_only: Annotated[
        bool, typer.Option("--actions", help="one IAM action a line instead of the policy JSON")
    ] = False,
    operations: Annotated[
        bool,
        typer.Option(
            "--operations", help="one API operation a line (service:Operation): exactly what the guard admits"
        ),
    ] = False,
) -> None:
    """Print the IAM policy (JSON) that the AWS collector needs: exactly the read-only actions it calls."""
    from collectors.aws.permissions import declared_operations, iam_policy, required_actions

    if operations:
        for operation in declared_operations():
            typer.echo(operation)
        return
    if actions_only:
        for action in required_actions():
            typer.echo(action)
        return
    typer.echo(json.dumps(iam_policy(), indent=2))
