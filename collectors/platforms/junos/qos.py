"""Junos `class-of-service` -> QosInterface facts (PFC, ECN, trust), as QFX lossless RoCE configs set it.

- PFC: `congestion-notification-profile P input ieee-802.1 code-point 011 pfc` makes priority 3 (the
  3-bit code point) no-drop; an interface (`class-of-service interfaces X congestion-notification-profile
  P`) with such a profile has PFC enabled on those priorities.
- ECN: a scheduler with `explicit-congestion-notification` marks ECN on the queues of the forwarding
  classes it serves in a scheduler map (`scheduler-maps M forwarding-class FC scheduler S`; a class's
  queue from `forwarding-classes class FC queue-num N` or `forwarding-classes queue N FC`). The map
  reaches an interface directly (`scheduler-map M`) or through `forwarding-class-set FCS
  output-traffic-control-profile T` whose profile names the map.
- Trust: a unit's `classifiers dscp|dscp-ipv6 C` -> "dscp", `classifiers ieee-802.1 C` -> "cos".
Interfaces with none of these get no fact (nothing was configured to read).
"""

from __future__ import annotations

from auditor.facts.network import QosInterface
from collectors.parsing.config_tree import Context
from collectors.platforms.junos.tree import Node


def _queues(cos: Node) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, node in cos.items("forwarding-classes", "class"):
        num = node.value("queue-num")
        if num and num.isdigit():
            out[name] = int(num)
    for num, node in cos.items("forwarding-classes", "queue"):
        if num.isdigit():
            for name in node.children:
                out[name] = int(num)
    return out


def _ecn_queues(cos: Node, scheduler_map: str, queues: dict[str, int]) -> list[int]:
    out: set[int] = set()
    for fc, node in cos.items("scheduler-maps", scheduler_map, "forwarding-class"):
        scheduler = node.value("scheduler")
        marks = scheduler and cos.has("schedulers", scheduler, "explicit-congestion-notification")
        if marks and fc in queues:
            out.add(queues[fc])
    return sorted(out)


def _pfc(cos: Node, profile: str) -> list[int]:
    out: set[int] = set()
    for code, node in cos.items(
        "congestion-notification-profile", profile, "input", "ieee-802.1", "code-point"
    ):
        if node.has("pfc") and len(code) == 3 and set(code) <= {"0", "1"}:
            out.add(int(code, 2))
    return sorted(out)


def read_qos(ctx: Context, root: Node) -> list[QosInterface]:
    cos = root.get("class-of-service")
    if cos is None:
        return []
    queues = _queues(cos)
    out: list[QosInterface] = []
    for name, node in cos.items("interfaces"):
        profile = node.value("congestion-notification-profile")
        pfc = _pfc(cos, profile) if profile else []
        maps = node.values("scheduler-map")
        for _fcs, fcs_node in node.items("forwarding-class-set"):
            for tcp in fcs_node.values("output-traffic-control-profile"):
                maps += cos.values("traffic-control-profiles", tcp, "scheduler-map")
        ecn = sorted({q for m in maps for q in _ecn_queues(cos, m, queues)})
        trust = None
        for _unit, unit in node.items("unit"):
            kinds = unit.values("classifiers")
            if "dscp" in kinds or "dscp-ipv6" in kinds:
                trust = "dscp"
            elif "ieee-802.1" in kinds and trust is None:
                trust = "cos"
        if not (profile or maps or trust):
            continue
        out.append(
            QosInterface(
                device=ctx.device,
                interface=name,
                pfc_enabled=bool(pfc) if profile else None,
                pfc_no_drop_priorities=pfc,
                ecn_queues=ecn,
                trust=trust,
            )
        )
    return out
