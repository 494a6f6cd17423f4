"""One cluster's pod addresses, parsed once and sorted, so an address block finds the pods inside it by
bisection: a walk over every pod for every ipBlock is quadratic on clusters of thousands of pods."""

from __future__ import annotations

import ipaddress
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence

from auditor.facts import K8sPod
from auditor.store.reader import StoredFact
from checks.netutil import Network

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def pod_addresses(pod: K8sPod) -> list[Address]:
    """A running (or pending) pod's addresses; finished pods hold none."""
    if pod.phase in ("Succeeded", "Failed"):
        return []
    out = []
    for raw in [*pod.ips, *([pod.ip] if pod.ip else [])]:
        try:
            out.append(ipaddress.ip_address(raw))
        except ValueError:
            continue
    return out


class PodAddresses:
    """Pods by address: per IP version, (address, pod index, position among the pod's addresses)."""

    def __init__(self, pods: Sequence[StoredFact[K8sPod]]) -> None:
        self.pods = list(pods)
        entries: dict[int, list[tuple[int, int, int, Address]]] = {4: [], 6: []}
        for index, pod in enumerate(self.pods):
            for position, addr in enumerate(pod_addresses(pod.record)):
                entries[addr.version].append((int(addr), index, position, addr))
        for values in entries.values():
            values.sort(key=lambda e: (e[0], e[1], e[2]))
        self._entries = entries
        self._keys = {v: [e[0] for e in values] for v, values in entries.items()}

    def in_block(
        self, net: Network, excepts: Sequence[Network], namespaces: Collection[str]
    ) -> list[tuple[StoredFact[K8sPod], Address]]:
        """Pods of `namespaces` (host-network pods aside) with an address in `net` outside `excepts`, in
        pod order, each with its first such address: what a walk over the pods in order would find."""
        keys, entries = self._keys[net.version], self._entries[net.version]
        lo = bisect_left(keys, int(net.network_address))
        hi = bisect_right(keys, int(net.broadcast_address))
        first: dict[int, tuple[int, Address]] = {}
        for _, index, position, addr in entries[lo:hi]:
            rec = self.pods[index].record
            if rec.namespace not in namespaces or rec.host_network:
                continue
            if any(addr in e for e in excepts):
                continue
            if index not in first or position < first[index][0]:
                first[index] = (position, addr)
        return [(self.pods[index], first[index][1]) for index in sorted(first)]
