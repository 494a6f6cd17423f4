"""EC2 topology readers: VPCs, subnets, route tables and every kind of gateway.

Route target types: local, internet-gateway, vpn-gateway, vpc-endpoint, gateway (another GatewayId),
nat-gateway, transit-gateway, vpc-peering, egress-only-internet-gateway, instance, network-interface,
carrier-gateway, local-gateway, core-network, unknown.
"""

from __future__ import annotations

from typing import Any

from auditor.facts.aws import AwsGateway, AwsRoute, AwsRouteTable, AwsSubnet, AwsVpc
from collectors.normalizers.aws_values import (
    GONE_STATES,
    UNKNOWN,
    AwsContext,
    ItemError,
    flag,
    item_mapping,
    live_cidrs,
    objects,
    optional,
    required,
    tags,
)

# Route target keys in precedence order: an instance route also carries its NetworkInterfaceId.
_ROUTE_TARGETS: tuple[tuple[str, str], ...] = (
    ("NatGatewayId", "nat-gateway"),
    ("TransitGatewayId", "transit-gateway"),
    ("VpcPeeringConnectionId", "vpc-peering"),
    ("EgressOnlyInternetGatewayId", "egress-only-internet-gateway"),
    ("InstanceId", "instance"),
    ("NetworkInterfaceId", "network-interface"),
    ("CarrierGatewayId", "carrier-gateway"),
    ("LocalGatewayId", "local-gateway"),
    ("CoreNetworkArn", "core-network"),
)
_GATEWAY_PREFIXES = (("igw-", "internet-gateway"), ("vgw-", "vpn-gateway"), ("vpce-", "vpc-endpoint"))


def read_vpc(item: dict[str, Any], ctx: AwsContext) -> AwsVpc:
    vpc_id = required(item, "VpcId")
    cidrs = live_cidrs(item, "CidrBlockAssociationSet", "CidrBlock", "CidrBlockState")
    primary = optional(item, "CidrBlock")
    if primary is not None and primary not in cidrs:
        cidrs.insert(0, primary)
    return AwsVpc(
        account=ctx.account_for(item, vpc_id),
        region=ctx.region,
        vpc_id=vpc_id,
        cidrs=cidrs,
        ipv6_cidrs=live_cidrs(item, "Ipv6CidrBlockAssociationSet", "Ipv6CidrBlock", "Ipv6CidrBlockState"),
        is_default=flag(item, "IsDefault"),
        tags=tags(item),
    )


def read_subnet(item: dict[str, Any], ctx: AwsContext) -> AwsSubnet:
    vpc_id = required(item, "VpcId")
    return AwsSubnet(
        account=ctx.account_for(item, vpc_id),
        region=ctx.region,
        subnet_id=required(item, "SubnetId"),
        vpc_id=vpc_id,
        cidr=optional(item, "CidrBlock"),
        ipv6_cidrs=live_cidrs(item, "Ipv6CidrBlockAssociationSet", "Ipv6CidrBlock", "Ipv6CidrBlockState"),
        availability_zone=optional(item, "AvailabilityZone"),
        map_public_ip_on_launch=flag(item, "MapPublicIpOnLaunch"),
        tags=tags(item),
    )


def _route(route: dict[str, Any], index: int) -> AwsRoute:
    destination = (
        optional(route, "DestinationCidrBlock")
        or optional(route, "DestinationIpv6CidrBlock")
        or optional(route, "DestinationPrefixListId")
    )
    if destination is None:
        raise ItemError(f"Routes[{index}] has no destination")
    target_type, target_id = UNKNOWN, None
    gateway = optional(route, "GatewayId")
    if gateway is not None:
        target_id = gateway
        target_type = "local" if gateway == "local" else "gateway"
        for prefix, name in _GATEWAY_PREFIXES:
            if gateway.startswith(prefix):
                target_type = name
    else:
        for key, name in _ROUTE_TARGETS:
            value = optional(route, key)
            if value is not None:
                target_type, target_id = name, value
                break
    return AwsRoute(
        destination=destination,
        target_type=target_type,
        target_id=target_id,
        state=optional(route, "State"),
        origin=optional(route, "Origin"),
    )


def read_route_table(item: dict[str, Any], ctx: AwsContext) -> AwsRouteTable:
    table_id = required(item, "RouteTableId")
    vpc_id = required(item, "VpcId")
    main = False
    subnet_ids: list[str] = []
    gateway_ids: list[str] = []
    for assoc in objects(item, "Associations"):
        state = assoc.get("AssociationState")
        if isinstance(state, dict) and state.get("State") in GONE_STATES:
            continue
        main = main or flag(assoc, "Main")
        subnet, gateway = optional(assoc, "SubnetId"), optional(assoc, "GatewayId")
        if subnet is not None and subnet not in subnet_ids:
            subnet_ids.append(subnet)
        if gateway is not None and gateway not in gateway_ids:
            gateway_ids.append(gateway)
    return AwsRouteTable(
        account=ctx.account_for(item, vpc_id),
        region=ctx.region,
        route_table_id=table_id,
        vpc_id=vpc_id,
        main=main,
        subnet_ids=subnet_ids,
        gateway_ids=gateway_ids,
        routes=[_route(r, i) for i, r in enumerate(objects(item, "Routes"))],
        tags=tags(item),
    )


def _attached_vpcs(item: dict[str, Any], key: str) -> tuple[list[str], str | None]:
    """VPC ids and the first attachment state of an IGW/EIGW/VGW; no attachment means detached."""
    attachments = objects(item, key)
    vpcs = [required(a, "VpcId") for a in attachments]
    state = optional(attachments[0], "State") if attachments else "detached"
    return vpcs, state


def read_internet_gateway(item: dict[str, Any], ctx: AwsContext) -> AwsGateway:
    vpcs, state = _attached_vpcs(item, "Attachments")
    return AwsGateway(
        account=ctx.account_for(item, vpcs[0] if vpcs else None),
        region=ctx.region,
        gateway_id=required(item, "InternetGatewayId"),
        gateway_type="internet",
        vpc_ids=vpcs,
        state=state,
        public=True,
        tags=tags(item),
    )


def read_egress_only_gateway(item: dict[str, Any], ctx: AwsContext) -> AwsGateway:
    vpcs, state = _attached_vpcs(item, "Attachments")
    return AwsGateway(
        account=ctx.account_for(item, vpcs[0] if vpcs else None),
        region=ctx.region,
        gateway_id=required(item, "EgressOnlyInternetGatewayId"),
        gateway_type="egress-only",
        vpc_ids=vpcs,
        state=state,
        public=True,
        tags=tags(item),
    )


def read_vpn_gateway(item: dict[str, Any], ctx: AwsContext) -> AwsGateway:
    vpcs, _ = _attached_vpcs(item, "VpcAttachments")
    return AwsGateway(
        account=ctx.account_for(item, vpcs[0] if vpcs else None),
        region=ctx.region,
        gateway_id=required(item, "VpnGatewayId"),
        gateway_type="vpn",
        vpc_ids=vpcs,
        state=optional(item, "State"),
        tags=tags(item),
    )


def read_nat_gateway(item: dict[str, Any], ctx: AwsContext) -> AwsGateway:
    """Public unless ConnectivityType says private (responses from before 2021 have no such field)."""
    vpc_id = optional(item, "VpcId")
    connectivity = optional(item, "ConnectivityType") or "public"
    return AwsGateway(
        account=ctx.account_for(item, vpc_id),
        region=ctx.region,
        gateway_id=required(item, "NatGatewayId"),
        gateway_type="nat",
        vpc_ids=[vpc_id] if vpc_id else [],
        subnet_id=optional(item, "SubnetId"),
        state=optional(item, "State"),
        public=connectivity == "public",
        tags=tags(item),
    )


def read_transit_gateway(item: dict[str, Any], ctx: AwsContext) -> AwsGateway:
    return AwsGateway(
        account=ctx.account_for(item),
        region=ctx.region,
        gateway_id=required(item, "TransitGatewayId"),
        gateway_type="transit",
        state=optional(item, "State"),
        tags=tags(item),
    )


def read_peering(item: dict[str, Any], ctx: AwsContext) -> AwsGateway:
    """Requester VPC first, then accepter; the requester owns the connection."""
    requester = item_mapping(item.get("RequesterVpcInfo"), "RequesterVpcInfo")
    accepter = item_mapping(item.get("AccepterVpcInfo"), "AccepterVpcInfo")
    status = item.get("Status")
    vpcs = [v for v in (optional(requester, "VpcId"), optional(accepter, "VpcId")) if v]
    return AwsGateway(
        account=ctx.account_for(requester, vpcs[0] if vpcs else None),
        region=ctx.region,
        gateway_id=required(item, "VpcPeeringConnectionId"),
        gateway_type="vpc-peering",
        vpc_ids=vpcs,
        state=optional(status, "Code") if isinstance(status, dict) else None,
        tags=tags(item),
    )


def read_vpn_connection(item: dict[str, Any], ctx: AwsContext) -> AwsGateway:
    """A site-to-site VPN connection (DescribeVpnConnections): the VPN or transit gateway it ends on and
    its static routes. Its CustomerGatewayConfiguration (which holds the tunnels' keys) is never read."""
    routes = [
        cidr
        for r in objects(item, "Routes")
        if (cidr := optional(r, "DestinationCidrBlock")) is not None and r.get("State") not in ("deleted",)
    ]
    return AwsGateway(
        account=ctx.account_for(item),
        region=ctx.region,
        gateway_id=required(item, "VpnConnectionId"),
        gateway_type="vpn-connection",
        state=optional(item, "State"),
        via=optional(item, "VpnGatewayId") or optional(item, "TransitGatewayId"),
        destinations=routes,
        tags=tags(item),
    )
