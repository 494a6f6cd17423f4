"""EC2 filtering and logging readers: security groups, network ACLs, flow-log settings."""

from __future__ import annotations

from typing import Any

from auditor.facts.aws import AwsFlowLogConfig, AwsNetworkAcl, AwsSecurityGroup, NaclEntry, SgRule
from collectors.normalizers.aws_values import (
    AwsContext,
    ItemError,
    flag,
    item_mapping,
    objects,
    optional,
    optional_int,
    required,
    tags,
)


def _sg_rule(permission: dict[str, Any]) -> SgRule:
    """One IpPermission, whole: all its ranges and groups. Per-range descriptions are joined."""
    protocol = permission.get("IpProtocol")
    if isinstance(protocol, int) and not isinstance(protocol, bool):
        protocol = str(protocol)
    if not isinstance(protocol, str):
        raise ItemError("IpProtocol is missing")
    ranges = objects(permission, "IpRanges")
    ranges6 = objects(permission, "Ipv6Ranges")
    lists = objects(permission, "PrefixListIds")
    pairs = objects(permission, "UserIdGroupPairs")
    descriptions: list[str] = []
    for entry in (*ranges, *ranges6, *lists, *pairs):
        text = optional(entry, "Description")
        if text and text not in descriptions:
            descriptions.append(text)
    return SgRule(
        protocol=protocol,
        from_port=optional_int(permission, "FromPort"),
        to_port=optional_int(permission, "ToPort"),
        cidrs=[required(r, "CidrIp") for r in ranges],
        ipv6_cidrs=[required(r, "CidrIpv6") for r in ranges6],
        prefix_lists=[required(p, "PrefixListId") for p in lists],
        groups=[optional(p, "GroupId") or required(p, "GroupName") for p in pairs],
        description="; ".join(descriptions) or None,
    )


def read_security_group(item: dict[str, Any], ctx: AwsContext) -> AwsSecurityGroup:
    group_id = required(item, "GroupId")
    vpc_id = optional(item, "VpcId")
    return AwsSecurityGroup(
        account=ctx.account_for(item, vpc_id),
        region=ctx.region,
        group_id=group_id,
        name=optional(item, "GroupName") or group_id,
        vpc_id=vpc_id,
        description=optional(item, "Description"),
        ingress=[_sg_rule(p) for p in objects(item, "IpPermissions")],
        egress=[_sg_rule(p) for p in objects(item, "IpPermissionsEgress")],
        tags=tags(item),
    )


def _nacl_entry(entry: dict[str, Any]) -> NaclEntry:
    number = optional_int(entry, "RuleNumber")
    if number is None:
        raise ItemError("an entry has no RuleNumber")
    action = required(entry, "RuleAction").lower()
    if action not in ("allow", "deny"):
        raise ItemError(f"entry {number}: RuleAction must be allow or deny, not {action!r}")
    protocol = entry.get("Protocol")
    if isinstance(protocol, int) and not isinstance(protocol, bool):
        protocol = str(protocol)
    if not isinstance(protocol, str):
        raise ItemError(f"entry {number}: Protocol is missing")
    ports = entry.get("PortRange")
    port_range = item_mapping(ports, "PortRange") if ports is not None else {}
    icmp = entry.get("IcmpTypeCode")
    icmp_type_code = item_mapping(icmp, "IcmpTypeCode") if icmp is not None else {}
    return NaclEntry(
        rule_number=number,
        egress=flag(entry, "Egress"),
        action="allow" if action == "allow" else "deny",
        protocol=protocol,
        cidr=optional(entry, "CidrBlock"),
        ipv6_cidr=optional(entry, "Ipv6CidrBlock"),
        port_from=optional_int(port_range, "From"),
        port_to=optional_int(port_range, "To"),
        icmp_type=optional_int(icmp_type_code, "Type"),
        icmp_code=optional_int(icmp_type_code, "Code"),
    )


def read_network_acl(item: dict[str, Any], ctx: AwsContext) -> AwsNetworkAcl:
    vpc_id = required(item, "VpcId")
    subnets: list[str] = []
    for assoc in objects(item, "Associations"):
        subnet = optional(assoc, "SubnetId")
        if subnet is not None and subnet not in subnets:
            subnets.append(subnet)
    return AwsNetworkAcl(
        account=ctx.account_for(item, vpc_id),
        region=ctx.region,
        network_acl_id=required(item, "NetworkAclId"),
        vpc_id=vpc_id,
        is_default=flag(item, "IsDefault"),
        subnet_ids=subnets,
        entries=[_nacl_entry(e) for e in objects(item, "Entries")],
        tags=tags(item),
    )


def read_flow_log(item: dict[str, Any], ctx: AwsContext) -> AwsFlowLogConfig:
    resource = required(item, "ResourceId")
    return AwsFlowLogConfig(
        account=ctx.account_for(item, resource),
        region=ctx.region,
        flow_log_id=required(item, "FlowLogId"),
        resource_id=resource,
        traffic_type=optional(item, "TrafficType"),
        destination_type=optional(item, "LogDestinationType"),
        destination=optional(item, "LogDestination"),
        log_group=optional(item, "LogGroupName"),
        log_format=optional(item, "LogFormat"),
        status=optional(item, "FlowLogStatus"),
        delivery=optional(item, "DeliverLogsStatus"),
        delivery_error=optional(item, "DeliverLogsErrorMessage"),
    )
