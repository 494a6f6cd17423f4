"""T3-PFC-LOSSLESS-ONLY, T3-ECN-ON-LOSSLESS, T3-DSCP-TRUST: the RoCEv2 lossless class, port by port.

Which ports: the enabled physical ports of backend devices, told apart as edge (GPU/host-facing),
uplink or fabric by checks/tier3/_ports.py (role, port type, BGP peering, description, LLDP when
collected). PFC and ECN are judged on all of them (lossless is hop by hop: one port without PFC drops
RDMA); DSCP trust only on edge ports, where traffic enters the fabric already marked by the NICs.

Settings come from QosInterface facts, with QoS profiles already resolved by the normalizers; a member
without its own QoS facts takes its port-channel's. ECN marking is read on the egress queue whose
number equals the lossless priority: the platforms' default traffic-class-to-queue mapping (EOS
tc N -> tx-queue N; NX-OS qos-group N), which the facts do not carry.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import FactRecord, Interface, QosInterface
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.tier3._common import Backend, backend_devices, interfaces_by_device
from checks.tier3._ports import PortKind, Topology

NEEDS = frozenset({FactKind.INTERFACE, FactKind.QOS_INTERFACE})


class _LosslessPortCheck(Check):
    """One verdict per judged port that fails, one PASS per device whose judged ports all hold."""

    kinds: tuple[PortKind, ...] = ("edge", "uplink", "fabric")

    @abstractmethod
    def expected(self, priority: int) -> str: ...

    @abstractmethod
    def problem(self, qos: QosInterface | None, priority: int) -> str | None:
        """What is wrong with this port's settings, or None when they hold."""

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = Backend.of(ctx)
        priority = backend.intent.lossless_priority
        ready, gaps = self.split_assessable(ctx, backend_devices(ctx), NEEDS)
        yield from gaps
        names = {t.name for t in ready}
        roles = {t.name: t.role for t in ready}
        by_device = interfaces_by_device(ctx, names)
        qos: dict[tuple[str, str], StoredFact[QosInterface]] = {
            (q.target, q.record.interface): q for q in ctx.facts.of(QosInterface) if q.target in names
        }
        topology = Topology.of(ctx)
        expected = self.expected(priority)
        for name in sorted(names):
            ifs = by_device[name]
            classes = topology.classify(name, roles[name], ifs)
            judged: list[StoredFact[FactRecord]] = []
            bad: list[Finding] = []
            for port in sorted(ifs.ports(), key=lambda p: p.record.name):
                rec = port.record
                cls = classes.get(rec.name)
                if rec.type != "ethernet" or not rec.enabled or cls is None or cls.kind not in self.kinds:
                    continue
                q = qos.get((name, rec.name)) or (
                    qos.get((name, rec.port_channel)) if rec.port_channel else None
                )
                judged += [port, *([q] if q else [])]
                why = self.problem(q.record if q else None, priority)
                if why:
                    found = f"{why} ({cls.kind} port: {cls.why})"
                    bad.append(
                        self.failed(rec.subject(), expected, found, port, *([q] if q else []), target=name)
                    )
            yield from bad
            if not bad and judged:
                count = sum(1 for f in judged if isinstance(f.record, Interface))
                found = f"all {count} {'/'.join(self.kinds)} port(s) hold"
                yield self.passed(name, expected, found, *judged, target=name)


class PfcLosslessOnly(_LosslessPortCheck):
    meta = CheckMeta(
        id="T3-PFC-LOSSLESS-ONLY",
        title="PFC on exactly the lossless priority on backend ports",
        tier=Tier.BACKEND,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "PFC pauses a whole priority; on more than the RDMA priority it spreads head-of-line blocking "
            "and pause storms to other traffic, and without it on every hop RoCEv2 drops and retransmits."
        ),
        remediation=(
            "Enable PFC (`priority-flow-control on`) with `priority-flow-control priority N no-drop` for the "
            "lossless priority only, on every GPU-facing and fabric port (a QoS profile keeps it uniform)."
        ),
    )

    def expected(self, priority: int) -> str:
        return f"PFC on, no-drop on priority {priority} only"

    def problem(self, qos: QosInterface | None, priority: int) -> str | None:
        if qos is None or (qos.pfc_enabled is None and not qos.pfc_no_drop_priorities):
            return "no PFC configuration"
        if qos.pfc_enabled is not True:
            return f"PFC off (no-drop priorities {qos.pfc_no_drop_priorities or 'none'})"
        if qos.pfc_no_drop_priorities != [priority]:
            return f"PFC no-drop on priorities {qos.pfc_no_drop_priorities or 'none'}"
        return None


class EcnOnLossless(_LosslessPortCheck):
    meta = CheckMeta(
        id="T3-ECN-ON-LOSSLESS",
        title="ECN marking on the lossless queue of backend ports",
        tier=Tier.BACKEND,
        severity=Severity.MEDIUM,
        needs=NEEDS,
        rationale=(
            "DCQCN, RoCEv2's congestion control, reacts to ECN marks; without marking on the lossless queue "
            "congestion is only met by PFC pauses, which spread across the fabric."
        ),
        remediation=(
            "Configure WRED/ECN marking on the lossless queue (EOS: `tx-queue N` / `random-detect ecn "
            "minimum-threshold ... maximum-threshold ...`) on every backend port."
        ),
    )

    def expected(self, priority: int) -> str:
        return f"ECN marking on queue {priority}"

    def problem(self, qos: QosInterface | None, priority: int) -> str | None:
        if qos is None or priority not in qos.ecn_queues:
            queues = qos.ecn_queues if qos else []
            return f"ECN marking on queue(s) {queues}" if queues else "no ECN marking"
        return None


class DscpTrustAtEdge(_LosslessPortCheck):
    meta = CheckMeta(
        id="T3-DSCP-TRUST",
        title="DSCP trusted on GPU-facing ports",
        tier=Tier.BACKEND,
        severity=Severity.MEDIUM,
        needs=NEEDS,
        rationale=(
            "GPU NICs mark RoCEv2 traffic with DSCP; an edge port that does not trust DSCP puts it in the "
            "default, lossy class, where PFC and ECN do not apply."
        ),
        remediation="Set `qos trust dscp` on every GPU-facing port (or in its QoS profile).",
    )

    kinds = ("edge",)

    def expected(self, priority: int) -> str:
        return "qos trust dscp"

    def problem(self, qos: QosInterface | None, priority: int) -> str | None:
        if qos is None or qos.trust is None:
            return "no trust configured"
        return None if qos.trust == "dscp" else f"trust {qos.trust}"
