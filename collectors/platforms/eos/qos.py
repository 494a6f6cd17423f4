"""EOS QoS -> QosInterface facts, with `service-profile P` resolved from the `qos profile P` block.

An interface's own lines override its profile's, setting by setting (PFC per priority); ECN queues
are the union of both, since a profile's `random-detect ecn` stays in force unless the interface
sets its own. An Ethernet or port-channel interface that sets no trust (nor its profile) has EOS's
default: DSCP on a routed port, CoS on a switchport (EOS QoS: switched ports trust CoS, routed ports
trust DSCP), so its fact says which one applies. A queue counts for ECN when its `tx-queue N` /
`uc-tx-queue N` block has a `random-detect ecn` marking line; `random-detect ecn count` only enables
counters, and multicast queues do not mark. A profile that is not defined applies nothing (EOS
accepts the reference).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from auditor.facts.network import QosInterface
from collectors.parsing.config_tree import Config, Context, Node
from collectors.parsing.values import parse_int
from collectors.platforms.eos.interfaces import interface_type

_PFC_ON = {"priority-flow-control on", "priority-flow-control mode on"}
_PFC_OFF = {"no priority-flow-control", "priority-flow-control off", "priority-flow-control mode off"}
_TRUST = {"qos trust dscp": "dscp", "qos trust cos": "cos", "no qos trust": "untrusted"}
_ECN_QUEUES = {"tx-queue", "uc-tx-queue"}


@dataclass
class _Qos:
    pfc_enabled: bool | None = None
    priorities: dict[int, bool] = field(default_factory=dict)  # priority -> no-drop
    watchdog: bool | None = None
    ecn: set[int] = field(default_factory=set)
    trust: str | None = None
    policy_in: str | None = None

    def is_set(self) -> bool:
        return any(
            (
                self.pfc_enabled is not None,
                self.priorities,
                self.watchdog is not None,
                self.ecn,
                self.trust,
                self.policy_in,
            )
        )

    def over(self, base: _Qos) -> _Qos:
        """These settings on top of `base` (the profile)."""
        return _Qos(
            pfc_enabled=self.pfc_enabled if self.pfc_enabled is not None else base.pfc_enabled,
            priorities={**base.priorities, **self.priorities},
            watchdog=self.watchdog if self.watchdog is not None else base.watchdog,
            ecn=base.ecn | self.ecn,
            trust=self.trust or base.trust,
            policy_in=self.policy_in or base.policy_in,
        )


def parse_qos(ctx: Context, config: Config) -> list[QosInterface]:
    profiles = {m.group(1): _read(ctx, node) for node, m in config.top(r"qos profile (\S+)")}
    facts: list[QosInterface] = []
    for node, m in config.top(r"interface (\S+)"):
        own = _read(ctx, node)
        profile = _service_profile(node)
        qos = own.over(profiles.get(profile or "", _Qos()))
        if qos.trust is None and interface_type(m.group(1)) in ("ethernet", "port-channel"):
            qos.trust = "dscp" if _routed(m.group(1), node) else "cos"  # EOS's default trust
        if not qos.is_set():
            continue
        facts.append(
            QosInterface(
                device=ctx.device,
                interface=m.group(1),
                pfc_enabled=qos.pfc_enabled,
                pfc_no_drop_priorities=sorted(p for p, no_drop in qos.priorities.items() if no_drop),
                pfc_drop_priorities=sorted(p for p, no_drop in qos.priorities.items() if not no_drop),
                pfc_watchdog=qos.watchdog,
                ecn_queues=sorted(qos.ecn),
                trust=qos.trust,
                service_policy_in=qos.policy_in,
            )
        )
    return facts


def _routed(name: str, interface: Node) -> bool:
    """A routed port: a subinterface, or the last of `switchport` / `no switchport` says so."""
    routed = "." in name
    for c in interface.children:
        if c.text in ("switchport", "no switchport"):
            routed = c.text == "no switchport"
    return routed


def _service_profile(interface: Node) -> str | None:
    """The profile in force: the last `service-profile P` line (merged blocks may hold several);
    `no service-profile` removes it."""
    profile: str | None = None
    for c in interface.children:
        if len(c.words) == 2 and c.words[0] == "service-profile":
            profile = c.words[1]
        elif c.words[:2] == ["no", "service-profile"]:
            profile = None
    return profile


def _read(ctx: Context, block: Node) -> _Qos:
    """The QoS lines of an interface or profile block."""
    qos = _Qos()
    for child in block.children:
        text, w = child.text, child.words
        if text in _PFC_ON:
            qos.pfc_enabled = True
        elif text in _PFC_OFF:
            qos.pfc_enabled = False
        elif w[:2] == ["priority-flow-control", "priority"] and len(w) == 4 and w[3] in {"drop", "no-drop"}:
            prio = parse_int(ctx, w[2], child.line, "PFC priority", lo=0, hi=7)
            if prio is not None:
                qos.priorities[prio] = w[3] == "no-drop"
        elif text == "priority-flow-control pause watchdog":
            qos.watchdog = True
        elif text == "no priority-flow-control pause watchdog":
            qos.watchdog = False
        elif text in _TRUST:
            qos.trust = _TRUST[text]
        elif w[:4] == ["service-policy", "type", "qos", "input"] and len(w) == 5:
            qos.policy_in = w[4]
        elif w[:2] == ["service-policy", "input"] and len(w) == 3:
            qos.policy_in = w[2]
        elif w[0] in _ECN_QUEUES and len(w) == 2 and _marks_ecn(child):
            queue = parse_int(ctx, w[1], child.line, "tx-queue", lo=0, hi=15)
            if queue is not None:
                qos.ecn.add(queue)
    return qos


def _marks_ecn(queue: Node) -> bool:
    return any(
        c.words[:2] == ["random-detect", "ecn"] and c.words[2:3] not in (["count"], ["allow"])
        for c in queue.children
    )
