"""AWS CLI output files that do not name what they describe: a bucket's Object Lock and versioning, a
transit gateway route table's routes, associations and propagations.

The user saves each command's output as the CLI prints it, in a file named `<resource>.<suffix>` (the
bucket name or the route table id, then the suffix below); the offline collector reads the resource from
the name into the capture's meta (`aws_file`, `aws_resource`), since the bytes alone do not say it. Each
file becomes a partial fact (the other parts None); the records of one bucket or table are merged per
run (checks/reconcile). What the CLI prints for a refused or failed call (with `2>&1`) is read too:
`ObjectLockConfigurationNotFoundError` is an answer (the bucket has no Object Lock), any other error a
Problem. Never raises.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts.aws import AwsFlowLogDestination, AwsTgwRouteTable
from auditor.normalize import NormalizeResult, Problem
from collectors.normalizers.aws_transit import attachment_ids, object_lock, tgw_routes
from collectors.normalizers.aws_values import UNKNOWN, AwsContext, ItemError, optional

_CLI_ERROR = re.compile(
    r"An error occurred \((?P<code>[A-Za-z0-9.]+)\)(?: when calling the (?P<op>\w+) operation)?"
)
NO_LOCK = "ObjectLockConfigurationNotFoundError"


@dataclass(frozen=True)
class CliFile:
    """One AWS CLI call whose output needs the resource in the file name."""

    kind: str  # the `aws_file` meta value
    command: str  # the exact command, `{}` standing for the resource
    suffixes: tuple[str, ...]  # file name = <resource><suffix> (first: the documented one)
    key: str | None  # the response's top-level key (None: versioning, whose keys are Status/MFADelete)
    resource: str  # what the name part is


CLI_FILES: tuple[CliFile, ...] = (
    CliFile(
        "object-lock",
        "aws s3api get-object-lock-configuration --bucket {} > {}.object-lock.json 2>&1",
        (".object-lock.json", ".get-object-lock-configuration.json"),
        "ObjectLockConfiguration",
        "bucket",
    ),
    CliFile(
        "versioning",
        "aws s3api get-bucket-versioning --bucket {} > {}.versioning.json 2>&1",
        (".versioning.json", ".get-bucket-versioning.json"),
        None,
        "bucket",
    ),
    CliFile(
        "tgw-routes",
        "aws ec2 search-transit-gateway-routes --transit-gateway-route-table-id {} "
        "--filters Name=state,Values=active,blackhole > {}.routes.json",
        (".routes.json", ".search-transit-gateway-routes.json"),
        "Routes",
        "transit gateway route table",
    ),
    CliFile(
        "tgw-associations",
        "aws ec2 get-transit-gateway-route-table-associations --transit-gateway-route-table-id {} "
        "> {}.associations.json",
        (".associations.json", ".get-transit-gateway-route-table-associations.json"),
        "Associations",
        "transit gateway route table",
    ),
    CliFile(
        "tgw-propagations",
        "aws ec2 get-transit-gateway-route-table-propagations --transit-gateway-route-table-id {} "
        "> {}.propagations.json",
        (".propagations.json", ".get-transit-gateway-route-table-propagations.json"),
        "TransitGatewayRouteTablePropagations",
        "transit gateway route table",
    ),
)
BY_KIND = {f.kind: f for f in CLI_FILES}
_RTB = re.compile(r"^tgw-rtb-[0-9a-f]+$")
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


def match_name(name: str) -> tuple[CliFile, str] | None:
    """The CLI file a file name announces, and the resource it names (a `.gz` suffix is allowed)."""
    lower = name.lower().removesuffix(".gz")
    for cli in CLI_FILES:
        for suffix in cli.suffixes:
            if lower.endswith(suffix) and len(lower) > len(suffix):
                return cli, name[: len(lower) - len(suffix)]
    return None


def resource_problem(cli: CliFile, resource: str) -> str | None:
    """Why `resource` cannot be what this file's name must start with (None: it can)."""
    if cli.resource == "bucket" and not _BUCKET.match(resource):
        return f"{resource!r} is not an S3 bucket name"
    if cli.resource != "bucket" and not _RTB.match(resource):
        return f"{resource!r} is not a transit gateway route table id (tgw-rtb-...)"
    return None


def naming_hint(key: str) -> str | None:
    """For a response whose top-level key needs a resource name: how to name its file."""
    for cli in CLI_FILES:
        if cli.key == key:
            what = "BUCKET" if cli.resource == "bucket" else "TGW-RTB-ID"
            return (
                f"this is the output of `{cli.command.split(' >')[0].format(what)}`, which does not name its "
                f"{cli.resource}: save it as {what}{cli.suffixes[0]}"
            )
    return None


def normalize_cli_file(capture: RawCapture, result: NormalizeResult) -> None:
    cli = BY_KIND.get(capture.meta.get("aws_file", ""))
    resource = capture.meta.get("aws_resource", "")
    origin = capture.origin
    if cli is None or not resource:
        result.problems.append(Problem(origin, "AWS CLI file without its kind and resource in the meta"))
        return
    ctx = AwsContext(origin, capture.meta.get("account") or None, capture.meta.get("region") or UNKNOWN)
    text = capture.content.decode("utf-8-sig", errors="replace").strip()
    error = _CLI_ERROR.search(text) if not text.startswith("{") else None
    if error is not None:
        if cli.kind == "object-lock" and error["code"] == NO_LOCK:
            result.add(_bucket_fact(ctx, resource, object_lock_enabled=False))
            result.covers.add(FactKind.AWS_FLOW_LOG_DESTINATION)
            return
        what = f"the {cli.resource} {resource}"
        result.problems.append(
            Problem(
                origin, f"the CLI call failed for {what}: {error['code']}", hint="re-run it with permission"
            )
        )
        return
    if not text:
        if cli.kind == "versioning":  # the CLI prints nothing for a bucket never versioned
            result.add(_bucket_fact(ctx, resource, versioning="Disabled"))
            result.covers.add(FactKind.AWS_FLOW_LOG_DESTINATION)
            return
        result.problems.append(
            Problem(
                origin,
                f"empty file: `{cli.command.format(resource, resource)}` printed nothing",
                hint="save the command's output with 2>&1 so that an error reply is kept too",
            )
        )
        return
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        result.problems.append(Problem(origin, f"invalid JSON: {exc.msg}", exc.lineno))
        return
    if not isinstance(body, dict):
        result.problems.append(Problem(origin, "not a JSON object (expected the CLI's response object)"))
        return
    try:
        _read(cli, resource, body, ctx, result)
    except (ItemError, ValidationError, TypeError, ValueError) as exc:
        result.problems.append(Problem(origin, f"{cli.resource} {resource}: {exc}"))


def _read(
    cli: CliFile, resource: str, body: dict[str, Any], ctx: AwsContext, result: NormalizeResult
) -> None:
    if cli.key is not None and cli.key not in body:
        found = ", ".join(sorted(body)) or "none"
        raise ItemError(
            f"expected the output of {cli.command.split(' ')[2]}: no {cli.key} (top-level keys: {found})"
        )
    fact: AwsFlowLogDestination | AwsTgwRouteTable
    if cli.kind == "object-lock":
        enabled, mode, days = object_lock(body["ObjectLockConfiguration"])
        fact = _bucket_fact(
            ctx, resource, object_lock_enabled=enabled, object_lock_mode=mode, object_lock_days=days
        )
    elif cli.kind == "versioning":
        unknown = sorted(set(body) - {"Status", "MFADelete", "ResponseMetadata"})
        if unknown:
            raise ItemError(f"expected the output of get-bucket-versioning, found keys {', '.join(unknown)}")
        fact = _bucket_fact(ctx, resource, versioning=optional(body, "Status") or "Disabled")
    elif cli.kind == "tgw-routes":
        if body.get("AdditionalRoutesAvailable") is True:
            result.problems.append(
                Problem(
                    ctx.origin,
                    f"{resource} has more routes than search-transit-gateway-routes returned "
                    "(AdditionalRoutesAvailable): its routes are not known",
                    hint="narrow the search with --filters (e.g. by route-search.subnet-of-match) per file",
                )
            )
            return
        fact = AwsTgwRouteTable(
            account=ctx.account_for({}), region=ctx.region, route_table_id=resource, routes=tgw_routes(body)
        )
    elif cli.kind == "tgw-associations":
        fact = AwsTgwRouteTable(
            account=ctx.account_for({}),
            region=ctx.region,
            route_table_id=resource,
            associations=attachment_ids(body, "Associations"),
        )
    else:
        fact = AwsTgwRouteTable(
            account=ctx.account_for({}),
            region=ctx.region,
            route_table_id=resource,
            propagations=attachment_ids(body, "TransitGatewayRouteTablePropagations"),
        )
    result.add(fact)
    if cli.resource == "bucket":
        result.covers.add(FactKind.AWS_FLOW_LOG_DESTINATION)


def _bucket_fact(ctx: AwsContext, bucket: str, **fields: Any) -> AwsFlowLogDestination:
    return AwsFlowLogDestination(
        account=ctx.account_for({}),
        region=ctx.region,
        destination=f"arn:aws:s3:::{bucket}",
        destination_type="s3",
        **fields,
    )
