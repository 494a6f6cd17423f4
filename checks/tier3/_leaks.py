"""Which VRFs an inter-VRF leak statement joins, read from the statement as the normalizers keep it.

Forms (verbatim texts): EOS `router general / vrf D / leak routes source-vrf S ...` and
`ip route vrf V P egress-vrf E NH`; NX-OS `vrf context V / address-family ... / import vrf S map RM` and
`vrf context V / ip route P NH vrf E`; SONiC/FRR `ip route vrf V P NH nexthop-vrf E`. The VRFs are the
words after `vrf`, `source-vrf`, `egress-vrf` and `nexthop-vrf` (`vrf context V` names V). A statement
naming no VRF cannot be placed and counts as a leak to somewhere unknown.
"""

from __future__ import annotations

KEYWORDS = {"vrf", "source-vrf", "egress-vrf", "nexthop-vrf"}
NOT_NAMES = {"context", "definition", "instance", "advertise-vpn"}


def leak_vrfs(text: str) -> set[str]:
    """Every VRF a leak statement names (its own VRF included)."""
    words = text.replace("/", " ").split()
    out: set[str] = set()
    for i, word in enumerate(words[:-1]):
        if word not in KEYWORDS:
            continue
        name = words[i + 1]
        if name in NOT_NAMES and i + 2 < len(words):
            name = words[i + 2]
        if name not in NOT_NAMES:
            out.add(name)
    return out
