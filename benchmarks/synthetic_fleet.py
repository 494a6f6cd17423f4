"""A synthetic GPU-cluster fleet for the scale benchmarks, shaped like the facts the normalizers produce.

At scale 1: 2,000 switches (100 OOB, 300 frontend leaves, 100 backend spines, 1,500 backend leaves) with
~100,000 interfaces, their VRFs, routes, BGP neighbours, VLANs, VNIs, QoS, LLDP, ACLs and management
services; 10 AWS accounts with 5,000 security groups holding 50,000 rules, NACLs, route tables, gateways,
ENIs and flow-log settings; 5 Kubernetes clusters with 1,000 namespaces, 5,000 network policies, 20,000
pods, services and ingresses; 50,000 flow conversations. Everything scales linearly with `scale`.

It is mostly clean, with a sprinkle of violations (about one subject in a hundred) so the checks walk
their failure paths too. Deterministic: the same scale gives the same facts."""

from collections.abc import Iterator

from fleet_base import BE_NET, FE_NET, INTENT, Addresses, Fleet
from fleet_cloud import aws_accounts, flow_logs, kubernetes_clusters
from fleet_devices import backend_fabric, frontend_leaves, oob_switches

from auditor.facts import AwsSecurityGroup, FactRecord

__all__ = ["INTENT", "Fleet", "build_fleet", "counts", "iter_by_target"]


def build_fleet(scale: int) -> Fleet:
    """The whole synthetic fleet at `scale` (1: 2,000 switches and ~100,000 interfaces)."""
    fleet = Fleet()
    fe_addrs, be_addrs = Addresses(FE_NET, 1 << 16), Addresses(BE_NET)
    oob_switches(fleet, 100 * scale)
    frontend_leaves(fleet, 300 * scale, fe_addrs)
    backend_fabric(fleet, 100 * scale, 1500 * scale, be_addrs)
    aws_accounts(fleet, 10 * scale, 500)
    kubernetes_clusters(fleet, 5 * scale, 200)
    flow_logs(fleet, 10 * scale, 5000)
    return fleet


def counts(fleet: Fleet) -> dict[str, int]:
    out: dict[str, int] = {}
    for _, r in fleet.facts:
        out[r.kind.value] = out.get(r.kind.value, 0) + 1
    sg_rules = sum(len(r.ingress) + len(r.egress) for _, r in fleet.facts if isinstance(r, AwsSecurityGroup))
    out["(security-group rules)"] = sg_rules
    return out


def iter_by_target(fleet: Fleet) -> Iterator[tuple[str, list[FactRecord]]]:
    by: dict[str, list[FactRecord]] = {}
    for t, r in fleet.facts:
        by.setdefault(t, []).append(r)
    yield from by.items()
