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
    gateway_type: Literal["internet", "nat", "egress-only", "transit", "vpn", "vpc-peering", "vpn-connection"]
    vpc_ids: list[str] = []
    subnet_id: str | None = None
    state: str | None = None
    public: bool = False
    tags: dict[str, str] = {}
    # A VPN connection: the VPN gateway or transit gateway it ends on, and its static routes (the prefixes
    # its customer gateway holds, when the connection uses static routing).
    via: str | None = None
    destinations: list[str] = []

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
    icmp_type: int | None = None  # IcmpTypeCode of an ICMP/ICMPv6 entry (-1: every type/code)
    icmp_code: int | None = None


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
    delivery: str | None = None  # DeliverLogsStatus: SUCCESS or FAILED (None: not reported)
    delivery_error: str | None = None  # DeliverLogsErrorMessage, e.g. "Access error"

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.flow_log_id} on {self.resource_id}"


class AwsNetworkInterface(_AwsFact):
    """An ENI: maps addresses to subnets and security groups (what a flow-log address belongs to)."""

    kind: ClassVar[FactKind] = FactKind.AWS_NETWORK_INTERFACE
    interface_id: str
    vpc_id: str | None = None
    subnet_id: str | None = None
    private_ips: list[str] = []
    ipv6_addresses: list[str] = []
    public_ip: str | None = None
    security_groups: list[str] = []
    interface_type: str | None = None
    description: str | None = None
    attachment: str | None = None  # instance id or service that owns it

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.interface_id}"


class AwsTgwAttachment(_AwsFact):
    kind: ClassVar[FactKind] = FactKind.AWS_TGW_ATTACHMENT
    attachment_id: str
    transit_gateway_id: str
    resource_type: str  # vpc, vpn, peering, direct-connect-gateway, connect
    resource_id: str | None = None
    resource_owner: str | None = None
    state: str | None = None
    route_table_id: str | None = None  # the TGW route table it is associated with

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.attachment_id}"


class TgwRoute(_Part):
    destination: str
    attachment_ids: list[str] = []
    type: str = "static"  # static or propagated
    state: str = "active"  # active or blackhole


class AwsTgwRouteTable(_AwsFact):
    """A transit gateway route table. The AWS CLI gives its parts in separate files (describe, routes,
    associations, propagations), each read into a partial record; the run's records of one table are
    merged (checks/reconcile). None means "that part is not in the evidence", never "empty"."""

    kind: ClassVar[FactKind] = FactKind.AWS_TGW_ROUTE_TABLE
    route_table_id: str
    transit_gateway_id: str | None = None
    routes: list[TgwRoute] | None = None
    associations: list[str] | None = None  # attachment ids
    propagations: list[str] | None = None  # attachment ids

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.route_table_id}"


class AwsFlowLogDestination(_AwsFact):
    """Where flow logs land and whether they are kept immutably. An S3 bucket's Object Lock and versioning
    come from two CLI files, each read into a partial record (the other's fields None) and merged per run
    (checks/reconcile)."""

    kind: ClassVar[FactKind] = FactKind.AWS_FLOW_LOG_DESTINATION
    destination: str  # bucket ARN or log group name
    destination_type: Literal["s3", "cloud-watch-logs", "kinesis-data-firehose"]
    object_lock_enabled: bool | None = None  # S3
    object_lock_mode: str | None = None  # GOVERNANCE or COMPLIANCE
    object_lock_days: int | None = None
    retention_days: int | None = None  # CloudWatch log group retention (None: never expire)
    versioning: str | None = None

    def subject(self) -> str:
        return f"{self.account}/{self.region}/{self.destination}"
