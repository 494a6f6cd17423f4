"""Shared parts of the synthetic fleet: address plan, declared intent, the Fleet container."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from auditor.config.models import Intent
from auditor.enums import FactKind, TargetStatus, Tier
from auditor.facts import Coverage, FactRecord
from checks.base import TargetView

OOB_NET = ipaddress.ip_network("10.250.0.0/16")
FE_NET = ipaddress.ip_network("10.16.0.0/12")  # 10.16-10.31: frontend, room for 4x
BE_NET = ipaddress.ip_network("10.32.0.0/11")  # 10.32-10.63: backend p2p links and GPU subnets
JUMP_HOST = "10.250.200.10"
PROXY = "10.16.5.10"
RESOLVER = "10.16.0.53"

INTENT = Intent.model_validate(
    {
        "tiers": {
            "oob": {
                "cidrs": [str(OOB_NET)],
                "vrfs": ["MGMT", "management"],
                "devices": ["oob-*"],
                "device_roles": {"oob-switch": ["oob-sw*"]},
                "jump_hosts": [JUMP_HOST],
            },
            "frontend": {
                "cidrs": [str(FE_NET)],
                "vrfs": ["FRONTEND"],
                "vlans": "2000-2999",
                "device_roles": {"leaf": ["fe-leaf*"]},
                "namespaces": {"labels": {"tier": "frontend"}},
                "aws": {"vpc_tags": {"tier": "frontend"}, "subnet_tags": {"role": "model-serving"}},
                "egress_proxy": [f"{PROXY}:3128"],
                "dns_resolvers": [RESOLVER],
            },
            "backend": {
                "cidrs": [str(BE_NET)],
                "vrfs": ["default", "RDMA-A", "RDMA-B"],
                "vlans": "3000-3999",
                "device_roles": {"spine": ["be-spine*"], "leaf": ["be-leaf*"]},
                "min_mtu": 9000,
                "lossless_priority": 3,
                "max_oversubscription": 1.0,
            },
        }
    }
)

DEVICE_KINDS = [
    FactKind.DEVICE,
    FactKind.INTERFACE,
    FactKind.VRF,
    FactKind.VLAN,
    FactKind.VXLAN_VNI,
    FactKind.ROUTE,
    FactKind.BGP_NEIGHBOR,
    FactKind.ACL,
    FactKind.ACL_BINDING,
    FactKind.MGMT_SERVICE,
    FactKind.QOS_INTERFACE,
    FactKind.LLDP_NEIGHBOR,
]
AWS_KINDS = [
    FactKind.AWS_VPC,
    FactKind.AWS_SUBNET,
    FactKind.AWS_ROUTE_TABLE,
    FactKind.AWS_GATEWAY,
    FactKind.AWS_SECURITY_GROUP,
    FactKind.AWS_NETWORK_ACL,
    FactKind.AWS_FLOW_LOG_CONFIG,
    FactKind.AWS_FLOW_LOG_DESTINATION,
    FactKind.AWS_NETWORK_INTERFACE,
]
K8S_KINDS = [
    FactKind.K8S_NAMESPACE,
    FactKind.K8S_NETWORK_POLICY,
    FactKind.K8S_POD,
    FactKind.K8S_SERVICE,
    FactKind.K8S_INGRESS,
]
FLOW_KINDS = [FactKind.FLOW_CONVERSATION, FactKind.FLOW_LOG_STATS]


@dataclass
class Fleet:
    targets: list[TargetView] = field(default_factory=list)
    facts: list[tuple[str, FactRecord]] = field(default_factory=list)  # (target name, record)

    def add_target(
        self,
        name: str,
        kind: str,
        tier: Tier | None,
        role: str | None,
        platform: str | None,
        kinds: list[FactKind],
    ) -> None:
        self.targets.append(TargetView(name, kind, platform, tier, role, TargetStatus.OK, None))
        self.facts += [(name, Coverage(target=name, covers=k, scope="synthetic")) for k in kinds]

    def add(self, target: str, records: list[FactRecord]) -> None:
        self.facts += [(target, r) for r in records]


class Addresses:
    """Consecutive blocks of a given size out of a network."""

    def __init__(self, net: ipaddress.IPv4Network, start: int = 0) -> None:
        self._next = int(net.network_address) + start
        self._end = int(net.broadcast_address)

    def block(self, prefix: int) -> ipaddress.IPv4Network:
        size = 2 ** (32 - prefix)
        base = (self._next + size - 1) // size * size
        self._next = base + size
        assert self._next - 1 <= self._end, "address space exhausted"
        return ipaddress.ip_network(f"{ipaddress.ip_address(base)}/{prefix}")
