"""NX-OS QoS -> QosInterface facts for the ports that carry a QoS setting of their own.

How NX-OS (Nexus 9000 Quality of Service Configuration Guide) spreads lossless settings:

- `system qos` / `service-policy type network-qos P` is switch-wide; P's classes with
  `pause pfc-cos N` (or `pause no-drop`, whose priority is then the class-map's `match cos`) are the
  no-drop priorities. They apply to ports where `priority-flow-control mode on` is set.
- ECN comes from a queuing policy (`service-policy type queuing output P`, on the port or under
  `system qos`): a class whose `random-detect ...` line ends in `ecn` marks that queue. The queue index
  is the class-map's `match qos-group N` or the built-in class name (`c-out-8q-q3` -> 3, `...-default`
  -> 0).
- Trust: NX-OS does not classify on DSCP by itself; ingress traffic lands in the default class unless a
  `type qos` policy classifies it. We record trust "dscp" only when the effective input qos policy
  (the port's, else the system one) matches on `dscp` (or "cos" when it matches only on `cos`), and
  leave it unknown otherwise.
- `priority-flow-control watch-dog-interval on|off` on the port, else the global one for PFC ports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from auditor.facts import QosInterface
from collectors.platforms.nxos.interfaces import IfState
from collectors.platforms.nxos.tree import Node, parse_vlan_list

_TYPED = re.compile(r"^(class-map|policy-map)(?: type (\S+))?(?: (?:match-any|match-all))? (\S+)$")


@dataclass
class _ClassMap:
    dscp: bool = False
    cos: list[int] = field(default_factory=list)
    qos_group: int | None = None


@dataclass
class QosConfig:
    class_maps: dict[tuple[str, str], _ClassMap] = field(default_factory=dict)  # (type, name)
    policies: dict[tuple[str, str], dict[str, list[str]]] = field(default_factory=dict)  # class -> lines
    system: dict[str, str] = field(default_factory=dict)  # "network-qos" / "qos-input" / "queuing-output"
    watchdog: bool | None = None


def read_qos(roots: list[Node]) -> QosConfig:
    """Class-maps, policy-maps (blocks of one name merged), `system qos` and the global PFC watchdog."""
    cfg = QosConfig()
    for node in roots:
        m = _TYPED.match(node.text)
        if m and m.group(1) == "class-map":
            cfg.class_maps[(m.group(2) or "qos", m.group(3))] = _class_map(node)
        elif m:
            classes = cfg.policies.setdefault((m.group(2) or "qos", m.group(3)), {})
            for child in node.sub("class"):
                classes.setdefault(child.words[-1], []).extend(c.text for c in child.children)
        elif node.text == "system qos":
            for child in node.children:
                sm = re.fullmatch(r"service-policy type (\S+)(?: (input|output))? (\S+)", child.text)
                if sm:
                    key = sm.group(1) + (f"-{sm.group(2)}" if sm.group(2) else "")
                    cfg.system[key] = sm.group(3)
        else:
            wm = re.fullmatch(r"priority-flow-control watch-dog-interval (on|off)", node.text)
            if wm:
                cfg.watchdog = wm.group(1) == "on"
    return cfg


def _class_map(node: Node) -> _ClassMap:
    cm = _ClassMap()
    for child in node.children:
        w = child.words
        if w[:2] == ["match", "dscp"]:
            cm.dscp = True
        elif w[:2] == ["match", "cos"] and len(w) >= 3:
            cm.cos.extend(v for v in (parse_vlan_list(" ".join(w[2:])) or []) if v <= 7)
        elif w[:2] == ["match", "qos-group"] and len(w) >= 3 and w[2].isdigit():
            cm.qos_group = int(w[2])
    return cm


def no_drop_priorities(cfg: QosConfig) -> list[int]:
    """The CoS values the system network-qos policy pauses (PFC no-drop)."""
    policy = cfg.policies.get(("network-qos", cfg.system.get("network-qos", "")), {})
    prios: set[int] = set()
    for cls, lines in policy.items():
        for line in lines:
            if not line.startswith("pause"):
                continue
            m = re.search(r"pfc-cos ([\d,\- ]+)", line)
            if m:
                prios.update(v for v in (parse_vlan_list(m.group(1).strip()) or []) if v <= 7)
            elif "no-drop" in line.split():
                prios.update(cfg.class_maps.get(("network-qos", cls), _ClassMap()).cos)
    return sorted(prios)


def ecn_queues(cfg: QosConfig, policy_name: str | None) -> list[int]:
    """Queues whose class in the queuing policy marks ECN."""
    queues: set[int] = set()
    for cls, lines in cfg.policies.get(("queuing", policy_name or ""), {}).items():
        if not any(re.match(r"(?:congestion-control )?random-detect\b.*\becn$", ln) for ln in lines):
            continue
        queue = cfg.class_maps.get(("queuing", cls), _ClassMap()).qos_group
        if queue is None:
            m = re.search(r"q(?:ueue)?-?(\d+|default)$", cls)
            queue = None if m is None else 0 if m.group(1) == "default" else int(m.group(1))
        if queue is not None:
            queues.add(queue)
    return sorted(queues)


def trust(cfg: QosConfig, policy_name: str | None) -> str | None:
    """What the input qos policy classifies on: "dscp", "cos", or None when unknown."""
    classes = cfg.policies.get(("qos", policy_name or ""), {})
    maps = [cfg.class_maps.get(("qos", cls)) for cls in classes if cls != "class-default"]
    if any(cm is not None and cm.dscp for cm in maps):
        return "dscp"
    if any(cm is not None and cm.cos for cm in maps):
        return "cos"
    return None


def to_qos(s: IfState, cfg: QosConfig, device: str) -> QosInterface:
    """The port's QoS with the switch-wide lossless settings applied where PFC is on."""
    pfc_on = s.pfc_mode == "on"
    policy_in = s.qos_in or cfg.system.get("qos-input")
    queuing = s.queuing_out or (cfg.system.get("queuing-output") if pfc_on else None)
    watchdog = s.pfc_watchdog if s.pfc_watchdog is not None else (cfg.watchdog if pfc_on else None)
    return QosInterface(
        device=device,
        interface=s.name,
        pfc_enabled={"on": True, "off": False}.get(s.pfc_mode or ""),
        pfc_no_drop_priorities=no_drop_priorities(cfg) if pfc_on else [],
        pfc_watchdog=watchdog,
        ecn_queues=ecn_queues(cfg, queuing),
        trust=trust(cfg, policy_in),
        service_policy_in=policy_in,
    )
