"""T1-OOB-ACCESS-JUMP-HOSTS-ONLY: what stands in front of the OOB network admits SSH, IPMI and
Redfish/HTTPS from the declared jump hosts only.

"In front of the OOB network" means:
- an OOB segment: a routed interface (SVI, routed port or port-channel, not a management port) whose
  address lies in the OOB CIDRs, i.e. the gateway of a BMC or switch-management subnet. Its outbound
  ACL (`ip access-group NAME out`) filters what enters the subnet. Without one, the inbound ACLs of the
  ways in from outside OOB space (the routed interfaces of the same device and VRF with a non-OOB
  address: the uplinks) must do it, each of them; a segment with neither is a FAIL, since nothing
  restricts access. Inbound ACLs on that interface filter what leaves the subnet and are
  not counted. A segment that holds a jump host is the jump hosts' own network and is left out. A
  point-to-point subnet (/30, /31) whose other end is a declared OOB gateway (`intent.tiers.oob.gateways`,
  the OOB firewall) without an outbound ACL passes: nothing sits behind it but the gateway, which is the
  filter; the switch's own address there is judged with its management services (below).
- an ACL bound to a device's management services (SSH, eAPI/NX-API/HTTPS): the switch's own
  management address is OOB space.
- on AWS, the security groups of network interfaces with an address in the OOB CIDRs (assessed when
  the ENIs were collected; NOT_ASSESSED when the OOB tier declares AWS tags, or a subnet in OOB space
  exists, but the ENIs were not collected). Referenced security groups are resolved to the addresses of
  the ENIs that carry them.
ACLs are read first-match, conservatively (see checks/tier1/_acl.py).

A declared OOB service (`intent.tiers.oob.services`, checks/oob_services.py) that carries SSH, IPMI or
HTTPS from its sources to its destinations authorises exactly that: an ACL entry or security group rule
admitting the port from inside the service's sources, to addresses inside its destinations, is not a
violation (e.g. a provisioning server's Redfish calls). Services on other ports (SNMP, NTP, syslog, AAA,
DHCP/PXE) do not concern this check: only SSH, IPMI and Redfish/HTTPS are held to the jump hosts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import (
    Acl,
    AclBinding,
    AwsNetworkInterface,
    AwsSecurityGroup,
    AwsSubnet,
    FactRecord,
    Interface,
)
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.netutil import Network, inside, network
from checks.text import clauses, listing
from checks.tier1._acl import HTTPS, PROTECTED, SSH, Admission, Service, address, admissions, outside
from checks.tier1._common import Oob, addresses, device_targets
from checks.tier1._oob_sg import guards_oob, sg_unresolved, sg_violations

DEVICE_NEEDS = frozenset({FactKind.INTERFACE, FactKind.ACL, FactKind.ACL_BINDING})
AWS_NEEDS = frozenset({FactKind.AWS_SECURITY_GROUP, FactKind.AWS_NETWORK_INTERFACE})
SEGMENT_TYPES = {"vlan", "ethernet", "port-channel"}
SERVICE_PORTS: dict[str, tuple[Service, ...]] = {
    "ssh": (SSH,),
    "eapi": (HTTPS,),
    "nxapi": (HTTPS,),
    "https": (HTTPS,),
    "restconf": (HTTPS,),
}


class OobAccessJumpHostsOnly(Check):
    meta = CheckMeta(
        id="T1-OOB-ACCESS-JUMP-HOSTS-ONLY",
        title="OOB management access (SSH, IPMI, Redfish) only from jump hosts",
        tier=Tier.OOB,
        severity=Severity.CRITICAL,
        needs=DEVICE_NEEDS | AWS_NEEDS,
        rationale=(
            "IPMI and Redfish give full control of a GPU server below its operating system, and IPMI 2.0 "
            "leaks password hashes to anyone who asks (RAKP). Only the declared jump hosts may reach them "
            "(SSH 22/tcp, IPMI 623/udp, Redfish 443/tcp), and every OOB segment needs a filter saying so."
        ),
        remediation=(
            "Bind an outbound ACL to each OOB gateway interface (`ip access-group BMC-IN out`) that permits "
            "22/tcp, 623/udp and 443/tcp from the jump hosts only and denies the rest; restrict management "
            "services with an ACL of the same sources; in AWS, allow those ports in the OOB security groups "
            "only from the jump hosts' addresses or security group."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        oob = Oob.of(ctx)
        if not oob.nets:
            yield self.not_assessed(
                "OOB CIDRs", "the intent names no OOB CIDR; declare intent.tiers.oob.cidrs"
            )
            return
        devices, gaps = self.split_assessable(ctx, device_targets(ctx), DEVICE_NEEDS)
        yield from gaps
        names = {t.name for t in devices}
        acls: dict[tuple[str, str], list[StoredFact[Acl]]] = defaultdict(list)
        for a in ctx.facts.of(Acl):
            acls[(a.target, a.record.name)].append(a)
        bindings = [b for b in ctx.facts.of(AclBinding) if b.target in names]
        yield from self._segments(ctx, oob, names, bindings, acls)
        yield from self._services(ctx, oob, bindings, acls)
        yield from self._clouds(ctx, oob)

    def _segments(
        self,
        ctx: CheckContext,
        oob: Oob,
        names: set[str],
        bindings: list[StoredFact[AclBinding]],
        acls: dict[tuple[str, str], list[StoredFact[Acl]]],
    ) -> Iterable[Finding]:
        on_interface: dict[tuple[str, str], list[StoredFact[AclBinding]]] = defaultdict(list)
        for b in bindings:
            if b.record.attach_point == "interface":
                on_interface[(b.target, b.record.name)].append(b)
        for i in ctx.facts.of(Interface):
            intf = i.record
            if i.target not in names or intf.type not in SEGMENT_TYPES or intf.switchport or not intf.enabled:
                continue
            nets = [n for n in (network(a) for a in addresses(intf)) if n is not None and oob.in_oob(str(n))]
            if not nets or any(inside(str(j), nets) for j in oob.jump_nets):
                continue
            expected = (
                f"an outbound ACL admitting {', '.join(map(str, PROTECTED))} into "
                f"{', '.join(map(str, nets))} only from jump hosts ({oob.jump_text()})"
            )
            outbound = [b for b in on_interface[(i.target, intf.name)] if b.record.direction == "out"]
            gateway = _gateway_link(oob, nets)
            if not outbound and gateway:
                found = (
                    f"a point-to-point link to the declared OOB gateway {gateway}: no host sits behind it "
                    "but the gateway, which filters what enters; the switch's own address is judged with "
                    "its management services"
                )
                yield self.passed(intf.subject(), expected, found, i, target=i.target)
                continue
            if not outbound:
                uplinks = _ways_in(ctx, oob, i, names)
                if uplinks:  # filtering where traffic from outside OOB space enters the VRF is as good
                    yield self._at_ingress(i, uplinks, on_interface, acls, nets, oob, expected)
                    continue
                inbound = [b.record.acl for b in on_interface[(i.target, intf.name)]]
                found = "no outbound ACL: nothing restricts access to the segment"
                if inbound:
                    found += f" (inbound only: {', '.join(inbound)}, which filters traffic leaving it)"
                yield self.failed(intf.subject(), expected, found, i, target=i.target)
                continue
            for b in outbound:
                yield self._judge(b, acls.get((b.target, b.record.acl), []), PROTECTED, nets, oob, expected)

    def _at_ingress(
        self,
        segment: StoredFact[Interface],
        uplinks: list[StoredFact[Interface]],
        on_interface: dict[tuple[str, str], list[StoredFact[AclBinding]]],
        acls: dict[tuple[str, str], list[StoredFact[Acl]]],
        nets: list[Network],
        oob: Oob,
        expected: str,
    ) -> Finding:
        """A segment without an outbound ACL, judged by the inbound ACLs of every interface through which
        traffic from outside OOB space enters its VRF on this device (the uplinks)."""
        subject, target = segment.record.subject(), segment.target
        facts: list[StoredFact[FactRecord]] = [segment]
        problems: list[str] = []
        for up in uplinks:
            inbound = [b for b in on_interface[(target, up.record.name)] if b.record.direction == "in"]
            facts.append(up)
            if not inbound:
                problems.append(f"{up.record.name} (a way in from outside OOB space) has no inbound ACL")
                continue
            for b in inbound:
                verdict = self._judge(b, acls.get((target, b.record.acl), []), PROTECTED, nets, oob, expected)
                facts += [f for f in (b, *acls.get((target, b.record.acl), [])) if f not in facts]
                if verdict.status.value != "PASS":
                    problems.append(f"{up.record.name} in {b.record.acl}: {verdict.found}")
        where = listing(u.record.name for u in uplinks)
        if problems:
            found = "no outbound ACL; at the ways in from outside OOB space: " + clauses(problems)
            return self.failed(subject, expected, found, *facts, target=target)
        found = f"no outbound ACL, but every way in from outside OOB space ({where}) is filtered inbound"
        return self.passed(subject, expected, found, *facts, target=target)

    def _services(
        self,
        ctx: CheckContext,
        oob: Oob,
        bindings: list[StoredFact[AclBinding]],
        acls: dict[tuple[str, str], list[StoredFact[Acl]]],
    ) -> Iterable[Finding]:
        own: dict[str, list[Network]] = defaultdict(list)  # the devices' own OOB addresses
        for i in ctx.facts.of(Interface):
            for a in addresses(i.record):
                if oob.in_oob(a) and (host := network(a.split("/")[0])) is not None:
                    own[i.target].append(host)
        for b in bindings:
            services = SERVICE_PORTS.get(b.record.name, ())
            if b.record.attach_point != "management" or b.record.direction != "in" or not services:
                continue
            expected = f"{b.record.name} admits {', '.join(map(str, services))} only from jump hosts"
            acl = acls.get((b.target, b.record.acl), [])
            yield self._judge(b, acl, services, None, oob, expected, own.get(b.target) or list(oob.nets))

    def _judge(
        self,
        binding: StoredFact[AclBinding],
        acls: list[StoredFact[Acl]],
        services: tuple[Service, ...],
        nets: list[Network] | None,
        oob: Oob,
        expected: str,
        protected: list[Network] | None = None,
    ) -> Finding:
        subject = binding.record.subject()
        if not acls:
            found = f"ACL {binding.record.acl} is bound but not defined: it filters nothing"
            return self.failed(subject, expected, found, binding, target=binding.target)
        bad: list[Admission] = []
        for acl in acls:
            for service in services:
                found_here = outside(admissions(acl.record, service, nets), oob.jump_nets)
                family = acl.record.family
                bad += [a for a in found_here if not _declared(a, oob, nets or protected or [], family)]
        facts: list[StoredFact[FactRecord]] = [binding, *acls]
        if bad:
            found = "admits " + "; ".join(a.describe() for a in bad)
            return self.failed(subject, expected, found, *facts, target=binding.target)
        found = f"ACL {binding.record.acl} admits {', '.join(s.name for s in services)} only from jump hosts"
        return self.passed(subject, expected, found, *facts, target=binding.target)

    def _clouds(self, ctx: CheckContext, oob: Oob) -> Iterable[Finding]:
        for t in [t for t in ctx.targets if t.kind == "aws"]:
            if ctx.missing(t, AWS_NEEDS) or t.status.value == "failed":
                oob_subnets = [
                    s.record.subnet_id
                    for s in ctx.facts.of(AwsSubnet)
                    if s.target == t.name and s.record.cidr and oob.in_oob(s.record.cidr)
                ]
                if oob.intent.aws is not None or oob_subnets:
                    why = t.reason or "no evidence of aws_network_interface / aws_security_group"
                    yield self.not_assessed(
                        t.name, f"{t.name}: OOB security groups not assessed: {why}", target=t.name
                    )
                continue
            yield from self._security_groups(ctx, oob, t.name)

    def _security_groups(self, ctx: CheckContext, oob: Oob, target: str) -> Iterable[Finding]:
        enis = [e for e in ctx.facts.of(AwsNetworkInterface) if e.target == target]
        members: dict[str, list[str]] = defaultdict(list)
        for e in enis:
            for g in e.record.security_groups:
                members[g] += e.record.private_ips + e.record.ipv6_addresses
        in_oob = [e for e in enis if guards_oob(e.record, oob)]
        groups = {g.record.group_id: g for g in ctx.facts.of(AwsSecurityGroup) if g.target == target}
        expected = f"ingress {', '.join(map(str, PROTECTED))} only from jump hosts ({oob.jump_text()})"
        for group_id in sorted({g for e in in_oob for g in e.record.security_groups}):
            attached = [e for e in in_oob if group_id in e.record.security_groups]
            sg = groups.get(group_id)
            if sg is None:
                yield self.not_assessed(
                    f"{target}/{group_id}",
                    f"security group {group_id} of {attached[0].record.interface_id} was not collected",
                    target=target,
                )
                continue
            guarded = [ip for e in attached for ip in e.record.private_ips + e.record.ipv6_addresses]
            bad = [text for rule in sg.record.ingress for text in sg_violations(rule, oob, members, guarded)]
            unresolved = [text for rule in sg.record.ingress for text in sg_unresolved(rule)]
            facts: list[StoredFact[FactRecord]] = [sg, *attached]
            if bad:
                yield self.failed(sg.record.subject(), expected, "; ".join(bad), *facts, target=target)
            elif unresolved:
                reason = (
                    f"{sg.record.subject()}: {'; '.join(unresolved)}: the prefix list's entries are not in "
                    "the evidence (aws ec2 get-managed-prefix-list-entries)"
                )
                yield self.not_assessed(sg.record.subject(), reason, target=target, expected=expected)
            else:
                found = f"{len(sg.record.ingress)} ingress rule(s), none opens these ports beyond jump hosts"
                yield self.passed(sg.record.subject(), expected, found, *facts, target=target)


def _ways_in(
    ctx: CheckContext, oob: Oob, segment: StoredFact[Interface], names: set[str]
) -> list[StoredFact[Interface]]:
    """The routed interfaces of the segment's device and VRF with an address outside OOB space: where
    traffic from outside the OOB network enters (management ports excepted: they are the device's own)."""
    seg = segment.record
    out: list[StoredFact[Interface]] = []
    for i in ctx.facts.of(Interface):
        rec = i.record
        if i.target != segment.target or rec.name == seg.name or rec.vrf != seg.vrf:
            continue
        if rec.type not in SEGMENT_TYPES | {"tunnel"} or rec.switchport or not rec.enabled:
            continue
        if any(not oob.in_oob(a) for a in addresses(rec)):
            out.append(i)
    return out


def _declared(admission: Admission, oob: Oob, protected: list[Network], family: str) -> bool:
    """Whether a declared OOB service authorises this admission: its source inside the service's sources,
    every protected address it reaches inside the service's destinations, and the service's port."""
    if admission.net is None or not protected:
        return False
    dst, resolved = address(admission.entry.destination, family)
    if not resolved or dst is None:
        return False
    reached = [p for p in protected if p.version == dst.version and p.overlaps(dst)]
    targets = [dst if dst.subnet_of(p) else p for p in reached]  # type: ignore[arg-type]
    service = admission.service
    return bool(targets) and all(
        oob.services.admitting(str(admission.net), str(t), service.protocol, service.port) is not None
        for t in targets
    )


def _gateway_link(oob: Oob, nets: list[Network]) -> str | None:
    """The declared OOB gateway on a point-to-point subnet (/30, /31, /126, /127) of these, if any."""
    for net in nets:
        if net.max_prefixlen - net.prefixlen <= 2:
            for host in (net.network_address, *net.hosts(), net.broadcast_address):
                if oob.is_gateway(str(host)):
                    return str(host)
    return None
