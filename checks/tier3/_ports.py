"""Which backend ports face GPUs (edge), which face spines (uplink), which join switches (fabric).

How a port of a backend device is told apart, first rule that applies:
0. the port manifest (`intent.ports`, checks/tier3/_manifest.py): a port it gives to another tier is
   "other" (not part of the RDMA fabric, judged by none of the lossless checks); a port it gives a role
   is an edge port (gpu, storage, host), an uplink (uplink) or a fabric port (fabric);
1. a port-channel member takes the class of its port-channel;
2. LLDP (when collected): a neighbour that is a known switch (an audited device, or a name the intent's
   device globs claim, domain suffix ignored) makes the port an uplink when the neighbour is a spine
   and this device a leaf, else a fabric port; any other neighbour (a server NIC) makes it an edge port;
3. every port of a spine is a fabric port;
4. a routed port of a leaf is an uplink when a BGP neighbour of the device sits on the port's subnet
   or on the port itself (BGP unnumbered, as Cumulus and SONiC fabrics run it: `neighbor swp51
   interface`), whoever it is: a BGP session on a point-to-point link is a switch-to-switch link; or
   when its description names a spine (a spine's hostname, or the word "spine");
5. everything else on a leaf (access and trunk switchports, routed ports with neither) is an edge port:
   that is where GPU NICs, storage and hosts attach.
Ports that are shut down are left out by the checks that use this.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Literal

from auditor.config.ifnames import fold
from auditor.enums import Tier
from auditor.facts import BgpNeighbor, Interface, LldpNeighbor
from checks.base import CheckContext
from checks.netutil import network
from checks.tier3._common import DeviceInterfaces, addresses, is_leaf, is_spine
from checks.tier3._manifest import Manifest

PortKind = Literal["edge", "uplink", "fabric", "other"]


@dataclass(frozen=True)
class PortClass:
    kind: PortKind
    why: str


class Topology:
    """Roles of every known device, BGP peers and LLDP neighbours, for classifying ports."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.roles = {t.name: t.role for t in ctx.targets if t.kind == "device"}
        self.spines = {name for name, role in self.roles.items() if is_spine(role)}
        self.lldp: dict[tuple[str, str], list[LldpNeighbor]] = {}
        for n in ctx.facts.of(LldpNeighbor):
            self.lldp.setdefault((n.target, n.record.interface), []).append(n.record)
        self.peers: dict[str, list[BgpNeighbor]] = {}
        for b in ctx.facts.of(BgpNeighbor):
            self.peers.setdefault(b.target, []).append(b.record)
        # Parsed and sorted once, not once per port: a fleet has thousands of ports per peer list.
        self._peer_addresses: dict[
            str, list[tuple[str, ipaddress.IPv4Address | ipaddress.IPv6Address | None]]
        ] = {}
        self._sorted_spines = sorted(self.spines)
        self._classes: dict[tuple[str, str | None], tuple[DeviceInterfaces, dict[str, PortClass]]] = {}

    @classmethod
    def of(cls, ctx: CheckContext) -> Topology:
        """The context's topology, shared by the port checks (classifying every port is their main cost)."""
        return ctx.derived("tier3.topology", lambda: cls(ctx))

    def _known(self, name: str) -> str | None:
        """The audited or intent-claimed switch this LLDP system name refers to, if any."""
        for candidate in (name, name.split(".", maxsplit=1)[0]):
            if candidate in self.roles or self.ctx.intent.tier_of_device(candidate) is not None:
                return candidate
        return None

    def role_of(self, name: str) -> str | None:
        if name in self.roles:
            return self.roles[name]
        for tier in self.ctx.intent.tiers.declared():
            intent = self.ctx.intent.tiers.get(tier)
            role = intent.role_of(name) if intent else None
            if role:
                return role
        return None

    def classify(self, device: str, role: str | None, ifs: DeviceInterfaces) -> dict[str, PortClass]:
        """The class of every port of `device`; computed once per device and interfaces (do not change
        the dict returned)."""
        cached = self._classes.get((device, role))
        if cached is not None and cached[0] is ifs:
            return cached[1]
        out = self._classify(device, role, ifs)
        self._classes[(device, role)] = (ifs, out)
        return out

    def _classify(self, device: str, role: str | None, ifs: DeviceInterfaces) -> dict[str, PortClass]:
        out: dict[str, PortClass] = {}
        for port in ifs.ports():
            if not port.record.port_channel:
                out[port.record.name] = self._own(device, role, port.record, ifs)
        for port in ifs.ports():
            pc = port.record.port_channel
            if pc:
                parent = out.get(pc) or self._own(device, role, port.record, ifs)
                out[port.record.name] = PortClass(parent.kind, f"member of {pc} ({parent.why})")
        return out

    def _own(self, device: str, role: str | None, intf: Interface, ifs: DeviceInterfaces) -> PortClass:
        declared = self._declared(device, intf, ifs)
        if declared is not None:
            return declared
        names = [intf.name, *ifs.members.get(intf.name, [])]
        neighbours = [n for name in names for n in self.lldp.get((device, name), [])]
        if neighbours:
            return self._by_lldp(role, neighbours)
        if is_spine(role):
            return PortClass("fabric", "port of a spine")
        if not intf.switchport:
            peer = self._bgp_peer(device, intf)
            if peer:
                where = "on its subnet" if addresses(intf) else "on the port (unnumbered)"
                return PortClass("uplink", f"BGP neighbour {peer} {where}")
        if not intf.switchport and addresses(intf):
            text = (intf.description or "").lower()
            named = next((s for s in self._sorted_spines if s.lower() in text), None)
            if named or "spine" in text:
                return PortClass("uplink", f"description {intf.description!r} names a spine")
        if is_leaf(role) or role is None:
            mode = "switchport" if intf.switchport else "routed port without a fabric peer"
            return PortClass("edge", f"{mode} of a leaf: host-facing")
        return PortClass("fabric", f"port of a {role}")

    def _declared(self, device: str, intf: Interface, ifs: DeviceInterfaces) -> PortClass | None:
        entry = Manifest.of(self.ctx).entry(device, intf.name, ifs)
        if entry is None:
            return None
        if entry.tier != Tier.BACKEND:
            return PortClass("other", f"port manifest: tier {entry.tier.value}")
        if entry.role is None:
            return None
        kind: PortKind = "edge" if entry.edge else "uplink" if entry.role == "uplink" else "fabric"
        return PortClass(kind, f"port manifest: role {entry.role}")

    def _by_lldp(self, role: str | None, neighbours: list[LldpNeighbor]) -> PortClass:
        for n in neighbours:
            known = self._known(n.neighbor)
            if known:
                their = self.role_of(known)
                kind: PortKind = "uplink" if is_spine(their) and not is_spine(role) else "fabric"
                return PortClass(kind, f"LLDP neighbour {n.neighbor} ({their or 'switch'})")
        return PortClass("edge", f"LLDP neighbour {neighbours[0].neighbor} is not a switch")

    def _bgp_peer(self, device: str, intf: Interface) -> str | None:
        nets = [n for n in (network(a) for a in addresses(intf)) if n is not None]
        for peer, addr in self._peers_of(device):
            if addr is None:
                if fold(peer) == fold(intf.name):  # BGP unnumbered on this interface (swp51, Ethernet1)
                    return peer
                continue
            if any(addr.version == n.version and addr in n for n in nets):
                return peer
        return None

    def _peers_of(
        self, device: str
    ) -> list[tuple[str, ipaddress.IPv4Address | ipaddress.IPv6Address | None]]:
        """The device's BGP peers with their addresses (None: not an address, e.g. an interface name)."""
        if device not in self._peer_addresses:
            out: list[tuple[str, ipaddress.IPv4Address | ipaddress.IPv6Address | None]] = []
            for peer in self.peers.get(device, []):
                try:
                    out.append((peer.peer, ipaddress.ip_address(peer.peer)))
                except ValueError:
                    out.append((peer.peer, None))
            self._peer_addresses[device] = out
        return self._peer_addresses[device]


def speed_of(port: Interface, ifs: DeviceInterfaces) -> int | None:
    """Mb/s of a port; a port-channel without its own speed is the sum of its members' speeds."""
    if port.speed_mbps is not None:
        return port.speed_mbps
    members = [ifs.by_name[m].record for m in ifs.members.get(port.name, []) if m in ifs.by_name]
    if port.type == "port-channel" and members and all(m.speed_mbps for m in members):
        return sum(m.speed_mbps or 0 for m in members if m.enabled)
    return None
