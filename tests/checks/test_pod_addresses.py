"""The sorted pod-address index must find exactly what a walk over every pod finds, in the same order."""

from __future__ import annotations

import ipaddress
import random

from auditor.enums import FactKind
from auditor.facts import K8sPod
from auditor.store.reader import StoredFact
from checks.netutil import Network
from checks.tier2._pod_addresses import Address, PodAddresses, pod_addresses


def _naive(
    pods: list[StoredFact[K8sPod]], net: Network, excepts: list[Network], others: set[str]
) -> list[tuple[StoredFact[K8sPod], Address]]:
    """The walk the index replaces (T2-NO-CROSS-TENANT before the index)."""
    hit = []
    for pod in pods:
        rec = pod.record
        if rec.namespace not in others or rec.host_network:
            continue
        for addr in pod_addresses(rec):
            if addr.version == net.version and addr in net and not any(addr in e for e in excepts):
                hit.append((pod, addr))
                break
    return hit


def _address(rng: random.Random) -> str:
    if rng.random() < 0.2:
        return f"fd00::{rng.randrange(64):x}"
    if rng.random() < 0.03:
        return "not-an-ip"
    return f"10.0.{rng.randrange(4)}.{rng.randrange(64)}"


def _pods(rng: random.Random, n: int) -> list[StoredFact[K8sPod]]:
    out = []
    for i in range(n):
        ips = [_address(rng) for _ in range(rng.randrange(3))]
        pod = K8sPod(
            cluster="c",
            namespace=f"ns{rng.randrange(5)}",
            name=f"pod{i}",
            ip=_address(rng) if rng.random() < 0.7 else None,
            ips=ips,
            host_network=rng.random() < 0.1,
            phase=rng.choice([None, "Running", "Pending", "Succeeded", "Failed"]),
        )
        out.append(StoredFact(i + 1, FactKind.K8S_POD, "c", 1, "0" * 64, pod))
    return out


def _block(rng: random.Random) -> Network:
    if rng.random() < 0.2:
        return ipaddress.ip_network(f"fd00::{rng.randrange(64):x}/{rng.randrange(120, 129)}", strict=False)
    return ipaddress.ip_network(
        f"10.0.{rng.randrange(4)}.{rng.randrange(64)}/{rng.randrange(16, 33)}", strict=False
    )


def test_index_agrees_with_a_walk_over_every_pod() -> None:
    rng = random.Random(20240607)
    for _ in range(40):
        pods = _pods(rng, rng.randrange(1, 120))
        index = PodAddresses(pods)
        for _ in range(25):
            net = _block(rng)
            excepts = [_block(rng) for _ in range(rng.randrange(3))]
            others = {f"ns{k}" for k in range(5) if rng.random() < 0.6}
            assert index.in_block(net, excepts, others) == _naive(pods, net, excepts, others)


def test_first_address_in_the_pods_own_order_is_reported() -> None:
    pod = K8sPod(cluster="c", namespace="b", name="p", ips=["10.0.0.9", "10.0.0.3"], ip="10.0.0.1")
    fact = StoredFact(1, FactKind.K8S_POD, "c", 1, "0" * 64, pod)
    found = PodAddresses([fact]).in_block(ipaddress.ip_network("10.0.0.0/24"), [], {"b"})
    assert found == [(fact, ipaddress.ip_address("10.0.0.9"))]
