"""T1-OOB-SWITCH-DEDICATED: OOB switches carry nothing but the OOB network.

On every device of tier oob:
- no VLAN of the frontend or backend ranges (`intent.tiers.*.vlans`), neither defined nor on a port;
- no VRF named as a frontend or backend VRF (the default VRF excepted: it is the OOB switch's own);
- no interface address in frontend or backend CIDRs;
- when LLDP neighbours were collected, every neighbour is an OOB device (its name matches
  `intent.tiers.oob.devices` / `device_roles`), a BMC-like endpoint, or a switch's management port.

BMC naming heuristic (documented, deliberately narrow): the neighbour's system name or port
matches `BMC_PATTERN` (bmc, ipmi, idrac, ilo, xcc, imm, redfish, pdu, console, oob as a word). A
management port is a platform's out-of-band port (checks/tier1/_mgmt_ports.py: Management0/1, Ma1,
mgmt0, eth0 on SONiC and Cumulus switches, GigabitEthernet0/0 in a management VRF on IOS). BMCs that send
no LLDP simply do not appear; a data-plane NIC or switch port that does is reported.

The OOB switch's own management port is not a data-plane port either: its LLDP neighbours (the OOB core
it uplinks to), VLANs and address are left out.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import Device, FactRecord, Interface, LldpNeighbor, Vlan, Vrf
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import Network, overlapping
from checks.text import listing
from checks.tier1._common import Oob, addresses
from checks.tier1._mgmt_ports import MgmtPorts
from checks.vrf_names import VrfNames

NEEDS = frozenset({FactKind.INTERFACE, FactKind.VLAN, FactKind.VRF})
BMC_PATTERN = re.compile(r"(?i)(?:^|[^a-z])(bmc|ipmi|idrac|ilo|xcc|imm|redfish|pdu|console|oob)(?:[^a-z]|$)")


class OobSwitchDedicated(Check):
    meta = CheckMeta(
        id="T1-OOB-SWITCH-DEDICATED",
        title="OOB switches carry no frontend or backend VLANs, VRFs or neighbours",
        tier=Tier.OOB,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "An OOB switch that also carries a production VLAN, VRF or host port bridges the management "
            "network to the data networks: one misconfigured port or a VLAN hop and workloads reach the "
            "BMCs. The OOB network must be physically and logically separate."
        ),
        remediation=(
            "Remove frontend and backend VLANs, VRFs and addresses from the OOB switch, move data-plane "
            "cabling to the production leaves, and keep only BMC, PDU, console and switch-management ports "
            "on it."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        oob = Oob.of(ctx)
        switches, gaps = self.split_assessable(ctx, ctx.targets_in_tier(Tier.OOB, "device"), NEEDS)
        yield from gaps
        names = {t.name for t in switches}
        foreign = _Foreign.of(ctx)
        mgmt = MgmtPorts(ctx)
        offenders: dict[str, list[tuple[str, str, list[StoredFact[FactRecord]]]]] = defaultdict(list)
        ports: dict[tuple[str, int], list[StoredFact[Interface]]] = defaultdict(list)
        for i in ctx.facts.of(Interface):
            if i.target not in names or mgmt.local(i.target, i):
                continue
            for vid in _vlans_of(i.record):
                if foreign.vlan(vid):
                    ports[(i.target, vid)].append(i)
            for addr in addresses(i.record):
                hit = overlapping(addr, foreign.cidrs)
                if hit:
                    offenders[i.target].append(
                        (i.record.subject(), f"{i.record.name} has {addr} (in {hit})", [i])
                    )
        defined: set[tuple[str, int]] = set()
        for v in ctx.facts.of(Vlan):
            if v.target in names and foreign.vlan(v.record.vlan_id):
                defined.add((v.target, v.record.vlan_id))
                on = ports[(v.target, v.record.vlan_id)]
                where = f" on {listing(p.record.name for p in on)}" if on else ""
                offenders[v.target].append((v.record.subject(), f"vlan {v.record.vlan_id}{where}", [v, *on]))
        undefined: dict[tuple[str, str], list[int]] = defaultdict(list)
        intfs: dict[tuple[str, str], StoredFact[Interface]] = {}
        for (target, vid), on in ports.items():
            if (target, vid) not in defined:
                for p in on:
                    undefined[(target, p.record.name)].append(vid)
                    intfs[(target, p.record.name)] = p
        for key, vids in sorted(undefined.items()):
            target, p = key[0], intfs[key]
            text = f"{p.record.name} carries vlan {_ranges(sorted(vids))}"
            offenders[target].append((p.record.subject(), text, [p]))
        for vrf in ctx.facts.of(Vrf):
            if (
                vrf.target in names
                and VrfNames.of(ctx).canonical(vrf.target, vrf.record.name) in foreign.vrfs
            ):
                offenders[vrf.target].append((vrf.record.subject(), f"vrf {vrf.record.name}", [vrf]))
        lldp_seen: dict[str, int] = defaultdict(int)
        for n in ctx.facts.of(LldpNeighbor):
            if n.target not in names or mgmt.local(n.target, n.record.interface):
                continue
            lldp_seen[n.target] += 1
            why = _stranger(n.record, oob, mgmt)
            if why:
                offenders[n.target].append((n.record.subject(), why, [n]))
        devices = {d.target: d for d in ctx.facts.of(Device)}
        expected = foreign.expected()
        for name in sorted(names):
            if offenders[name]:
                for subject, found, facts in offenders[name]:
                    yield self.failed(subject, expected, found, *facts, target=name)
                continue
            found = "only OOB VLANs, VRFs and addresses"
            if ctx.facts.covered(name, FactKind.LLDP_NEIGHBOR):
                found += f"; {lldp_seen[name]} LLDP neighbour(s), all OOB devices, BMCs or management ports"
            else:
                found += "; LLDP neighbours not collected"
            yield self.passed(
                name, expected, found, *([devices[name]] if name in devices else []), target=name
            )


class _Foreign:
    """The frontend and backend VLANs, VRFs and CIDRs an OOB switch must not carry."""

    def __init__(self, vlans: list[tuple[int, int]], vrfs: set[str], cidrs: list[Network]) -> None:
        self.vlans, self.vrfs, self.cidrs = vlans, vrfs, cidrs

    @classmethod
    def of(cls, ctx: CheckContext) -> _Foreign:
        vlans: list[tuple[int, int]] = []
        vrfs: set[str] = set()
        cidrs: list[Network] = []
        oob = ctx.intent.tiers.oob
        for tier in (ctx.intent.tiers.frontend, ctx.intent.tiers.backend):
            if tier is not None:
                vlans += tier.vlans
                vrfs |= set(tier.vrfs)
                cidrs += tier.networks()
        vrfs -= {"default"} | set(oob.vrfs if oob else [])
        return cls(vlans, vrfs, cidrs)

    def vlan(self, vid: int) -> bool:
        return any(lo <= vid <= hi for lo, hi in self.vlans)

    def expected(self) -> str:
        ranges = ", ".join(f"{lo}-{hi}" if lo != hi else str(lo) for lo, hi in self.vlans) or "none declared"
        return (
            f"no frontend/backend VLAN ({ranges}), VRF ({', '.join(sorted(self.vrfs)) or 'none declared'}) "
            "or address; LLDP neighbours only OOB devices, BMCs or management ports"
        )


def _ranges(vids: list[int]) -> str:
    """[2010, 2011, 2013] -> "2010-2011,2013"."""
    out: list[str] = []
    for vid in vids:
        if out and int(out[-1].split("-")[-1]) == vid - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{vid}"
        else:
            out.append(str(vid))
    return ",".join(out)


def _vlans_of(intf: Interface) -> list[int]:
    """VLAN ids a port carries explicitly (a trunk allowing all VLANs carries the switch's own VLANs)."""
    out = [v for v in (intf.access_vlan, intf.native_vlan) if v is not None and intf.switchport]
    for lo, hi in intf.trunk_allowed_vlans or []:
        out.extend(range(lo, hi + 1))
    if intf.type == "vlan":
        digits = re.sub(r"\D", "", intf.name)
        if digits:
            out.append(int(digits))
    return out


def _stranger(n: LldpNeighbor, oob: Oob, mgmt: MgmtPorts) -> str | None:
    """Why this neighbour does not belong on an OOB switch, or None when it does."""
    if oob.intent.claims(n.neighbor):
        return None
    if BMC_PATTERN.search(n.neighbor) or (n.neighbor_interface and BMC_PATTERN.search(n.neighbor_interface)):
        return None
    if mgmt.remote(n.neighbor, n.neighbor_interface):
        return None
    port = f" port {n.neighbor_interface}" if n.neighbor_interface else ""
    return f"{n.interface} connects to {n.neighbor}{port}: not an OOB device, BMC or management port"
