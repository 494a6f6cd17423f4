"""Facts about network devices, common to every platform (EOS, NX-OS, IOS, Cumulus, SONiC, ...)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from auditor.enums import FactKind, Tier
from auditor.facts.base import FactRecord

VlanRange = tuple[int, int]


class Device(FactRecord):
    kind: ClassVar[FactKind] = FactKind.DEVICE
    device: str
    hostname: str
    platform: str
    tier: Tier | None = None
    role: str | None = None
    os_version: str | None = None
    model: str | None = None

    def subject(self) -> str:
        return self.device


# What an interface address is. Own addresses: primary, secondary. Virtual gateway addresses, shared by
# the devices that answer for them (an MLAG/vPC pair, every leaf of an EVPN fabric): varp (EOS
# `ip virtual-router address`), anycast (EOS `ip address virtual`, NX-OS `fabric forwarding mode
# anycast-gateway`), hsrp, vrrp, vrr (Cumulus), sag (SONiC static anycast gateway), magp (Onyx);
# virtual: a shared address whose protocol the source does not say.
AddressKind = Literal[
    "primary", "secondary", "varp", "anycast", "hsrp", "vrrp", "vrr", "sag", "magp", "virtual"
]
OWN_KINDS = frozenset({"primary", "secondary"})


class IfAddress(BaseModel):
    """One IPv4 address of an interface and its kind."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    address: str  # interface notation, "10.0.0.1/24"
    kind: AddressKind
    group: int | None = None  # the HSRP/VRRP/MAGP group

    @property
    def virtual(self) -> bool:
        """Shared with other devices by design (a gateway), not this device's own address."""
        return self.kind not in OWN_KINDS


class Interface(FactRecord):
    kind: ClassVar[FactKind] = FactKind.INTERFACE
    device: str
    name: str
    type: Literal["ethernet", "port-channel", "vlan", "loopback", "management", "vxlan", "tunnel", "other"]
    description: str | None = None
    vrf: str = "default"
    enabled: bool = True
    switchport: bool = False
    mode: Literal["access", "trunk", "routed"] | None = None
    access_vlan: int | None = None
    native_vlan: int | None = None
    trunk_allowed_vlans: list[VlanRange] | None = None  # None: all VLANs allowed
    mtu: int | None = None
    speed_mbps: int | None = None
    ipv4: list[str] = []  # interface notation, e.g. "10.0.0.1/31"
    # virtual gateway addresses (VARP, anycast, HSRP, VRRP, VRR, SAG, MAGP); `addresses` gives their kinds
    ipv4_virtual: list[str] = []
    ipv6: list[str] = []
    port_channel: str | None = None  # the port-channel this member belongs to
    service_profile: str | None = None  # QoS profile applied to the port
    # Every IPv4 address with its kind. A record made without it (an older fact, a NAPALM getter) gets
    # one from ipv4 (the first primary, the rest secondary) and ipv4_virtual (kind "virtual").
    addresses: list[IfAddress] = []

    @model_validator(mode="before")
    @classmethod
    def _derive_addresses(cls, data: Any) -> Any:
        if isinstance(data, dict) and "addresses" not in data:
            own = list(data.get("ipv4") or [])
            derived = [
                {"address": a, "kind": "primary" if i == 0 else "secondary"} for i, a in enumerate(own)
            ]
            derived += [{"address": a, "kind": "virtual"} for a in data.get("ipv4_virtual") or []]
            data = {**data, "addresses": derived}
        return data

    def virtual_kind(self, address: str) -> str | None:
        """The kind of a virtual gateway address of this interface ("hsrp", ...), None if it is not one.
        `address` may be given with or without its length."""
        bare = address.split("/", maxsplit=1)[0]
        return next(
            (a.kind for a in self.addresses if a.virtual and a.address.split("/", maxsplit=1)[0] == bare),
            None,
        )

    def subject(self) -> str:
        return f"{self.device}/{self.name}"


class Vrf(FactRecord):
    kind: ClassVar[FactKind] = FactKind.VRF
    device: str
    name: str
    rd: str | None = None
    route_targets_import: list[str] = []
    route_targets_export: list[str] = []
    ip_routing: bool | None = None
    l3_vni: int | None = None
    leaks: list[str] = []  # inter-VRF leak statements, verbatim
    bgp_networks: list[str] = []
    bgp_redistribute: list[str] = []
    interfaces: list[str] = []

    def subject(self) -> str:
        return f"{self.device}/vrf {self.name}"


class Vlan(FactRecord):
    kind: ClassVar[FactKind] = FactKind.VLAN
    device: str
    vlan_id: int
    name: str | None = None
    trunk_groups: list[str] = []
    interfaces: list[str] = []

    def subject(self) -> str:
        return f"{self.device}/vlan {self.vlan_id}"


class VxlanVni(FactRecord):
    """One VXLAN mapping: an L2 VNI (vlan set) or an L3 VNI (vrf set)."""

    kind: ClassVar[FactKind] = FactKind.VXLAN_VNI
    device: str
    vni: int
    vlan: int | None = None
    vrf: str | None = None

    def subject(self) -> str:
        return f"{self.device}/vni {self.vni}"


class Route(FactRecord):
    kind: ClassVar[FactKind] = FactKind.ROUTE
    device: str
    vrf: str = "default"
    prefix: str  # network in CIDR form, e.g. "0.0.0.0/0"
    protocol: str = "static"  # static, connected, bgp, ospf, ...
    next_hop: str | None = None
    interface: str | None = None
    distance: int | None = None
    name: str | None = None

    def subject(self) -> str:
        return f"{self.device}/vrf {self.vrf}/{self.prefix}"


class BgpNeighbor(FactRecord):
    kind: ClassVar[FactKind] = FactKind.BGP_NEIGHBOR
    device: str
    vrf: str = "default"
    peer: str  # address, or peer-group / interface name for unnumbered peers
    remote_as: str | None = None
    peer_group: str | None = None
    description: str | None = None
    default_originate: bool = False
    shutdown: bool = False
    # the address or interface the session is sourced from: `update-source` (EOS, NX-OS, IOS, Onyx, FRR),
    # `local-address` (Junos, its group's when the neighbour has none); None: the OS picks (egress port)
    update_source: str | None = None
    # routing policies applied to what is received / sent: Junos `import`/`export` (a neighbour's list
    # replaces its group's), `route-map NAME in|out` elsewhere; in the order applied
    import_policies: list[str] = []
    export_policies: list[str] = []

    def subject(self) -> str:
        return f"{self.device}/vrf {self.vrf}/bgp {self.peer}"


class AclEntry(FactRecord):
    sequence: int | None = None
    action: Literal["permit", "deny", "remark"]
    protocol: str | None = None
    source: str | None = None  # "any", "host A", a CIDR, or an object-group name
    source_ports: str | None = None
    destination: str | None = None
    destination_ports: str | None = None
    text: str  # the entry as configured, for the report


class Acl(FactRecord):
    kind: ClassVar[FactKind] = FactKind.ACL
    device: str
    name: str
    family: Literal["ipv4", "ipv6", "mac"] = "ipv4"
    standard: bool = False
    entries: list[AclEntry] = []

    def subject(self) -> str:
        return f"{self.device}/acl {self.name}"


class AclBinding(FactRecord):
    """Where an ACL is applied: an interface, a VTY/management service, or the control plane."""

    kind: ClassVar[FactKind] = FactKind.ACL_BINDING
    device: str
    acl: str
    attach_point: Literal["interface", "management", "control-plane"]
    name: str  # interface name, service name (ssh, snmp, ...) or "control-plane"
    direction: Literal["in", "out"] = "in"
    vrf: str | None = None

    def subject(self) -> str:
        return f"{self.device}/{self.name}/{self.direction} {self.acl}"


class MgmtService(FactRecord):
    """A management-plane service and the VRF it listens in."""

    kind: ClassVar[FactKind] = FactKind.MGMT_SERVICE
    device: str
    service: Literal["ssh", "telnet", "eapi", "nxapi", "snmp", "http", "https", "gnmi", "netconf", "restconf"]
    vrf: str = "default"
    enabled: bool = True
    acl: str | None = None
    # Where the state comes from: "operational", what the device reports running (`show management
    # ssh`, `show feature`, `show ip http server status`), or "config", inferred from the configuration
    # and the OS's documented defaults. Checks prefer the operational reading (checks/reconcile.py).
    source: Literal["config", "operational"] = "config"
    # An operational reading that holds in every VRF (NX-OS `show feature`: the feature is off, or on
    # everywhere): config-inferred records of the same service in other VRFs are superseded by it.
    all_vrfs: bool = False

    def subject(self) -> str:
        return f"{self.device}/{self.service} in vrf {self.vrf}"


class QosInterface(FactRecord):
    """PFC, ECN and trust settings of one interface, with any QoS profile already resolved."""

    kind: ClassVar[FactKind] = FactKind.QOS_INTERFACE
    device: str
    interface: str
    pfc_enabled: bool | None = None
    pfc_no_drop_priorities: list[int] = []
    pfc_drop_priorities: list[int] = []
    pfc_watchdog: bool | None = None
    ecn_queues: list[int] = []
    trust: str | None = None  # "dscp", "cos", "untrusted"
    service_policy_in: str | None = None

    def subject(self) -> str:
        return f"{self.device}/{self.interface} qos"


class LldpNeighbor(FactRecord):
    kind: ClassVar[FactKind] = FactKind.LLDP_NEIGHBOR
    device: str
    interface: str
    neighbor: str
    neighbor_interface: str | None = None

    def subject(self) -> str:
        return f"{self.device}/{self.interface} -> {self.neighbor}"


class PartitionMember(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    guid: str  # port GUID, or "ALL", "SELF", "ALL_SWITCHES" as OpenSM allows
    membership: Literal["full", "limited", "both"] = "full"


class IbPartition(FactRecord):
    """An InfiniBand partition (P_Key): tenant isolation on an IB fabric, from OpenSM or UFM."""

    kind: ClassVar[FactKind] = FactKind.IB_PARTITION
    fabric: str
    name: str
    pkey: int
    default: bool = False
    ipoib: bool = False
    members: list[PartitionMember] = []

    def subject(self) -> str:
        return f"{self.fabric}/partition {self.name} (0x{self.pkey:04x})"
