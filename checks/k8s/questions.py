"""The questions the tier-2 checks ask the engine about one pod, answered from its verdicts.

- default deny: is the generic connection (a peer no rule names, on a port no rule names) denied?
- explicit allows: which rules allow this pod to reach, or be reached from, a given endpoint; a
  connection allowed only because nothing isolates the pod is the default-deny check's finding, not
  an explicit allow.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from checks.k8s.compile import ClusterPolicies
from checks.k8s.connlist import describe, ip_atoms, peer_blocks
from checks.k8s.engine import Because, PolicyEngine, Verdict
from checks.k8s.ir import GENERIC, Action, Direction, Endpoint, Policy
from checks.k8s.workloads import Workload
from checks.lateral.addresses import V6_MAX, IPSet
from checks.lateral.conns import ConnSet
from checks.lateral.intervals import EMPTY, IntervalSet

NARROW = 1024  # a port range this wide or wider does not name ports: it opens them


@dataclass(frozen=True)
class DenyVerdict:
    denied: bool
    reason: str
    because: tuple[Policy, ...] = ()


def named_ports(compiled: ClusterPolicies) -> ConnSet:
    """Every port some rule names explicitly (narrow ranges only): the generic port is none of them."""
    out = ConnSet()
    for policy in compiled.all():
        for direction in ("Ingress", "Egress"):
            for rule in policy.rules(direction):
                for spec in rule.ports or ():
                    if spec.lo is not None and (spec.hi or spec.lo) - spec.lo < NARROW:
                        out = out.union(spec.conns(GENERIC))
    return out


def default_deny(engine: PolicyEngine, pod: Workload, direction: Direction, named: ConnSet) -> DenyVerdict:
    """Denied by default: whatever the generic peer gets is on ports some rule names explicitly."""
    if direction == "Ingress":
        verdict = engine.direction(GENERIC, pod, ingress=True)
    else:
        verdict = engine.direction(pod, GENERIC, ingress=False)
    leftover = verdict.conns.transport_only().subtract(named)
    isolating = tuple(engine.isolating(pod, direction))
    if not leftover:
        if isolating:
            return DenyVerdict(True, "isolated by " + ", ".join(p.label for p in isolating), isolating)
        deciders = tuple(
            p
            for p in [*engine.compiled.admins, *engine.compiled.baselines]
            if p.applies(pod, engine.namespace_labels)
        )
        return DenyVerdict(
            True, "denied by " + (", ".join(p.label for p in deciders) or "admin policies"), deciders
        )
    opened = "every port" if leftover.union(named).is_all_transport() else describe(leftover)
    rules = [(p, r) for p, r in verdict.because if r.action == Action.ALLOW]
    if rules:
        by = ", ".join(dict.fromkeys(f"{p.label if p else 'a Calico profile'} {r.where}" for p, r in rules))
        return DenyVerdict(False, f"{by} allow(s) {opened} from/to any peer", tuple(p for p, _ in rules if p))
    if isolating:
        return DenyVerdict(False, f"{opened} left open by admin policies", isolating)
    return DenyVerdict(False, f"no policy isolates it: {opened} open to any peer")


def explicit_rules(because: Because) -> list[tuple[Policy, str]]:
    """(policy, rule place) of the allow rules behind a verdict."""
    return [(p, r.where) for p, r in because if p is not None and r.action == Action.ALLOW]


def allowed_by(verdict: Verdict, dst: Endpoint) -> list[tuple[Policy, str, ConnSet]]:
    """(policy, rule place, connections) of each allow rule behind a verdict, with the part of the
    explicitly allowed connections that rule opens itself. Two rules allowing one destination on
    different ports (a proxy rule on 3128, a `world` rule on 443) are each held to their own ports,
    never to the union; a rule whose every connection is denied or decided elsewhere is left out."""
    explicit = verdict.explicit
    out = []
    for policy, rule in verdict.because:
        if policy is None or rule.action != Action.ALLOW:
            continue
        own = explicit.intersect(rule.conns(dst))
        if own:
            out.append((policy, rule.where, own))
    return out


def address_atoms(blocks: Iterable[IPSet]) -> list[IPSet]:
    """Every address (IPv4 and IPv6) cut at the boundaries of the blocks: each atom is inside or
    outside each block, so one verdict per atom says what the policies do for all its addresses."""
    items = list(blocks)
    out = ip_atoms(items)
    cuts = {0, V6_MAX + 1}
    for block in items:
        for lo, hi in block.v6.spans:
            cuts.update((lo, hi + 1))
    points = sorted(cuts)
    out += [IPSet(EMPTY, IntervalSet.of((a, b - 1))) for a, b in itertools.pairwise(points)]
    return out


@dataclass
class Reached:
    """What one allow rule opens: the addresses and connections, and which policy holds it."""

    policy: Policy
    where: str
    addresses: IPSet = field(default_factory=IPSet)
    conns: ConnSet = field(default_factory=ConnSet)


def egress_atoms(engine: PolicyEngine, pod: Workload, extra: Iterable[IPSet] = ()) -> list[IPSet]:
    """The address atoms that matter for one pod's egress: cut by the blocks of the rules of the
    policies (and Calico profiles) that select it, and by `extra`; the verdict is the same across an
    atom, so one question per atom answers for all its addresses."""
    blocks = [
        b
        for p in engine.selecting(pod)
        for r in p.egress
        for peer in r.peers or ()
        for b in peer_blocks(peer)
    ]
    for prof in engine.compiled.profiles.values():
        blocks += [b for r in prof.egress for peer in r.peers or () for b in peer_blocks(peer)]
    return address_atoms([*blocks, *extra])


def explicit_egress(
    engine: PolicyEngine,
    pods: Iterable[Workload],
    atoms: Sequence[IPSet] | None = None,
    extra: Sequence[IPSet] = (),
) -> dict[tuple[str, str], Reached]:
    """Per allow rule (policy label, rule place): the atoms these pods may reach because of it, and on
    which connections; egress allowed only because nothing isolates a pod is left out. Without `atoms`,
    each pod's own (egress_atoms, cut by `extra` too)."""
    out: dict[tuple[str, str], Reached] = {}
    for pod in pods:
        for atom in atoms if atoms is not None else egress_atoms(engine, pod, extra):
            verdict = engine.direction(pod, atom, ingress=False)
            conns = verdict.explicit.transport_only().union(
                ConnSet(other=verdict.conns.other and not verdict.default.other)
            )
            if not conns:
                continue
            for policy, where, opened in allowed_by(verdict, atom):
                own = opened.intersect(conns)
                if not own:
                    continue
                item = out.setdefault((policy.label, where), Reached(policy, where))
                item.addresses = item.addresses.union(atom)
                item.conns = item.conns.union(own)
    return out
