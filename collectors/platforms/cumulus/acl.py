"""NVUE ACLs -> Acl, and the control-plane ACL -> management bindings.

- acl/NAME: type (ipv4|ipv6|mac), rule/N/{match/ip/{protocol, source-ip, dest-ip, source-port,
  dest-port}, action/{permit|deny: {}}}, rules in the order of their number.
- Addresses and ports `ANY` match everything (no clause). Ports are keys, one per port: numbers, service
  names, or ranges `A:B` (iptables' form) / `A-B`. One port or a list is `eq P Q`, one range `range A B`;
  a list mixing ranges and ports cannot be one clause and is kept verbatim (`eq 22 1024:2000`), which the
  checks read as unknown, i.e. on the safe side of a verdict.
- system/control-plane/acl/NAME/inbound: the ACL in front of the switch's own services (SSH, SNMP,
  NTP...), i.e. a management binding of each of them.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from auditor.facts.network import Acl, AclBinding, AclEntry
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import as_int

Tree = dict[str, Any]
_RANGE = re.compile(r"^(\d+)[:-](\d+)$")
MGMT_SERVICES = ("ssh", "snmp")


def _d(value: Any) -> Tree:
    return value if isinstance(value, dict) else {}


def _address(value: Any) -> str:
    text = str(value or "any")
    return "any" if text.lower() == "any" else text


def ports(keys: Any) -> str | None:
    words = [str(k) for k in _d(keys)]
    if not words or any(w.upper() == "ANY" for w in words):
        return None
    spans = [_RANGE.match(w) for w in words]
    if len(words) == 1 and spans[0]:
        return f"range {spans[0].group(1)} {spans[0].group(2)}"
    return "eq " + " ".join(words)


def read_acls(ctx: Context, tree: Tree) -> list[Acl]:
    out: list[Acl] = []
    for name, body in _d(tree.get("acl")).items():
        kind = str(_d(body).get("type", "ipv4"))
        entries = []
        for seq, rule in sorted(_d(_d(body).get("rule")).items(), key=lambda kv: as_int(kv[0]) or 0):
            match = _d(_d(_d(rule).get("match")).get("ip"))
            action: Literal["permit", "deny"] = "deny" if "deny" in _d(_d(rule).get("action")) else "permit"
            sports, dports = ports(match.get("source-port")), ports(match.get("dest-port"))
            source, destination = _address(match.get("source-ip")), _address(match.get("dest-ip"))
            proto = str(match["protocol"]) if match.get("protocol") else None
            words = [seq, action, proto, source, sports, destination, dports]
            entries.append(
                AclEntry(
                    sequence=as_int(seq),
                    action=action,
                    protocol=proto,
                    source=source,
                    source_ports=sports,
                    destination=destination,
                    destination_ports=dports,
                    text=" ".join(str(w) for w in words if w),
                )
            )
        family: Literal["ipv4", "ipv6", "mac"] = "ipv4"
        if kind in ("ipv6", "mac"):
            family = "ipv6" if kind == "ipv6" else "mac"
        out.append(Acl(device=ctx.device, name=name, family=family, entries=entries))
    return out


def control_plane_acls(tree: Tree) -> list[str]:
    """The ACLs of system/control-plane/acl bound inbound."""
    acls = _d(_d(_d(tree.get("system")).get("control-plane")).get("acl"))
    return [name for name, directions in acls.items() if "inbound" in _d(directions)]


def control_plane_bindings(ctx: Context, tree: Tree) -> list[AclBinding]:
    return [
        AclBinding(device=ctx.device, acl=acl, attach_point="management", name=service)
        for acl in control_plane_acls(tree)
        for service in MGMT_SERVICES
    ]
