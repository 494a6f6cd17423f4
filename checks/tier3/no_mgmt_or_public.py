"""T3-NO-MGMT-OR-PUBLIC: no management service and no public address in backend VRFs.

A management service (SSH, eAPI/NX-API, SNMP, gNMI, ...) that is enabled in a backend VRF (see
checks/tier3/_common.py) answers GPU servers and tenants on the fabric. `vrf "*"` (every VRF) on a
device that has a backend VRF counts as listening there, unless an ACL on the service admits OOB
sources only (the way T1-MGMT-PLANE-IN-OOB-VRF reads it). An interface address in a backend VRF that is
public (as the intent's `addressing` defines it: checks/address_space.py) is a FAIL too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, TargetStatus, Tier
from auditor.facts import Acl, FactRecord, Interface, MgmtService, Vrf
from auditor.store.reader import StoredFact
from checks.address_space import address_space
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.text import listing
from checks.tier1._common import Oob
from checks.tier1.mgmt_plane_in_oob_vrf import fenced
from checks.tier3._common import Backend, addresses, backend_devices, device_targets

NEEDS = frozenset({FactKind.MGMT_SERVICE, FactKind.INTERFACE, FactKind.VRF, FactKind.ACL})


class BackendNoMgmtOrPublic(Check):
    meta = CheckMeta(
        id="T3-NO-MGMT-OR-PUBLIC",
        title="No management service and no public address in backend VRFs",
        tier=Tier.BACKEND,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "Switch management reachable from the RDMA fabric lets any GPU server or tenant try the "
            "switches' credentials and exploits; a public address in a backend VRF is a door to the "
            "internet. The fabric carries GPU traffic and nothing else."
        ),
        remediation=(
            "Disable management services in backend VRFs (EOS: `vrf RDMA-A` / `shutdown` under `management "
            "ssh` and `management api`, `no snmp-server vrf default`) and remove public addresses from "
            "backend interfaces."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        backend = Backend.of(ctx)
        space = address_space(ctx)
        oob = Oob.of(ctx) if ctx.intent.tiers.oob is not None else None
        ready, gaps = self.split_assessable(ctx, backend_devices(ctx), NEEDS)
        yield from gaps
        tiers = {t.name: t.tier for t in ready}
        for t in device_targets(ctx):
            if t.tier != Tier.BACKEND and t.status != TargetStatus.FAILED:
                tiers[t.name] = t.tier
        has_backend: dict[str, list[StoredFact[Vrf]]] = defaultdict(list)
        for v in ctx.facts.of(Vrf):
            if v.target in tiers and backend.is_backend_vrf(v.target, v.record.name, tiers[v.target]):
                has_backend[v.target].append(v)
        acls: dict[tuple[str, str], list[StoredFact[Acl]]] = defaultdict(list)
        for a in ctx.facts.of(Acl):
            acls[(a.target, a.record.name)].append(a)
        bad: dict[str, list[tuple[str, str, list[StoredFact[FactRecord]]]]] = defaultdict(list)
        for s in ctx.facts.of(MgmtService):
            rec = s.record
            if s.target not in has_backend or not rec.enabled:
                continue
            own_acls = acls.get((s.target, rec.acl or ""), [])
            if rec.vrf == "*":
                why = fenced(rec, own_acls, oob) if oob else "no OOB network declared to fence it to"
                if why is not None:
                    text = f"{rec.service} listens in every VRF, backend VRFs included; {why}"
                    bad[s.target].append((rec.subject(), text, [s, *own_acls]))
            elif backend.is_backend_vrf(s.target, rec.vrf, tiers[s.target]):
                bad[s.target].append((rec.subject(), f"{rec.service} listens in backend vrf {rec.vrf}", [s]))
        for i in ctx.facts.of(Interface):
            rec_i = i.record
            if i.target in has_backend and backend.is_backend_vrf(i.target, rec_i.vrf, tiers[i.target]):
                for addr in addresses(rec_i):
                    if space.is_public(addr, host=True):
                        text = f"{rec_i.name} has public address {addr} in backend vrf {rec_i.vrf}"
                        bad[i.target].append((rec_i.subject(), text, [i]))
        expected = "no management service listening and no public address in the backend VRFs"
        for name in sorted(has_backend):
            if bad[name]:
                for subject, found, facts in bad[name]:
                    yield self.failed(subject, expected, found, *facts, target=name)
            else:
                vrfs = has_backend[name]
                found = f"none in backend VRF(s) {listing(sorted(v.record.name for v in vrfs))}"
                yield self.passed(name, expected, found, *vrfs, target=name)
