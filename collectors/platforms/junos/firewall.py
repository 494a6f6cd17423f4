"""Junos firewall filters, where they apply, and the management services -> Acl, AclBinding, MgmtService.

A filter (`firewall family inet|inet6 filter F`, or the legacy `firewall filter F` = inet) is an Acl;
each term becomes one AclEntry per combination of its protocols, source and destination addresses
(`*-address`, `*-prefix-list` expanded from `policy-options prefix-list`) and port specs, so every
entry is one match the checks can read. Ports: `destination-port`/`source-port` values are numbers,
ranges (`1024-65535`) or Junos service names (`ssh`, `https`, ... converted to numbers); `port` matches
either side and gives one entry per side. Action: `accept` -> permit; `discard`/`reject` -> deny; a
term with no terminating action accepts (Junos's default), `next term` only modifies and is skipped.
`except` addresses cannot be expressed in an entry: the term is kept without them and a Problem says so.

Bindings: `interfaces X unit N family inet filter input|output F` (also `input-list`). A filter on a
loopback unit protects the Routing Engine: it is the control-plane binding, and the management
services' ACL. Management services (`system services ssh|telnet|netconf ssh|web-management
http|https|extension-service request-response grpc`, and `snmp` when communities or v3 are set) listen
in every routing instance (`vrf "*"`), fenced by the lo0.0 input filter, as Junos delivers host-bound
traffic from any instance to the Routing Engine unless a loopback filter drops it.
"""

from __future__ import annotations

import itertools
from typing import Literal

from auditor.facts.network import Acl, AclBinding, AclEntry, MgmtService
from collectors.parsing.config_tree import Context
from collectors.platforms.junos.interfaces import canonical
from collectors.platforms.junos.tree import Node

Family = Literal["ipv4", "ipv6", "mac"]
_FAMILIES: dict[str, Family] = {"inet": "ipv4", "inet6": "ipv6", "ethernet-switching": "mac"}
_PORT_PROTOCOLS = frozenset({"tcp", "udp", "6", "17", "sctp"})

# Junos service names for ports (Junos OS "firewall filter match conditions": port names).
PORT_NAMES: dict[str, int] = {
    "afs": 1483,
    "bgp": 179,
    "biff": 512,
    "bootpc": 68,
    "bootps": 67,
    "cvspserver": 2401,
    "cmd": 514,
    "dhcp": 67,
    "domain": 53,
    "eklogin": 2105,
    "ekshell": 2106,
    "exec": 512,
    "finger": 79,
    "ftp": 21,
    "ftp-data": 20,
    "http": 80,
    "https": 443,
    "ident": 113,
    "imap": 143,
    "kerberos-sec": 88,
    "klogin": 543,
    "kpasswd": 761,
    "krb-prop": 754,
    "krbupdate": 760,
    "kshell": 544,
    "ldap": 389,
    "ldp": 646,
    "login": 513,
    "mobileip-agent": 434,
    "mobilip-mn": 435,
    "msdp": 639,
    "netbios-dgm": 138,
    "netbios-ns": 137,
    "netbios-ssn": 139,
    "nfsd": 2049,
    "nntp": 119,
    "ntalk": 518,
    "ntp": 123,
    "pop3": 110,
    "pptp": 1723,
    "printer": 515,
    "radacct": 1813,
    "radius": 1812,
    "rip": 520,
    "rkinit": 2108,
    "smtp": 25,
    "snmp": 161,
    "snmptrap": 162,
    "snpp": 444,
    "socks": 1080,
    "ssh": 22,
    "sunrpc": 111,
    "syslog": 514,
    "tacacs": 49,
    "tacacs-ds": 65,
    "talk": 517,
    "telnet": 23,
    "tftp": 69,
    "timed": 525,
    "who": 513,
    "xdmcp": 177,
    "zephyr-clt": 2103,
    "zephyr-hm": 2104,
    "zephyr-srv": 2102,
}
# Match conditions an AclEntry expresses; any other narrows a term beyond what an entry can say.
_MODELLED = frozenset(
    {
        "protocol",
        "next-header",
        "source-address",
        "destination-address",
        "address",
        "ip-source-address",
        "ip-destination-address",
        "source-prefix-list",
        "destination-prefix-list",
        "prefix-list",
        "source-port",
        "destination-port",
        "port",
    }
)


def _filters(root: Node) -> list[tuple[str, Family, Node]]:
    out: list[tuple[str, Family, Node]] = []
    for family, fam in _FAMILIES.items():
        out += [(name, fam, node) for name, node in root.items("firewall", "family", family, "filter")]
    out += [(name, "ipv4", node) for name, node in root.items("firewall", "filter")]
    return out


def read_acls(ctx: Context, root: Node) -> list[Acl]:
    prefix_lists = {name: list(node.children) for name, node in root.items("policy-options", "prefix-list")}
    out: list[Acl] = []
    for name, family, node in _filters(root):
        entries: list[AclEntry] = []
        for seq, (term_name, term) in enumerate(node.items("term"), start=1):
            entries += _term(ctx, name, term_name, term, seq * 10, prefix_lists)
        out.append(Acl(device=ctx.device, name=name, family=family, entries=entries))
    return out


def _addresses(
    ctx: Context, match: Node, side: str, prefix_lists: dict[str, list[str]], where: str, line: int
) -> list[str]:
    found: list[str] = []
    named = [*match.items(f"{side}-address"), *match.items(f"ip-{side}-address"), *match.items("address")]
    for addr, node in named:
        if node.has("except"):
            ctx.problem(
                node.line, f"{where}: `{addr} except` cannot be expressed as an entry; read without it"
            )
            continue
        found.append(addr)
    for plist in [*match.values(f"{side}-prefix-list"), *match.values("prefix-list")]:
        if plist not in prefix_lists:
            ctx.problem(line, f"{where}: prefix-list {plist} is not defined")
            continue
        found += prefix_lists[plist]
    return found or ["any"]


def _ports(values: list[str]) -> list[str]:
    """Port specs as entries read them: single ports together (`eq 22 443`), each range apart."""
    singles: list[str] = []
    ranges: list[str] = []
    for value in values:
        lo, sep, hi = value.partition("-")
        if sep and lo.isdigit() and hi.isdigit():
            ranges.append(f"range {lo} {hi}")
        else:
            singles.append(str(PORT_NAMES.get(value, value)))
    return ([f"eq {' '.join(singles)}"] if singles else []) + ranges


def _term(
    ctx: Context, acl: str, term_name: str, term: Node, seq: int, prefix_lists: dict[str, list[str]]
) -> list[AclEntry]:
    then = term.get("then")
    where = f"filter {acl} term {term_name}"
    if then is not None and (then.has("accept") or then.has("routing-instance")):
        action: Literal["permit", "deny"] | None = "permit"
    elif then is not None and (then.has("discard") or then.has("reject")):
        action = "deny"
    elif then is not None and then.has("next"):
        return []  # `then next term`: not a terminating match
    else:
        action = "permit"  # no terminating action: Junos accepts
    match = term.get("from") or Node()
    unmodelled = sorted(k for k in match.children if k not in _MODELLED)
    if unmodelled and action == "deny":
        # Read as a deny of everything else it names, it would hide traffic it lets through: left out.
        ctx.problem(term.line, f"{where}: discard term also matches on {', '.join(unmodelled)}; not read")
        return []
    extra = " ".join(f"{k} {' '.join(match.values(k))}".strip() for k in unmodelled)
    protocols = match.values("protocol") or match.values("next-header") or [None]  # type: ignore[list-item]
    sources = _addresses(ctx, match, "source", prefix_lists, where, term.line)
    destinations = _addresses(ctx, match, "destination", prefix_lists, where, term.line)
    src_ports = _ports(match.values("source-port"))
    dst_ports = _ports(match.values("destination-port"))
    either = _ports(match.values("port"))
    port_pairs: list[tuple[str | None, str | None]]
    if either:
        port_pairs = [(p, None) for p in either] + [(None, p) for p in either]
    else:
        port_pairs = [(s, d) for s in (src_ports or [None]) for d in (dst_ports or [None])]  # type: ignore[list-item]
    out: list[AclEntry] = []
    for protocol, src, dst, (sp, dp) in itertools.product(protocols, sources, destinations, port_pairs):
        proto = protocol
        text = " ".join(
            w for w in (f"term {term_name}:", action, proto or "ip", src, sp, dst, dp, extra) if w
        )
        out.append(
            AclEntry(
                sequence=seq,
                action=action,
                protocol=proto or "ip",
                source=src,
                source_ports=sp if (proto or "") in _PORT_PROTOCOLS or proto is None else None,
                destination=dst,
                destination_ports=dp if (proto or "") in _PORT_PROTOCOLS or proto is None else None,
                text=text,
            )
        )
    return out


def read_bindings(ctx: Context, root: Node, vrf_of: dict[str, str]) -> list[AclBinding]:
    out: list[AclBinding] = []
    for ifd, node in root.items("interfaces"):
        for unit_no, unit in node.items("unit"):
            name = canonical(f"{ifd}.{unit_no}")
            for family in _FAMILIES:
                flt = unit.get("family", family, "filter")
                if flt is None:
                    continue
                for direction in ("input", "output"):
                    names = flt.values(direction) + flt.values(f"{direction}-list")
                    for acl in names:
                        out.append(_binding(ctx, acl, ifd, name, direction, vrf_of.get(name, "default")))
    return out


def _binding(ctx: Context, acl: str, ifd: str, unit: str, direction: str, vrf: str) -> AclBinding:
    loopback = ifd.startswith("lo")
    return AclBinding(
        device=ctx.device,
        acl=acl,
        attach_point="control-plane" if loopback else "interface",
        name="control-plane" if loopback else unit,
        direction="in" if direction == "input" else "out",
        vrf=vrf if loopback else None,
    )


def read_mgmt(ctx: Context, root: Node) -> list[MgmtService]:
    services = root.get("system", "services")
    fence = next(
        iter(root.values("interfaces", "lo0", "unit", "0", "family", "inet", "filter", "input")), None
    )
    found: list[str] = []
    if services is not None:
        found += [s for s in ("ssh", "telnet") if services.has(s)]
        if services.has("netconf", "ssh") or services.has("netconf", "rfc-compliant"):
            found.append("netconf")
        found += [s for s in ("http", "https") if services.has("web-management", s)]
        if services.has("extension-service", "request-response", "grpc"):
            found.append("gnmi")
    snmp = root.get("snmp")
    if snmp is not None and (snmp.has("community") or snmp.has("v3")):
        found.append("snmp")
    return [MgmtService(device=ctx.device, service=s, vrf="*", acl=fence) for s in found]
