"""T1-MGMT-PLANE-IN-OOB-VRF: every switch's management services listen in the management VRF only.

An enabled MgmtService passes when its VRF is a management VRF (`intent.tiers.oob.vrfs`, and the
default VRF of an OOB-tier switch, see checks/tier1/_common.py). `vrf "*"` (every VRF, what NX-OS
does for SSH and SNMP by design) passes only when an ACL bound to the service admits its port from
OOB addresses alone (or from the sources of a declared OOB service that carries that port into OOB
space, e.g. the SNMP pollers), which is the only way to fence it on that platform; the finding says so.
A service in any other VRF is a FAIL whatever its ACL, since the platform can move it to the
management VRF. What the device reports running wins over what its config implies (checks/reconcile);
each service named in a finding says which of the two it rests on, and a config-inferred one says so.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import Acl, Device, FactRecord, MgmtService
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import inside, overlapping
from checks.tier1._acl import HTTP, HTTPS, SNMP, SSH, Admission, Service, admissions, outside
from checks.tier1._common import Oob, device_targets

NEEDS = frozenset({FactKind.MGMT_SERVICE, FactKind.ACL})
PORTS: dict[str, tuple[Service, ...]] = {
    "ssh": (SSH,),
    "telnet": (Service("Telnet", "tcp", 23),),
    "eapi": (HTTPS, HTTP),
    "nxapi": (HTTPS, HTTP),
    "http": (HTTP,),
    "https": (HTTPS,),
    "restconf": (HTTPS,),
    "snmp": (SNMP,),
    "gnmi": (Service("gNMI", "tcp", 6030), Service("gNMI", "tcp", 50051)),
    "netconf": (Service("NETCONF", "tcp", 830),),
}


class MgmtPlaneInOobVrf(Check):
    meta = CheckMeta(
        id="T1-MGMT-PLANE-IN-OOB-VRF",
        title="Switch management services listen only in the management VRF",
        tier=Tier.OOB,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "A switch that answers SSH, its API or SNMP on its data-plane VRFs can be reached, and "
            "brute-forced or exploited, from every server and tenant on the fabric. Management belongs in "
            "the management VRF, reached from the jump hosts."
        ),
        remediation=(
            "EOS: `management ssh` / `vrf MGMT` / `no shutdown` and `shutdown` at the top level (the same "
            "for `management api http-commands`), `no snmp-server vrf default`; NX-OS: `nxapi use-vrf "
            "management`, and since SSH listens in every VRF, `line vty` / `access-class <ACL> in` with an "
            "ACL admitting only OOB sources."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        oob = Oob.of(ctx)
        ready, gaps = self.split_assessable(ctx, device_targets(ctx), NEEDS)
        yield from gaps
        tiers = {t.name: t.tier for t in ready}
        acls: dict[tuple[str, str], list[StoredFact[Acl]]] = defaultdict(list)
        for a in ctx.facts.of(Acl):
            acls[(a.target, a.record.name)].append(a)
        by_device: dict[str, list[StoredFact[MgmtService]]] = defaultdict(list)
        for s in ctx.facts.of(MgmtService):
            if s.target in tiers and s.record.enabled:
                by_device[s.target].append(s)
        devices = {d.target: d for d in ctx.facts.of(Device)}
        vrfs = sorted(oob.vrfs)
        for name in sorted(tiers):
            expected = f"management services listen only in {vrfs or ['(no management VRF declared)']}"
            if tiers[name] == Tier.OOB:
                expected += " (or the default VRF of this OOB switch)"
            bad: list[Finding] = []
            notes: list[str] = []
            for s in by_device[name]:
                rec = s.record
                if oob.is_mgmt_vrf(rec.vrf, tiers[name], name):
                    notes.append(f"{rec.service} in {rec.vrf}{basis(rec)}")
                    continue
                if rec.vrf == "*":
                    fence = fenced(rec, acls.get((name, rec.acl or ""), []), oob)
                    if fence is None:
                        notes.append(
                            f"{rec.service} in every VRF, restricted by ACL {rec.acl} to OOB sources"
                            + basis(rec)
                        )
                        continue
                    found = f"{rec.service} listens in every VRF; {fence}"
                else:
                    found = f"{rec.service} listens in vrf {rec.vrf}"
                found += basis(rec)
                facts = [s, *acls.get((name, rec.acl or ""), [])]
                bad.append(self.failed(rec.subject(), expected, found, *facts, target=name))
            if bad:
                yield from bad
                continue
            evidence: list[StoredFact[FactRecord]] = [devices[name]] if name in devices else []
            evidence += by_device[name]
            found = "; ".join(notes) if notes else "no management service enabled"
            yield self.passed(name, expected, found, *evidence, target=name)


def basis(service: MgmtService) -> str:
    """What the reading rests on: the device's report of what runs, or an inference from its config
    (offline evidence, or a device that was not asked), which the finding then says it assumed."""
    if service.source == "operational":
        return " (operational state)"
    return " (inferred from running-config; operational state not collected)"


def fenced(service: MgmtService, acls: list[StoredFact[Acl]], oob: Oob) -> str | None:
    """None when an ACL keeps every non-OOB source off the service's ports, else why not."""
    if service.acl is None:
        return "no ACL restricts it"
    if not acls:
        return f"its ACL {service.acl} is not defined, so it filters nothing"
    strangers = [
        a
        for acl in acls
        for port in PORTS.get(service.service, ())
        for a in outside(admissions(acl.record, port), oob.nets)
        if not _declared(a, oob)
    ]
    if strangers:
        return f"ACL {service.acl} admits non-OOB sources: " + "; ".join(a.describe() for a in strangers)
    return None


def _declared(admission: Admission, oob: Oob) -> bool:
    """A declared OOB service carries the port from sources that contain this admission's source."""
    if admission.net is None:
        return False
    port = admission.service
    return any(
        s.carries(port.protocol, port.port)
        and inside(str(admission.net), s.sources) is not None
        and any(overlapping(str(d), oob.nets) for d in s.destinations)
        for s in oob.services.services
    )
