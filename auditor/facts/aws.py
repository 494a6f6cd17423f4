"""Facts about AWS network state: VPCs, subnets, routing, filtering and flow-log settings."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from auditor.enums import FactKind
from auditor.facts.base import FactRecord


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _AwsFact(FactRecord):
    account: str
    region: str


class AwsVpc(_AwsFact):
    kind: ClassVar[FactKind] = FactKind.AWS_VPC
    vpc_id: str
    cidrs: list[str] = []
    ipv6_cidrs: list[str] = []
    is_default: bool = False
    tags: dict[str, str] = {}

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.vpc_id}"


class AwsSubnet(_AwsFact):
    kind: ClassVar[FactKind] = FactKind.AWS_SUBNET
    subnet_id: str
    vpc_id: str
    cidr: str | None = None
    ipv6_cidrs: list[str] = []
    availability_zone: str | None = None
    map_public_ip_on_launch: bool = False
    tags: dict[str, str] = {}

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.subnet_id}"


class AwsRoute(_Part):
    destination: str  # CIDR, IPv6 CIDR or prefix-list id
    target_type: str  # gateway, nat-gateway, transit-gateway, vpc-peering, network-interface, local, ...
    target_id: str | None = None
    state: str | None = None
    origin: str | None = None


class AwsRouteTable(_AwsFact):
    kind: ClassVar[FactKind] = FactKind.AWS_ROUTE_TABLE
    route_table_id: str
    vpc_id: str
    main: bool = False
    subnet_ids: list[str] = []
    gateway_ids: list[str] = []  # edge associations
    routes: list[AwsRoute] = []
    tags: dict[str, str] = {}

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.route_table_id}"


class AwsGateway(_AwsFact):
    kind: ClassVar[FactKind] = FactKind.AWS_GATEWAY
    gateway_id: str
    gateway_type: Literal["internet", "nat", "egress-only", "transit", "vpn", "vpc-peering"]
    vpc_ids: list[str] = []
    subnet_id: str | None = None
    state: str | None = None
    public: bool = False
    tags: dict[str, str] = {}

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.gateway_id}"


class SgRule(_Part):
    protocol: str  # "-1" (all), "tcp", "udp", "icmp", or a number
    from_port: int | None = None
    to_port: int | None = None
    cidrs: list[str] = []
    ipv6_cidrs: list[str] = []
    prefix_lists: list[str] = []
    groups: list[str] = []
    description: str | None = None


class AwsSecurityGroup(_AwsFact):
    kind: ClassVar[FactKind] = FactKind.AWS_SECURITY_GROUP
    group_id: str
    name: str
    vpc_id: str | None = None
    description: str | None = None
    ingress: list[SgRule] = []
    egress: list[SgRule] = []
    tags: dict[str, str] = {}

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.group_id} ({self.name})"


class NaclEntry(_Part):
    rule_number: int
    egress: bool
    action: Literal["allow", "deny"]
    protocol: str
    cidr: str | None = None
    ipv6_cidr: str | None = None
    port_from: int | None = None
    port_to: int | None = None


class AwsNetworkAcl(_AwsFact):
    kind: ClassVar[FactKind] = FactKind.AWS_NETWORK_ACL
    network_acl_id: str
    vpc_id: str
    is_default: bool = False
    subnet_ids: list[str] = []
    entries: list[NaclEntry] = []
    tags: dict[str, str] = {}

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.network_acl_id}"


class AwsFlowLogConfig(_AwsFact):
    kind: ClassVar[FactKind] = FactKind.AWS_FLOW_LOG_CONFIG
    flow_log_id: str
    resource_id: str
    traffic_type: str | None = None
    destination_type: str | None = None
    destination: str | None = None
    log_group: str | None = None
    log_format: str | None = None
    status: str | None = None

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.flow_log_id} on {self.resource_id}"
