"""EC2 network state: one capture per describe_* response page, read by the `aws.describe` normalizer.

Transit gateway route tables are the exception: each DescribeTransitGatewayRouteTables item is joined
with its SearchTransitGatewayRoutes, GetTransitGatewayRouteTableAssociations and ...Propagations
results (those responses do not name their table), in the shape documented in normalizers/aws_transit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from auditor.capture import RawCapture
from auditor.normalize import Problem
from collectors.aws.calls import ApiCall
from collectors.aws.reader import CallFailed, Denied, Reader

# (operation, what it hides when refused): read one after another, each paginated.
DESCRIBES: tuple[tuple[str, str], ...] = (
    ("DescribeVpcs", "VPCs"),
    ("DescribeSubnets", "subnets"),
    ("DescribeRouteTables", "route tables"),
    ("DescribeInternetGateways", "internet gateways"),
    ("DescribeNatGateways", "NAT gateways"),
    ("DescribeEgressOnlyInternetGateways", "egress-only internet gateways"),
    ("DescribeVpnGateways", "VPN gateways"),
    ("DescribeVpcPeeringConnections", "VPC peerings"),
    ("DescribeTransitGateways", "transit gateways"),
    ("DescribeTransitGatewayAttachments", "transit gateway attachments"),
    ("DescribeSecurityGroups", "security groups"),
    ("DescribeNetworkAcls", "network ACLs"),
    ("DescribeNetworkInterfaces", "network interfaces"),
    ("DescribeFlowLogs", "flow-log settings"),
)
_TGW_TABLES = "DescribeTransitGatewayRouteTables"
_SEARCH = "SearchTransitGatewayRoutes"
_ASSOCIATIONS = "GetTransitGatewayRouteTableAssociations"
_PROPAGATIONS = "GetTransitGatewayRouteTablePropagations"
SEARCH_FILTERS = [{"Name": "state", "Values": ["active", "blackhole"]}]

CALLS: tuple[ApiCall, ...] = (
    *(ApiCall("ec2", op) for op, _ in DESCRIBES),
    *(ApiCall("ec2", op) for op in (_TGW_TABLES, _SEARCH, _ASSOCIATIONS, _PROPAGATIONS)),
)


def collect_describes(reader: Reader, flow_logs: list[dict[str, Any]]) -> Iterator[RawCapture | Problem]:
    """Every describe page; the flow-log settings found are appended to `flow_logs` for later steps."""
    for operation, what in DESCRIBES:
        for got in reader.capture_pages("ec2", operation, {}, what):
            yield got
            if isinstance(got, RawCapture) and operation == "DescribeFlowLogs":
                flow_logs.extend(json.loads(got.content).get("FlowLogs") or [])
    yield from _tgw_route_tables(reader)


def _tgw_route_tables(reader: Reader) -> Iterator[RawCapture | Problem]:
    try:
        pages = list(reader.pages("ec2", _TGW_TABLES))
    except Denied as exc:
        yield reader.denied_problem(exc, "transit gateway route tables")
        return
    except CallFailed as exc:
        yield reader.failed_problem(exc, "transit gateway route tables")
        return
    for number, page in enumerate(pages, start=1):
        tables = []
        for table in page.get("TransitGatewayRouteTables") or []:
            problems: list[Problem] = []
            tables.append(_joined(reader, dict(table), problems))
            yield from problems
        body = {**page, "TransitGatewayRouteTables": tables}
        params = {"joined": [_SEARCH, _ASSOCIATIONS, _PROPAGATIONS]}
        yield reader.capture("ec2", _TGW_TABLES, params, number, body)


def _joined(reader: Reader, table: dict[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """The table with its routes, associations and propagations; a refused part is left out (and the
    normalizer then does not count the table's routes as known)."""
    table_id = table.get("TransitGatewayRouteTableId")
    what = f"routes of transit gateway route table {table_id}"
    try:
        # No MaxResults: AWS then returns up to 1000 and says when there are more.
        found = reader.call("ec2", _SEARCH, TransitGatewayRouteTableId=table_id, Filters=SEARCH_FILTERS)
        table["Routes"] = found.get("Routes") or []
        table["AdditionalRoutesAvailable"] = bool(found.get("AdditionalRoutesAvailable"))
    except Denied as exc:
        problems.append(reader.denied_problem(exc, what))
    except CallFailed as exc:
        problems.append(reader.failed_problem(exc, what))
    for operation, key, result_key in (
        (_ASSOCIATIONS, "Associations", "Associations"),
        (_PROPAGATIONS, "Propagations", "TransitGatewayRouteTablePropagations"),
    ):
        try:
            items: list[Any] = []
            for page in reader.pages("ec2", operation, TransitGatewayRouteTableId=table_id):
                items += page.get(result_key) or []
            table[key] = items
        except Denied as exc:
            problems.append(reader.denied_problem(exc, f"{key.lower()} of {table_id}"))
        except CallFailed as exc:
            problems.append(reader.failed_problem(exc, f"{key.lower()} of {table_id}"))
    return table
