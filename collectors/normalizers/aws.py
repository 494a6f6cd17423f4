"""Normalize EC2 describe_* responses (`aws.describe`) into VPC, routing, filtering and flow-log facts.

The input is what boto3 returns (dumped as JSON) or what `aws ec2 describe-... --output json` prints:
one response, several responses merged into one object, a list of responses, or responses written one
after another. Only the EC2 keys below are read; ResponseMetadata, NextToken and other keys are ignored.
One unreadable item becomes a Problem naming its key and index; the others are kept. It never raises.
The readers live in aws_routing (topology, VPN connections), aws_filtering (SGs, NACLs, flow-log settings)
and aws_transit (TGW attachments and route tables, ENIs, flow-log destinations, with the live collector's
joined shapes). CLI files that need their resource's name from the file name (a bucket's Object Lock, a
TGW route table's routes) carry it in the meta and are read by aws_cli.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts.base import FactRecord
from auditor.normalize import NormalizeResult, Problem
from collectors.normalizers.aws_cli import naming_hint, normalize_cli_file
from collectors.normalizers.aws_filtering import read_flow_log, read_network_acl, read_security_group
from collectors.normalizers.aws_routing import (
    read_egress_only_gateway,
    read_internet_gateway,
    read_nat_gateway,
    read_peering,
    read_route_table,
    read_subnet,
    read_transit_gateway,
    read_vpc,
    read_vpn_connection,
    read_vpn_gateway,
)
from collectors.normalizers.aws_transit import (
    read_flow_log_destination,
    read_log_group,
    read_network_interface,
    read_tgw_attachment,
    read_tgw_route_table,
    tgw_route_table_gap,
)
from collectors.normalizers.aws_values import UNKNOWN, AwsContext, ItemError, item_mapping

_WS = re.compile(r"[ \t\n\r]*")

_Reader = Callable[[dict[str, Any], AwsContext], FactRecord]


def normalize_describe(capture: RawCapture) -> NormalizeResult:
    """Facts for every item under the EC2 keys present; covers the kinds whose key was present."""
    result = NormalizeResult()
    uncovered: set[FactKind] = set()
    if capture.meta.get("aws_file"):
        try:
            normalize_cli_file(capture, result)
        except Exception as exc:  # last resort, as below
            result.problems.append(Problem(capture.origin, f"could not read the CLI output: {exc!r}"))
        return result
    try:
        responses = _load(capture.content, capture.origin, result.problems)
        ctx = AwsContext(
            origin=capture.origin,
            account=capture.meta.get("account") or None,
            region=capture.meta.get("region") or UNKNOWN,
        )
        ctx.vpc_owner = _vpc_owners(responses)
        for response in responses:
            for key in sorted(UNNAMED_KEYS & set(response)):
                result.problems.append(Problem(capture.origin, naming_hint(key) or key))
            for key, (kind, reader) in _READERS.items():
                if key in response:
                    if _complete(response[key], key, ctx, result):
                        result.covers.add(kind)
                    else:
                        uncovered.add(kind)
                    _read_key(response[key], key, reader, ctx, result)
        result.covers -= uncovered
    except Exception as exc:  # last resort: a normalizer never takes the run down
        result.problems.append(Problem(capture.origin, f"could not read the describe output: {exc!r}"))
    return result


def _load(content: bytes, origin: str, problems: list[Problem]) -> list[dict[str, Any]]:
    """Every response object in the file, in order; a JSON error keeps the responses before it."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = content.count(b"\n", 0, exc.start) + 1
        problems.append(Problem(origin, f"not valid UTF-8 ({exc.reason})", line))
        return []
    decoder = json.JSONDecoder()
    responses: list[dict[str, Any]] = []
    pos = _skip(text, 0)
    if pos == len(text):
        problems.append(Problem(origin, "empty file: no describe output"))
    while pos < len(text):
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            problems.append(Problem(origin, f"invalid JSON: {exc.msg}", exc.lineno))
            break
        line = text.count("\n", 0, pos) + 1
        values = value if isinstance(value, list) else [value]
        for index, response in enumerate(values):
            if isinstance(response, dict):
                responses.append(response)
            else:
                where = f"element {index} of the list" if isinstance(value, list) else "the value"
                problems.append(Problem(origin, f"{where} is not a describe_* response object", line))
        pos = _skip(text, end)
    return responses


def _skip(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


def _vpc_owners(responses: list[dict[str, Any]]) -> dict[str, str]:
    owners: dict[str, str] = {}
    for response in responses:
        vpcs = response.get("Vpcs")
        for vpc in vpcs if isinstance(vpcs, list) else []:
            if (
                isinstance(vpc, dict)
                and isinstance(vpc.get("VpcId"), str)
                and isinstance(vpc.get("OwnerId"), str)
            ):
                owners[vpc["VpcId"]] = vpc["OwnerId"]
    return owners


def _read_key(items: object, key: str, reader: _Reader, ctx: AwsContext, result: NormalizeResult) -> None:
    if items is None:
        return
    if not isinstance(items, list):
        result.problems.append(Problem(ctx.origin, f"{key} is not a list"))
        return
    for index, item in enumerate(items):
        try:
            result.add(reader(item_mapping(item, f"{key}[{index}]"), ctx))
        except (ItemError, ValidationError, TypeError, ValueError) as exc:
            ident = _identity(item, key)
            message = f"{key}[{index}]{ident}: {_detail(exc)}"
            result.problems.append(Problem(ctx.origin, message))


def _complete(items: object, key: str, ctx: AwsContext, result: NormalizeResult) -> bool:
    """Whether the items prove what their kind needs (a TGW route table: its routes); names each gap."""
    if key != "TransitGatewayRouteTables" or not isinstance(items, list):
        return True
    complete = True
    for index, item in enumerate(items):
        gap = tgw_route_table_gap(item)
        if gap is not None:
            complete = False
            result.problems.append(Problem(ctx.origin, f"{key}[{index}]{_identity(item, key)} {gap}"))
    return complete


def _identity(item: object, key: str) -> str:
    id_key = _ID_KEYS.get(key)
    if isinstance(item, dict) and id_key and isinstance(item.get(id_key), str):
        return f" ({item[id_key]})"
    return ""


def _detail(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    return str(exc)


_READERS: dict[str, tuple[FactKind, _Reader]] = {
    "Vpcs": (FactKind.AWS_VPC, read_vpc),
    "Subnets": (FactKind.AWS_SUBNET, read_subnet),
    "RouteTables": (FactKind.AWS_ROUTE_TABLE, read_route_table),
    "InternetGateways": (FactKind.AWS_GATEWAY, read_internet_gateway),
    "NatGateways": (FactKind.AWS_GATEWAY, read_nat_gateway),
    "EgressOnlyInternetGateways": (FactKind.AWS_GATEWAY, read_egress_only_gateway),
    "TransitGateways": (FactKind.AWS_GATEWAY, read_transit_gateway),
    "VpcPeeringConnections": (FactKind.AWS_GATEWAY, read_peering),
    "VpnGateways": (FactKind.AWS_GATEWAY, read_vpn_gateway),
    "SecurityGroups": (FactKind.AWS_SECURITY_GROUP, read_security_group),
    "NetworkAcls": (FactKind.AWS_NETWORK_ACL, read_network_acl),
    "FlowLogs": (FactKind.AWS_FLOW_LOG_CONFIG, read_flow_log),
    "TransitGatewayAttachments": (FactKind.AWS_TGW_ATTACHMENT, read_tgw_attachment),
    "TransitGatewayRouteTables": (FactKind.AWS_TGW_ROUTE_TABLE, read_tgw_route_table),
    "NetworkInterfaces": (FactKind.AWS_NETWORK_INTERFACE, read_network_interface),
    "FlowLogDestinations": (FactKind.AWS_FLOW_LOG_DESTINATION, read_flow_log_destination),
    "logGroups": (FactKind.AWS_FLOW_LOG_DESTINATION, read_log_group),
    "VpnConnections": (FactKind.AWS_GATEWAY, read_vpn_connection),
}
# Responses of AWS CLI calls next to the ones read above, saved with them as a matter of course (the
# instances, the endpoints, the customer gateways a VPN names, the load balancers): recognised as AWS
# evidence and kept (stored and hash-chained like every capture), but no check needs a fact from them, so
# they give none. Recognising them keeps a complete `aws ec2 describe-*` dump from reading as unknown files.
UNUSED_KEYS = frozenset(
    {
        "Reservations",  # ec2 describe-instances
        "CustomerGateways",
        "VpcEndpoints",
        "VpcEndpointServices",
        "PrefixLists",
        "ManagedPrefixLists",
        "DhcpOptions",
        "Addresses",  # Elastic IPs
        "TransitGatewayVpcAttachments",
        "TransitGatewayPeeringAttachments",
        "TransitGatewayConnects",
        "SecurityGroupRules",  # the same rules as describe-security-groups, one per row
        "LoadBalancers",  # elbv2 describe-load-balancers
        "TargetGroups",
        "TargetHealthDescriptions",
        "ResolverEndpoints",  # route53resolver
        "ResolverRules",
    }
)
RESPONSE_KEYS = frozenset(_READERS) | UNUSED_KEYS  # what makes a JSON file a describe response (offline)
# Top-level keys of CLI responses that do not name their resource: only readable from a named file.
UNNAMED_KEYS = frozenset(
    {"Routes", "Associations", "TransitGatewayRouteTablePropagations", "ObjectLockConfiguration"}
)
_ID_KEYS = {
    "Vpcs": "VpcId",
    "Subnets": "SubnetId",
    "RouteTables": "RouteTableId",
    "InternetGateways": "InternetGatewayId",
    "NatGateways": "NatGatewayId",
    "EgressOnlyInternetGateways": "EgressOnlyInternetGatewayId",
    "TransitGateways": "TransitGatewayId",
    "VpcPeeringConnections": "VpcPeeringConnectionId",
    "VpnGateways": "VpnGatewayId",
    "SecurityGroups": "GroupId",
    "NetworkAcls": "NetworkAclId",
    "FlowLogs": "FlowLogId",
    "TransitGatewayAttachments": "TransitGatewayAttachmentId",
    "TransitGatewayRouteTables": "TransitGatewayRouteTableId",
    "NetworkInterfaces": "NetworkInterfaceId",
    "FlowLogDestinations": "Destination",
    "logGroups": "logGroupName",
    "VpnConnections": "VpnConnectionId",
}
