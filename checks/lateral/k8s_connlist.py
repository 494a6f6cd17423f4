"""The allowed connections among workloads, in netpol-analyzer's `list` format.

`src => dst : connections`, one line per ordered pair with a non-empty set, sorted by source then
destination; a workload to itself is left out. Addresses outside the cluster appear as the disjoint
IPv4 ranges that the policies' ipBlocks cut 0.0.0.0/0 into (ingress rules for sources, egress rules
and admin `networks` for destinations), written `first-last[External]`. IPv6 blocks are not listed
(netpol-analyzer supports IPv4 external peers only).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from checks.lateral.addresses import V4_MAX, IPSet
from checks.lateral.intervals import IntervalSet
from checks.lateral.k8s_eval import Endpoint, PolicyEngine
from checks.lateral.k8s_model import RuleSpec, Workload
from checks.lateral.k8s_policies import CompiledPolicies

EXTERNAL = "[External]"


@dataclass(frozen=True)
class Connection:
    src: str
    dst: str
    conn: str

    def line(self) -> str:
        return f"{self.src} => {self.dst} : {self.conn}"


def ip_atoms(blocks: Iterable[IPSet]) -> list[IPSet]:
    """Cut 0.0.0.0-255.255.255.255 at every boundary of the blocks: each atom is inside or outside each."""
    cuts = {0, V4_MAX + 1}
    for block in blocks:
        for lo, hi in block.v4.spans:
            cuts.update((lo, hi + 1))
    points = sorted(cuts)
    return [IPSet(IntervalSet.of((a, b - 1))) for a, b in itertools.pairwise(points)]


def _blocks(rules: Iterable[RuleSpec]) -> list[IPSet]:
    return [p.block for r in rules if r.peers for p in r.peers if p.kind == "ip"]


def external_blocks(compiled: CompiledPolicies) -> tuple[list[IPSet], list[IPSet]]:
    """The ipBlocks of ingress rules, and those of egress rules and admin `networks`."""
    ingress = _blocks(r for p in compiled.netpols for r in p.ingress)
    admins = [*compiled.admins, *([compiled.baseline] if compiled.baseline else [])]
    egress = _blocks(r for p in compiled.netpols for r in p.egress) + _blocks(
        r for a in admins for r in a.egress
    )
    return ingress, egress


def _name(endpoint: Endpoint) -> str:
    if isinstance(endpoint, Workload):
        return endpoint.node_id()
    return ", ".join(endpoint.v4_ranges()) + EXTERNAL


def connlist(
    engine: PolicyEngine,
    compiled: CompiledPolicies,
    workloads: Sequence[Workload],
    extra_ingress: Sequence[IPSet] = (),
    extra_egress: Sequence[IPSet] = (),
) -> list[Connection]:
    """`extra_*` cut the source / destination external ranges further (a diff of two configurations cuts
    each side by the blocks of both)."""
    if not workloads:
        return []
    ingress, egress = external_blocks(compiled)
    src_atoms, dst_atoms = ip_atoms([*ingress, *extra_ingress]), ip_atoms([*egress, *extra_egress])
    sources: list[Endpoint] = [*src_atoms, *workloads]
    destinations: list[Endpoint] = [*dst_atoms, *workloads]
    out: list[Connection] = []
    for src in sources:
        for dst in destinations:
            if isinstance(src, IPSet) and isinstance(dst, IPSet):
                continue
            if isinstance(src, Workload) and isinstance(dst, Workload) and src.node_id() == dst.node_id():
                continue
            conns = engine.allowed(src, dst).conns.transport_only()
            if conns:
                out.append(Connection(_name(src), _name(dst), conns.describe()))
    out.sort(key=lambda c: (c.src, c.dst))
    return out


def to_text(connections: Sequence[Connection]) -> str:
    return "".join(c.line() + "\n" for c in connections)


def to_json(connections: Sequence[Connection]) -> str:
    return json.dumps([{"src": c.src, "dst": c.dst, "conn": c.conn} for c in connections], indent=2) + "\n"
