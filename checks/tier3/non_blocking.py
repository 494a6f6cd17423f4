"""T3-NON-BLOCKING: every backend leaf has at least as much uplink as downlink capacity.

Uplinks and downlinks are told apart by checks/tier3/_ports.py: uplinks face spines (LLDP neighbour
with a spine role, a BGP neighbour on a routed port's subnet, or a description naming a spine);
downlinks are the edge (GPU/host-facing) ports. Capacity is the sum of `Interface.speed_mbps` over
enabled ports (a port-channel counts once, as its own speed or the sum of its members'). The leaf
passes when downlink / uplink <= `intent.tiers.backend.max_oversubscription` (1.0: non-blocking).
A leaf with a port of unknown speed among them is NOT_ASSESSED: its capacity cannot be summed.
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import Interface
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.text import listing
from checks.tier3._common import Backend, DeviceInterfaces, backend_devices, interfaces_by_device, is_leaf
from checks.tier3._ports import PortClass, Topology, speed_of

NEEDS = frozenset({FactKind.INTERFACE, FactKind.BGP_NEIGHBOR})


class BackendNonBlocking(Check):
    meta = CheckMeta(
        id="T3-NON-BLOCKING",
        title="Backend leaves are non-blocking: uplink capacity >= downlink capacity",
        tier=Tier.BACKEND,
        severity=Severity.MEDIUM,
        needs=NEEDS,
        rationale=(
            "Collective operations (all-reduce) run every GPU at line rate at once; an oversubscribed leaf "
            "congests, pauses and slows the whole job to its slowest link."
        ),
        remediation=(
            "Add or re-speed uplinks, or move GPU ports to other leaves, until uplink capacity matches "
            "downlink capacity (or the declared max_oversubscription)."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = Backend.of(ctx)
        ratio = backend.intent.max_oversubscription
        leaves = [t for t in backend_devices(ctx) if is_leaf(t.role)]
        ready, gaps = self.split_assessable(ctx, leaves, NEEDS)
        yield from gaps
        by_device = interfaces_by_device(ctx, {t.name for t in ready})
        topology = Topology.of(ctx)
        expected = f"downlink / uplink capacity <= {ratio:g}"
        for leaf in sorted(ready, key=lambda t: t.name):
            ifs = by_device[leaf.name]
            classes = topology.classify(leaf.name, leaf.role, ifs)
            yield self._judge(leaf.name, ifs, classes, ratio, expected)

    def _judge(
        self,
        name: str,
        ifs: DeviceInterfaces,
        classes: dict[str, PortClass],
        ratio: float,
        expected: str,
    ) -> Finding:
        up: list[tuple[StoredFact[Interface], int | None]] = []
        down: list[tuple[StoredFact[Interface], int | None]] = []
        for port in ifs.ports():
            rec, cls = port.record, classes.get(port.record.name)
            if not rec.enabled or rec.port_channel or cls is None:
                continue
            side = up if cls.kind == "uplink" else down if cls.kind == "edge" else None
            if side is not None:
                side.append((port, speed_of(rec, ifs)))
        unknown = [p.record.name for p, s in up + down if s is None]
        if unknown:
            return self.not_assessed(
                name,
                f"{name}: speed unknown for {listing(sorted(unknown))}; capacity cannot be summed",
                target=name,
                expected=expected,
            )
        up_mbps = sum(s or 0 for _, s in up)
        down_mbps = sum(s or 0 for _, s in down)
        found = (
            f"uplinks {_gbps(up_mbps)} ({listing(sorted(p.record.name for p, _ in up), empty='none')}), "
            f"downlinks {_gbps(down_mbps)} ({listing(sorted(p.record.name for p, _ in down), empty='none')})"
        )
        facts = [p for p, _ in up + down]
        if down_mbps == 0 or (up_mbps > 0 and down_mbps / up_mbps <= ratio + 1e-9):
            return self.passed(name, expected, found, *facts, target=name)
        found += f": ratio {down_mbps / up_mbps:.2f}" if up_mbps else ": no uplink"
        return self.failed(name, expected, found, *facts, target=name)


def _gbps(mbps: int) -> str:
    return f"{mbps / 1000:g}G"
