"""T3-MTU-JUMBO: jumbo frames end to end on the backend fabric.

On every backend device: each enabled Ethernet port and port-channel, and each SVI of a backend VRF,
has an MTU of at least `intent.tiers.backend.min_mtu`. A port-channel member without its own MTU takes
its port-channel's; an interface with no MTU configured runs the platform default (1500 on EOS,
NX-OS, IOS and Onyx, and fails; 9216 on Cumulus Linux, 9100 on SONiC). When LLDP neighbours were
collected, both ends of each link between audited devices must have the same MTU (interface names
compared with abbreviations folded: Ethernet1/1 = Et1/1). Platforms count the MTU differently (with or
without the Ethernet header, the FCS and a VLAN tag: EOS `mtu 9214` and NX-OS `mtu 9216` carry the
same packets), so two ends on different platforms agree when they differ by at most 22 bytes; on one
platform they must be equal.
A port the port manifest gives to another tier is not part of the backend fabric and is not judged.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import Interface, LldpNeighbor
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.tier3._common import PORT_TYPES, Backend, DeviceInterfaces, backend_devices, interfaces_by_device
from checks.tier3._manifest import Manifest
from checks.vrf_names import VrfNames

NEEDS = frozenset({FactKind.INTERFACE})
DEFAULT_MTU = 1500
# What an interface without an `mtu` line runs: Cumulus Linux 5 ports default to 9216 and SONiC's to 9100
# (its CONFIG_DB usually spells it out anyway); EOS, NX-OS, IOS and Onyx to 1500.
PLATFORM_DEFAULT_MTU = {"cumulus": 9216, "sonic": 9100}
HEADER_SLACK = 22  # Ethernet header (14) + FCS (4) + one 802.1Q tag (4)


def canonical(name: str) -> str:
    """Ethernet1/1, Et1/1 and eth1/1 -> "et1/1"; Port-Channel10 and Po10 -> "po10"."""
    return re.sub(r"^([a-z]{2})[a-z-]*\s*", r"\1", name.strip().lower())


def effective_mtu(intf: Interface, ifs: DeviceInterfaces) -> int | None:
    if intf.mtu is None and intf.port_channel and intf.port_channel in ifs.by_name:
        return ifs.by_name[intf.port_channel].record.mtu
    return intf.mtu


class BackendMtuJumbo(Check):
    meta = CheckMeta(
        id="T3-MTU-JUMBO",
        title="Backend interfaces carry jumbo frames, equal at both ends",
        tier=Tier.BACKEND,
        severity=Severity.MEDIUM,
        needs=NEEDS,
        rationale=(
            "RoCEv2 and storage traffic are sized for jumbo frames; one 1500-byte hop fragments nothing but "
            "drops everything larger, and an MTU mismatch between two ends silently black-holes large "
            "packets and stalls collective operations."
        ),
        remediation=(
            "Set the same MTU (e.g. `mtu 9214`) on both ends of every backend link, SVI and port-channel."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = Backend.of(ctx)
        minimum = backend.intent.min_mtu
        ready, gaps = self.split_assessable(ctx, backend_devices(ctx), NEEDS)
        yield from gaps
        names = {t.name for t in ready}
        by_device = interfaces_by_device(ctx, names)
        manifest = Manifest.of(ctx)
        platforms = VrfNames.of(ctx).platforms
        expected = f"mtu >= {minimum}"
        for name in sorted(names):
            ifs = by_device[name]
            judged: list[StoredFact[Interface]] = []
            bad: list[Finding] = []
            for i in sorted(ifs.by_name.values(), key=lambda f: f.record.name):
                rec = i.record
                backend_svi = rec.type == "vlan" and backend.is_backend_vrf(name, rec.vrf, Tier.BACKEND)
                if not rec.enabled or not (rec.type in PORT_TYPES or backend_svi):
                    continue
                entry = manifest.entry(name, rec.name, ifs)
                if entry is not None and entry.tier != Tier.BACKEND:
                    continue  # declared to another tier: not part of the RDMA fabric
                judged.append(i)
                mtu = effective_mtu(rec, ifs)
                default = PLATFORM_DEFAULT_MTU.get(platforms.get(name) or "", DEFAULT_MTU)
                if (mtu if mtu is not None else default) < minimum:
                    found = (
                        f"mtu {mtu}" if mtu is not None else f"no mtu configured (platform default {default})"
                    )
                    bad.append(self.failed(rec.subject(), expected, found, i, target=name))
            yield from bad
            if not bad and judged:
                found = f"all {len(judged)} port(s), port-channel(s) and backend SVI(s) at >= {minimum}"
                yield self.passed(name, expected, found, *judged, target=name)
        yield from self._links(ctx, by_device)

    def _links(self, ctx: CheckContext, by_device: dict[str, DeviceInterfaces]) -> Iterable[Finding]:
        index: dict[str, dict[str, StoredFact[Interface]]] = defaultdict(dict)
        for device, ifs in by_device.items():
            for name, i in ifs.by_name.items():
                index[device][canonical(name)] = i
        seen: set[frozenset[tuple[str, str]]] = set()
        platforms = VrfNames.of(ctx).platforms
        for n in ctx.facts.of(LldpNeighbor):
            rec = n.record
            peer = rec.neighbor if rec.neighbor in index else rec.neighbor.split(".")[0]
            if n.target not in by_device or peer not in index or not rec.neighbor_interface:
                continue
            ours = index[n.target].get(canonical(rec.interface))
            theirs = index[peer].get(canonical(rec.neighbor_interface))
            if ours is None or theirs is None:
                continue
            link = frozenset({(n.target, ours.record.name), (peer, theirs.record.name)})
            if link in seen:
                continue
            seen.add(link)
            ours_on, theirs_on = platforms.get(n.target), platforms.get(peer)
            a = effective_mtu(ours.record, by_device[n.target]) or PLATFORM_DEFAULT_MTU.get(ours_on or "")
            b = effective_mtu(theirs.record, by_device[peer]) or PLATFORM_DEFAULT_MTU.get(theirs_on or "")
            slack = 0 if ours_on and ours_on == theirs_on else HEADER_SLACK
            expected = "the same MTU at both ends of the link" + (
                f" (within {slack} bytes: the platforms count headers differently)" if slack else ""
            )
            found = f"{ours.record.subject()} mtu {a}, {theirs.record.subject()} mtu {b}"
            if _differ(a, b, slack):
                yield self.failed(rec.subject(), expected, found, n, ours, theirs, target=n.target)
            else:
                yield self.passed(rec.subject(), expected, found, n, ours, theirs, target=n.target)


def _differ(a: int | None, b: int | None, slack: int) -> bool:
    """Two ends disagree; an unset MTU is the platform default on both (and fails the port check)."""
    if a is None or b is None:
        return a != b
    return abs(a - b) > slack
