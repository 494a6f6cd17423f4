"""IOS ACLs and the management plane -> Acl, AclBinding (management), MgmtService.

- Named (`ip access-list standard|extended NAME`, `ipv6 access-list NAME`) and numbered (`access-list N
  ...`; 1-99 and 1300-1999 are standard) ACLs are read by the shared ACL reader (collectors.parsing.acl),
  whose entry syntax IOS shares: `[seq] permit|deny PROTO SRC [WILDCARD|host A|any] [ports] DST ...`.
- VTY lines: `transport input ssh|telnet|all|none` says which services listen (none given: IOS's
  historical default, all, so telnet is reported as possibly on); `access-class NAME in` filters them.
- `snmp-server community C RO|RW [ACL]` turns SNMP on (and binds the ACL); `ip http [secure-]server`
  and their `no` forms say whether HTTP/HTTPS are on.
"""

from __future__ import annotations

import re
from typing import Literal

from auditor.facts.network import Acl, AclBinding, MgmtService
from collectors.parsing.acl import parse_acls
from collectors.parsing.config_tree import Config, Context, Node

Service = Literal["ssh", "telnet", "snmp", "http", "https"]
_NAMED = re.compile(r"(ip|ipv6) access-list (?:(standard|extended) )?(\S+)")
_NUMBERED = re.compile(r"access-list (\d+) (.+)")


def _standard_number(number: int) -> bool:
    return 1 <= number <= 99 or 1300 <= number <= 1999


def read_acls(ctx: Context, config: Config) -> list[Acl]:
    nodes: list[Node] = []
    numbered: dict[str, list[Node]] = {}
    for node in config.nodes:
        if (m := _NAMED.fullmatch(node.text)) is not None:
            kind = "standard " if m.group(2) == "standard" else ""
            nodes.append(Node(f"{m.group(1)} access-list {kind}{m.group(3)}", node.line, node.children))
        elif (m := _NUMBERED.fullmatch(node.text)) is not None:
            numbered.setdefault(m.group(1), []).append(Node(m.group(2), node.line))
    for number, entries in numbered.items():
        kind = "standard " if _standard_number(int(number)) else ""
        nodes.append(Node(f"ip access-list {kind}{number}", entries[0].line, tuple(entries)))
    return parse_acls(ctx, Config(nodes=tuple(nodes)))


def read_management(ctx: Context, config: Config) -> tuple[list[MgmtService], list[AclBinding]]:
    services: dict[Service, tuple[bool, str | None]] = {}
    bindings: list[AclBinding] = []
    for node, _ in config.top(r"line vty .+"):
        transports = ["all"]
        acl: str | None = None
        for child in node.children:
            words = child.words
            if words[:2] == ["transport", "input"]:
                transports = words[2:]
            elif words[0] == "access-class" and len(words) >= 3 and words[2] == "in":
                acl = words[1]
        pair: tuple[Service, Service] = ("ssh", "telnet")
        for service in pair:
            on = service in transports or "all" in transports
            if on and (service not in services or not services[service][0]):
                services[service] = (True, acl)
            elif service not in services:
                services[service] = (False, None)
            if on and acl:
                bindings.append(
                    AclBinding(device=ctx.device, acl=acl, attach_point="management", name=service)
                )
    for node in config.nodes:
        words = node.words
        if words[:2] == ["snmp-server", "community"] and len(words) >= 3:
            acl = words[4] if len(words) >= 5 and words[3] in ("RO", "RW", "ro", "rw") else None
            services["snmp"] = (True, acl or (services.get("snmp") or (True, None))[1])
            if acl:
                bindings.append(
                    AclBinding(device=ctx.device, acl=acl, attach_point="management", name="snmp")
                )
        elif node.text in ("ip http server", "no ip http server"):
            services["http"] = (not node.text.startswith("no "), None)
        elif node.text in ("ip http secure-server", "no ip http secure-server"):
            services["https"] = (not node.text.startswith("no "), None)
    out = [
        MgmtService(device=ctx.device, service=service, enabled=on, acl=acl)
        for service, (on, acl) in services.items()
    ]
    return out, list(dict.fromkeys(bindings))
