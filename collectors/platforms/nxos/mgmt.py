"""NX-OS management plane -> MgmtService facts and the ACLs bound to SSH, Telnet and SNMP.

What the Cisco documentation says, and what we record (vrf "*" means every VRF):

- SSH: the SSH server is enabled by default and answers on every VRF's addresses (Nexus 9000 NX-OS
  Security Configuration Guide, "Configuring SSH and Telnet", Default Settings: SSH server enabled,
  Telnet server disabled). `no feature ssh` (or the older `no ssh server enable`) turns it off. The
  only restriction is the VTY ACL (`line vty` / `access-class NAME in`), which also filters Telnet.
- Telnet: off unless `feature telnet` (older: `telnet server enable`).
- NX-API: off unless `feature nxapi` ("NX-API is disabled by default", NX-OS Programmability Guide,
  NX-API CLI); `nxapi use-vrf X` pins it to one VRF, otherwise we record "*".
- SNMP: the agent answers requests on any VRF; `snmp-server host H ... use-vrf V` only chooses the VRF
  that notifications are sent through (Cisco's SNMP configuration guide; the Ansible cisco.nxos
  snmp_server parser reads `use-vrf` on `host` lines only), so it does not narrow where SNMP listens
  and we keep "*". SNMP is recorded when a community or user exists; `no snmp-server protocol enable`
  disables it. `use-acl` / `use-ipv4acl` / `use-ipv6acl` on a community or user bind an ACL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from auditor.facts import AclBinding, MgmtService
from collectors.platforms.nxos.tree import Ctx, Node

Direction = Literal["in", "out"]
_ACL_KEYWORDS = ("use-acl", "use-ipv4acl", "use-ipv6acl")


@dataclass
class _Mgmt:
    ssh: bool = True
    telnet: bool = False
    nxapi: bool = False
    nxapi_vrf: str | None = None
    vty_acls: list[tuple[str, Direction]] = field(default_factory=list)
    snmp_on: bool = True
    snmp_acls: dict[str, str | None] = field(default_factory=dict)  # community/user -> ACL
    snmp_vrfs: list[str] = field(default_factory=list)


def _read(roots: list[Node]) -> _Mgmt:
    m = _Mgmt()
    for node in roots:
        text = node.text
        if text in ("no feature ssh", "no ssh server enable"):
            m.ssh = False
        elif text in ("feature ssh", "ssh server enable"):
            m.ssh = True
        elif text in ("feature telnet", "telnet server enable"):
            m.telnet = True
        elif text in ("no feature telnet", "no telnet server enable"):
            m.telnet = False
        elif text == "feature nxapi":
            m.nxapi = True
        elif node.words[:2] == ["nxapi", "use-vrf"] and len(node.words) >= 3:
            m.nxapi_vrf = node.words[2]
        elif node.words[:2] == ["line", "vty"]:
            for child in node.children:
                hit = re.fullmatch(r"(?:ipv6 )?access-class (\S+)(?: (in|out))?", child.text)
                if hit:
                    m.vty_acls.append((hit.group(1), "out" if hit.group(2) == "out" else "in"))
        elif text == "no snmp-server protocol enable":
            m.snmp_on = False
        elif (
            node.words[:2] in (["snmp-server", "community"], ["snmp-server", "user"]) and len(node.words) >= 3
        ):
            _snmp_line(m, node.words)
    return m


def _snmp_line(m: _Mgmt, w: list[str]) -> None:
    key = f"{w[1]} {w[2]}"
    acl = m.snmp_acls.get(key)
    for i, word in enumerate(w[3:-1], start=3):
        if word in _ACL_KEYWORDS:
            acl = w[i + 1]
        elif word == "use-vrf" and w[1] == "community" and w[i + 1] not in m.snmp_vrfs:
            m.snmp_vrfs.append(w[i + 1])
    m.snmp_acls[key] = acl


def read_mgmt(roots: list[Node], ctx: Ctx) -> tuple[list[MgmtService], list[AclBinding]]:
    """SSH always (enabled or not), Telnet/NX-API when on, SNMP when configured; ACLs bound to them."""
    m = _read(roots)
    dev = ctx.device
    vty_in = next((acl for acl, d in m.vty_acls if d == "in"), None)
    services = [MgmtService(device=dev, service="ssh", vrf="*", enabled=m.ssh, acl=vty_in)]
    bindings: list[AclBinding] = []
    vty_users = ["ssh"] + (["telnet"] if m.telnet else [])
    for service in vty_users:
        bindings.extend(
            AclBinding(device=dev, acl=acl, attach_point="management", name=service, direction=d)
            for acl, d in m.vty_acls
        )
    if m.telnet:
        services.append(MgmtService(device=dev, service="telnet", vrf="*", acl=vty_in))
    if m.nxapi:
        services.append(MgmtService(device=dev, service="nxapi", vrf=m.nxapi_vrf or "*"))
    if m.snmp_acls:
        acls = set(m.snmp_acls.values())
        common = acls.pop() if len(acls) == 1 else None  # one ACL guards every community and user
        for vrf in m.snmp_vrfs or ["*"]:
            services.append(MgmtService(device=dev, service="snmp", vrf=vrf, enabled=m.snmp_on, acl=common))
        for acl in sorted({a for a in m.snmp_acls.values() if a}):
            bindings.append(AclBinding(device=dev, acl=acl, attach_point="management", name="snmp"))
    return services, bindings
