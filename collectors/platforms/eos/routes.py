"""EOS static routes -> Route facts, and the inter-VRF leak statements a Vrf fact lists.

Syntax read: `ip|ipv6 route [vrf V] PREFIX [egress-vrf W] (NEXTHOP | INTERFACE [NEXTHOP])
[DISTANCE] [track bfd] [tag T] [name N] [metric M]`.
Leaks are the statements that move routes between VRFs: a static route with `egress-vrf`, and
`router general` / `vrf X` / `leak routes source-vrf Y ...`. Each is listed, verbatim, on both VRFs
it joins. A BGP `route-target import` is not a leak by itself (it only imports what some other VRF
exports with the same target) and is not listed.
"""

from __future__ import annotations

from collections import defaultdict

from auditor.facts.network import Route
from collectors.parsing.config_tree import Config, Context
from collectors.parsing.values import is_ip_address, parse_int, parse_prefix

_KEYWORDS = {"tag", "name", "metric", "track"}


def parse_static_routes(ctx: Context, config: Config) -> tuple[list[Route], dict[str, list[str]]]:
    """Static routes, and the leak statements per VRF (from `egress-vrf` routes)."""
    routes: list[Route] = []
    leaks: dict[str, list[str]] = defaultdict(list)
    for node, _ in config.top(r"ipv6 route .+|ip route .+"):
        words = node.words[2:]
        vrf = "default"
        if words[:1] == ["vrf"] and len(words) > 1:
            vrf, words = words[1], words[2:]
        if not words:
            ctx.problem(node.line, f"static route without a prefix: {node.text!r}")
            continue
        # `A.B.C.D M.M.M.M` mask form: join it so the prefix is one token
        if len(words) > 1 and "/" not in words[0] and is_ip_address(words[1]) and words[1].count(".") == 3:
            words = [f"{words[0]}/{words[1]}", *words[2:]]
        prefix = parse_prefix(ctx, words[0], node.line)
        if prefix is None:
            continue
        rest = words[1:]
        if rest[:1] == ["egress-vrf"] and len(rest) > 1:
            leaks[vrf].append(node.text)
            leaks[rest[1]].append(node.text)
            rest = rest[2:]
        route = _route(ctx, vrf, prefix, rest, node.line)
        if route is not None:
            routes.append(route)
    return routes, leaks


def _route(ctx: Context, vrf: str, prefix: str, rest: list[str], line: int) -> Route | None:
    next_hop: str | None = None
    interface: str | None = None
    if rest and is_ip_address(rest[0]):
        next_hop, rest = rest[0], rest[1:]
    elif rest and not rest[0].isdigit() and rest[0] not in _KEYWORDS:
        interface, rest = rest[0], rest[1:]
        if rest and is_ip_address(rest[0]):
            next_hop, rest = rest[0], rest[1:]
    if next_hop is None and interface is None:
        ctx.problem(line, "static route without a next hop or interface")
        return None
    distance: int | None = None
    name: str | None = None
    i = 0
    while i < len(rest):
        word = rest[i]
        if word.isdigit() and distance is None:
            distance = parse_int(ctx, word, line, "route distance", lo=1, hi=255)
            i += 1
        elif word == "name" and i + 1 < len(rest):
            name = rest[i + 1]
            i += 2
        elif word in _KEYWORDS:
            i += 2
        else:
            i += 1
    return Route(
        device=ctx.device,
        vrf=vrf,
        prefix=prefix,
        protocol="static",
        next_hop=next_hop,
        interface=interface,
        distance=distance,
        name=name,
    )


def parse_router_general_leaks(config: Config) -> dict[str, list[str]]:
    """`router general` / `vrf X` / `leak routes source-vrf Y ...`, on X and on Y."""
    leaks: dict[str, list[str]] = defaultdict(list)
    for node, _ in config.top(r"router general"):
        for vrf_node in node.children:
            if len(vrf_node.words) != 2 or vrf_node.words[0] != "vrf":
                continue
            dest = vrf_node.words[1]
            for leak in vrf_node.children:
                if leak.words[:2] != ["leak", "routes"]:
                    continue
                text = f"router general / vrf {dest} / {leak.text}"
                leaks[dest].append(text)
                words = leak.words
                if "source-vrf" in words and words.index("source-vrf") + 1 < len(words):
                    source = words[words.index("source-vrf") + 1]
                    if source != dest:
                        leaks[source].append(text)
    return leaks
