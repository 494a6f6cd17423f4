"""EOS management plane -> MgmtService facts, and the ACLs bound to services and the control plane.

Readings of EOS defaults (a running-config omits them):
- SSH listens in the default VRF unless `management ssh` / `shutdown`; telnet, eAPI, gNMI and
  NETCONF are off until configured. A fact is emitted for each service in the default VRF either way,
  so "disabled" is stated, not inferred from absence.
- In `management api http-commands` (and telnet), the top-level `shutdown` is the service's switch;
  a `vrf X` sub-block enables it in X only with `no shutdown` there (and the service on).
- In `management ssh`, EOS's documentation leaves open whether the top-level `shutdown` also stops the
  `vrf X` servers or only the default VRF's. An auditor must not hide a listener, so the reading is the
  conservative one: the top-level switch governs the default VRF, and `vrf X` / `no shutdown` means SSH
  listens in X. (A false "listens" is a finding someone checks; a false "off" hides a management plane.)
- gNMI and NETCONF listen per `transport grpc|ssh NAME` (in its `vrf`, default VRF if none).
- SNMP answers in each `snmp-server vrf X`, and in the default VRF when a community, user or host
  is configured and `no snmp-server vrf default` is absent.
"""

from __future__ import annotations

import re
from typing import Literal

from auditor.facts.network import AclBinding, MgmtService
from collectors.parsing.config_tree import Config, Context, Node

Service = Literal["ssh", "telnet", "eapi", "gnmi", "netconf", "snmp"]
_BLOCKS: dict[str, tuple[Service, bool]] = {  # block -> (service, on by default in the default VRF)
    "management ssh": ("ssh", True),
    "management telnet": ("telnet", False),
    "management api http-commands": ("eapi", False),
}
_TRANSPORTS: dict[str, tuple[Service, str]] = {
    "management api gnmi": ("gnmi", "transport grpc"),
    "management api netconf": ("netconf", "transport ssh"),
}
_ACCESS_GROUP = re.compile(r"(?:ip|ipv6) access-group (\S+)(?: vrf (\S+))?(?: in)?")


class _Collector:
    """Gathers services and bindings so each parser stays a short function."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.services: list[MgmtService] = []
        self.bindings: list[AclBinding] = []

    def service(self, service: Service, vrf: str, enabled: bool, acl: str | None) -> None:
        self.services.append(
            MgmtService(device=self.ctx.device, service=service, vrf=vrf, enabled=enabled, acl=acl)
        )

    def bind(
        self, acl: str, name: str, vrf: str | None, point: Literal["management", "control-plane"]
    ) -> None:
        self.bindings.append(
            AclBinding(device=self.ctx.device, acl=acl, attach_point=point, name=name, vrf=vrf)
        )


def parse_management(ctx: Context, config: Config) -> tuple[list[MgmtService], list[AclBinding]]:
    out = _Collector(ctx)
    blocks = {node.text: node for node in config.nodes}
    for header, (service, default_on) in _BLOCKS.items():
        _vrf_service(out, service, blocks.get(header), default_on, vrfs_independent=service == "ssh")
    for header, (service, transport) in _TRANSPORTS.items():
        _transport_service(out, service, blocks.get(header), transport)
    _snmp(out, config)
    for node in config.nodes:
        if node.text in {"system control-plane", "control-plane"}:
            for child in node.children:
                m = _ACCESS_GROUP.fullmatch(child.text)
                if m:
                    out.bind(m.group(1), "control-plane", m.group(2), "control-plane")
    return out.services, out.bindings


def _shutdown(node: Node, default: bool) -> bool:
    """The last `shutdown` / `no shutdown` among a block's lines, else `default`."""
    state = default
    for child in node.children:
        if child.text == "shutdown":
            state = True
        elif child.text == "no shutdown":
            state = False
    return state


def _vrf_service(
    out: _Collector, service: Service, block: Node | None, default_on: bool, vrfs_independent: bool = False
) -> None:
    if block is None:
        out.service(service, "default", default_on, None)
        return
    on = not _shutdown(block, default=not default_on)
    acls: dict[str, str] = {}
    vrf_blocks: dict[str, Node] = {}
    for child in block.children:
        m = _ACCESS_GROUP.fullmatch(child.text)
        if m and child.words[0] == "ip":
            acls[m.group(2) or "default"] = m.group(1)
        if m:
            out.bind(m.group(1), service, m.group(2) or "default", "management")
        elif len(child.words) == 2 and child.words[0] == "vrf":
            vrf_blocks[child.words[1]] = child
    for vrf, vrf_block in vrf_blocks.items():
        for sub in vrf_block.children:
            m = _ACCESS_GROUP.fullmatch(sub.text)
            if m:
                out.bind(m.group(1), service, vrf, "management")
                if sub.words[0] == "ip":
                    acls[vrf] = m.group(1)
    default_vrf_on = on and not ("default" in vrf_blocks and _shutdown(vrf_blocks["default"], default=False))
    out.service(service, "default", default_vrf_on, acls.get("default"))
    for vrf, vrf_block in vrf_blocks.items():
        if vrf != "default":
            vrf_on = (on or vrfs_independent) and not _shutdown(vrf_block, default=True)
            out.service(service, vrf, vrf_on, acls.get(vrf))


def _transport_service(out: _Collector, service: Service, block: Node | None, transport: str) -> None:
    transports = [c for c in block.children if c.text.startswith(transport + " ")] if block else []
    if block is None or not transports:
        out.service(service, "default", False, None)
        return
    on = not _shutdown(block, default=False)
    vrfs_seen: set[str] = set()
    for node in transports:
        vrf = next(
            (c.words[1] for c in node.children if len(c.words) == 2 and c.words[0] == "vrf"), "default"
        )
        acl: str | None = None
        for sub in node.children:
            m = _ACCESS_GROUP.fullmatch(sub.text)
            if m:
                out.bind(m.group(1), service, vrf, "management")
                acl = acl or m.group(1)
        out.service(service, vrf, on and not _shutdown(node, default=False), acl)
        vrfs_seen.add(vrf)
    if "default" not in vrfs_seen:
        out.service(service, "default", False, None)


def _snmp(out: _Collector, config: Config) -> None:
    vrfs: list[str] = []
    default_off = False
    agent_configured = False
    acls: dict[str, str] = {}
    community_acl: str | None = None
    for node in config.nodes:
        w = node.words
        if w[0] == "no" and w[1:4] == ["snmp-server", "vrf", "default"]:
            default_off = True
        if w[0] != "snmp-server" or len(w) < 2:
            continue
        if w[1] == "vrf" and len(w) >= 3 and w[2] not in vrfs:
            vrfs.append(w[2])
        elif w[1] in {"community", "user", "host"}:
            agent_configured = True
            if w[1] == "community":
                acl = _community_acl(w[3:])
                if acl:
                    out.bind(acl, "snmp", None, "management")
                    community_acl = community_acl or acl
        elif w[1] in {"ipv4", "ipv6"} and w[2:3] == ["access-list"] and len(w) >= 4:
            vrf = w[w.index("vrf") + 1] if "vrf" in w[4:-1] else "default"
            out.bind(w[3], "snmp", vrf, "management")
            if w[1] == "ipv4":
                acls[vrf] = w[3]
    out.service("snmp", "default", agent_configured and not default_off, acls.get("default", community_acl))
    for vrf in vrfs:
        if vrf != "default":
            out.service("snmp", vrf, True, acls.get(vrf, community_acl))


def _community_acl(rest: list[str]) -> str | None:
    """The IPv4 ACL of `snmp-server community C [view V] [ro|rw] [ipv6 ACL6] [ACL4]`."""
    i = 0
    while i < len(rest):
        if rest[i] in {"view", "ipv6"}:
            i += 2
        elif rest[i] in {"ro", "rw"}:
            i += 1
        else:
            return rest[i]
    return None
