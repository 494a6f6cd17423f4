"""EC2 readers for transit gateway attachments and route tables, network interfaces, and the flow-log
destinations' immutability (S3 Object Lock and versioning, CloudWatch Logs retention).

Two shapes are this project's own, written by the live collector (collectors/aws), because the AWS
responses they join do not name what they belong to. Offline evidence uses the AWS CLI's own output files
instead, one per call (read by normalizers/aws_cli); both end in the same facts.

- a `TransitGatewayRouteTables` item (DescribeTransitGatewayRouteTables) may carry `Routes` (the
  `Routes` of SearchTransitGatewayRoutes on that table, with `AdditionalRoutesAvailable`),
  `Associations`
  (GetTransitGatewayRouteTableAssociations) and `Propagations` (GetTransitGatewayRouteTablePropagations'
  `TransitGatewayRouteTablePropagations`). Without all three the table is not proven (not covered);
- `FlowLogDestinations`: one item per flow-log destination, `{"DestinationType": "s3", "Destination":
  bucket ARN, "Bucket": name, "ObjectLockConfiguration": <GetBucketObjectLockConfiguration's, or null
  when the bucket has none>, "Versioning": <GetBucketVersioning response>}` or `{"DestinationType":
  "cloud-watch-logs", "Destination": group name, "LogGroup": <the DescribeLogGroups item, or null>}`.
"""

from __future__ import annotations

from typing import Any

from auditor.facts.aws import (
    AwsFlowLogDestination,
    AwsNetworkInterface,
    AwsTgwAttachment,
    AwsTgwRouteTable,
    TgwRoute,
)
from collectors.normalizers.aws_values import (
    AwsContext,
    ItemError,
    item_mapping,
    objects,
    optional,
    optional_int,
    required,
)

_DESTINATION_TYPES = ("s3", "cloud-watch-logs", "kinesis-data-firehose")


def read_tgw_attachment(item: dict[str, Any], ctx: AwsContext) -> AwsTgwAttachment:
    association = item.get("Association")
    association = item_mapping(association, "Association") if association is not None else {}
    state = association.get("State")
    return AwsTgwAttachment(
        account=ctx.account_for({"OwnerId": item.get("TransitGatewayOwnerId")}),
        region=ctx.region,
        attachment_id=required(item, "TransitGatewayAttachmentId"),
        transit_gateway_id=required(item, "TransitGatewayId"),
        resource_type=required(item, "ResourceType"),
        resource_id=optional(item, "ResourceId"),
        resource_owner=optional(item, "ResourceOwnerId"),
        state=optional(item, "State"),
        route_table_id=(
            optional(association, "TransitGatewayRouteTableId") if state != "disassociated" else None
        ),
    )


def _tgw_route(route: dict[str, Any], index: int) -> TgwRoute:
    destination = optional(route, "DestinationCidrBlock") or optional(route, "PrefixListId")
    if destination is None:
        raise ItemError(f"Routes[{index}] has no destination")
    attachments = [
        required(a, "TransitGatewayAttachmentId") for a in objects(route, "TransitGatewayAttachments")
    ]
    return TgwRoute(
        destination=destination,
        attachment_ids=attachments,
        type=optional(route, "Type") or "static",
        state=optional(route, "State") or "active",
    )


def attachment_ids(item: dict[str, Any], key: str) -> list[str]:
    ids: list[str] = []
    for entry in objects(item, key):
        if entry.get("State") in ("disassociated", "disabled", "disabling", "disassociating"):
            continue
        attachment = required(entry, "TransitGatewayAttachmentId")
        if attachment not in ids:
            ids.append(attachment)
    return ids


def read_tgw_route_table(item: dict[str, Any], ctx: AwsContext) -> AwsTgwRouteTable:
    """A DescribeTransitGatewayRouteTables item; the parts it does not carry stay None (unknown). Routes
    that AWS says are more than it returned are unknown too (the gap is reported)."""
    routes = None
    if "Routes" in item and item.get("AdditionalRoutesAvailable") is not True:
        routes = tgw_routes(item)
    return AwsTgwRouteTable(
        account=ctx.account_for(item),
        region=ctx.region,
        route_table_id=required(item, "TransitGatewayRouteTableId"),
        transit_gateway_id=required(item, "TransitGatewayId"),
        routes=routes,
        associations=attachment_ids(item, "Associations") if "Associations" in item else None,
        propagations=attachment_ids(item, "Propagations") if "Propagations" in item else None,
    )


def tgw_routes(response: dict[str, Any]) -> list[TgwRoute]:
    """The `Routes` of a SearchTransitGatewayRoutes response (or of a joined table item)."""
    return [_tgw_route(r, i) for i, r in enumerate(objects(response, "Routes"))]


JOINED_KEYS = ("Routes", "Associations", "Propagations")


def tgw_route_table_gap(item: object) -> str | None:
    """Why a joined route table item (live collection: a table with its routes, associations and
    propagations) does not prove its routes (None: it does). A plain DescribeTransitGatewayRouteTables
    item, as the CLI writes it, carries none of the three: its parts come from their own files."""
    if not isinstance(item, dict) or not any(k in item for k in JOINED_KEYS):
        return None
    for key, call in zip(
        JOINED_KEYS,
        (
            "SearchTransitGatewayRoutes",
            "GetTransitGatewayRouteTableAssociations",
            "GetTransitGatewayRouteTablePropagations",
        ),
        strict=True,
    ):
        if key not in item:
            return f"has no {key} (add the {call} output for it)"
    if item.get("AdditionalRoutesAvailable") is True:
        return "has more routes than SearchTransitGatewayRoutes returned (AdditionalRoutesAvailable)"
    return None


def read_network_interface(item: dict[str, Any], ctx: AwsContext) -> AwsNetworkInterface:
    vpc_id = optional(item, "VpcId")
    private: list[str] = []
    primary = optional(item, "PrivateIpAddress")
    if primary is not None:
        private.append(primary)
    for entry in objects(item, "PrivateIpAddresses"):
        address = optional(entry, "PrivateIpAddress")
        if address is not None and address not in private:
            private.append(address)
    association = item.get("Association")
    association = item_mapping(association, "Association") if association is not None else {}
    attachment = item.get("Attachment")
    attachment = item_mapping(attachment, "Attachment") if attachment is not None else {}
    return AwsNetworkInterface(
        account=ctx.account_for(item, vpc_id),
        region=ctx.region,
        interface_id=required(item, "NetworkInterfaceId"),
        vpc_id=vpc_id,
        subnet_id=optional(item, "SubnetId"),
        private_ips=private,
        ipv6_addresses=[required(a, "Ipv6Address") for a in objects(item, "Ipv6Addresses")],
        public_ip=optional(association, "PublicIp"),
        security_groups=[required(g, "GroupId") for g in objects(item, "Groups")],
        interface_type=optional(item, "InterfaceType"),
        description=optional(item, "Description"),
        attachment=optional(attachment, "InstanceId") or optional(item, "RequesterId"),
    )


def read_flow_log_destination(item: dict[str, Any], ctx: AwsContext) -> AwsFlowLogDestination:
    kind = required(item, "DestinationType")
    if kind not in _DESTINATION_TYPES:
        raise ItemError(f"DestinationType must be one of {', '.join(_DESTINATION_TYPES)}, not {kind!r}")
    destination = required(item, "Destination")
    if kind == "s3":
        return _s3_destination(item, ctx, destination)
    if kind == "cloud-watch-logs":
        group = item.get("LogGroup")
        if group is None:
            raise ItemError(f"log group {destination} does not exist (DescribeLogGroups found none)")
        group = item_mapping(group, "LogGroup")
        return AwsFlowLogDestination(
            account=ctx.account_for(item),
            region=ctx.region,
            destination=destination,
            destination_type="cloud-watch-logs",
            retention_days=optional_int(group, "retentionInDays"),
        )
    return AwsFlowLogDestination(
        account=ctx.account_for(item),
        region=ctx.region,
        destination=destination,
        destination_type="kinesis-data-firehose",
    )


def _s3_destination(item: dict[str, Any], ctx: AwsContext, destination: str) -> AwsFlowLogDestination:
    if "ObjectLockConfiguration" not in item or "Versioning" not in item:
        raise ItemError("an s3 destination needs ObjectLockConfiguration (or null) and Versioning")
    enabled, mode, days = object_lock(item.get("ObjectLockConfiguration"))
    versioning = item_mapping(item.get("Versioning"), "Versioning")
    return AwsFlowLogDestination(
        account=ctx.account_for(item),
        region=ctx.region,
        destination=destination,
        destination_type="s3",
        object_lock_enabled=enabled,
        object_lock_mode=mode,
        object_lock_days=days,
        versioning=optional(versioning, "Status") or "Disabled",
    )


def object_lock(lock: object) -> tuple[bool, str | None, int | None]:
    """(enabled, default retention mode, default retention days) of a GetObjectLockConfiguration
    `ObjectLockConfiguration` (None: the bucket has none). Years count as 365 days."""
    if lock is None:
        return False, None, None
    lock = item_mapping(lock, "ObjectLockConfiguration")
    enabled = optional(lock, "ObjectLockEnabled") == "Enabled"
    mode, days = None, None
    rule = lock.get("Rule")
    retention = item_mapping(rule, "Rule").get("DefaultRetention") if rule is not None else None
    if retention is not None:
        retention = item_mapping(retention, "DefaultRetention")
        mode = optional(retention, "Mode")
        days = optional_int(retention, "Days")
        years = optional_int(retention, "Years")
        if days is None and years is not None:
            days = years * 365
    return enabled, mode, days


def read_log_group(item: dict[str, Any], ctx: AwsContext) -> AwsFlowLogDestination:
    """A CloudWatch Logs group (`aws logs describe-log-groups`): no retentionInDays means never expires."""
    return AwsFlowLogDestination(
        account=ctx.account_for(item),
        region=ctx.region,
        destination=required(item, "logGroupName"),
        destination_type="cloud-watch-logs",
        retention_days=optional_int(item, "retentionInDays"),
    )
