"""EOS VRFs -> Vrf facts: `vrf instance X` (legacy `vrf definition X`) plus the default VRF.

`no vrf instance X` after its declaration (a config file replayed line by line) removes it. A VRF the
config uses without declaring it (an interface `vrf X`, `router bgp` / `vrf X`,
`ip route vrf X`, `ip routing vrf X`, a VXLAN or leak statement) still gets a Vrf fact, so the rd,
route targets and interfaces read for it are not lost; EOS accepts such references.

ip_routing is read from `[no] ip routing [ipv6 interfaces] [vrf X]`. `ip routing ipv6 interfaces`
enables IPv4 routing too (AVD stopped rendering a separate `ip routing` beside it). EOS prints
`no ip routing` in a full running-config, so when no line is found the value is None (unknown, e.g.
a config fragment), not a guessed default.
"""

from __future__ import annotations

import re

from auditor.facts.network import Interface, Vrf
from collectors.parsing.config_tree import Config, Context
from collectors.platforms.eos.bgp import BgpVrfInfo

_IP_ROUTING = re.compile(r"(no )?ip routing(?: ipv6 interfaces)?(?: vrf (\S+))?")


def declared_vrfs(config: Config) -> dict[str, str | None]:
    """VRF names in config order, with the rd of a legacy `vrf definition` block."""
    vrfs: dict[str, str | None] = {"default": None}
    for node, m in config.top(r"(no )?vrf (?:instance|definition) (\S+)"):
        if m.group(1):  # `no vrf instance X` later in a config file deletes it
            if m.group(2) != "default":
                vrfs.pop(m.group(2), None)
            continue
        rd = next((c.words[1] for c in node.children if len(c.words) == 2 and c.words[0] == "rd"), None)
        vrfs[m.group(2)] = rd
    return vrfs


def ip_routing(config: Config) -> dict[str, bool]:
    state: dict[str, bool] = {}
    for node in config.nodes:
        m = _IP_ROUTING.fullmatch(node.text)
        if m:
            state[m.group(2) or "default"] = m.group(1) is None
    return state


def build_vrfs(
    ctx: Context,
    config: Config,
    *,
    interfaces: list[Interface],
    bgp: dict[str, BgpVrfInfo],
    l3_vnis: dict[str, int],
    leaks: dict[str, list[str]],
    referenced: list[str],
) -> list[Vrf]:
    routing = ip_routing(config)
    names = declared_vrfs(config)
    for name in [*referenced, *routing, *bgp, *l3_vnis, *leaks]:
        names.setdefault(name, None)
    facts: list[Vrf] = []
    for name, legacy_rd in names.items():
        info = bgp.get(name, BgpVrfInfo())
        facts.append(
            Vrf(
                device=ctx.device,
                name=name,
                rd=info.rd or legacy_rd,
                route_targets_import=info.rt_import,
                route_targets_export=info.rt_export,
                ip_routing=routing.get(name),
                l3_vni=l3_vnis.get(name),
                leaks=leaks.get(name, []),
                bgp_networks=info.networks,
                bgp_redistribute=info.redistribute,
                interfaces=[i.name for i in interfaces if i.vrf == name],
            )
        )
    return facts
