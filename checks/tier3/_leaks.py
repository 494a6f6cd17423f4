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
    return {name for _, name in _named(text)}


def leak_receiver(text: str) -> str | None:
    """The VRF that gets routes into the others: the first one named (`vrf D / leak routes source-vrf
    S`, `ip route vrf V ... egress-vrf E`, `vrf context V / import vrf S`), except for NX-OS `export vrf
    X`, which hands the context's routes to X."""
    named = _named(text)
    exported = [name for keyword, name in named if keyword == "export"]
    if exported:
        return exported[0]
    return named[0][1] if named else None


def _named(text: str) -> list[tuple[str, str]]:
    """(the word before the keyword, VRF name) for every VRF named, in order."""
    words = text.replace("/", " ").split()
    out: list[tuple[str, str]] = []
    for i, word in enumerate(words[:-1]):
        if word not in KEYWORDS:
            continue
        name = words[i + 1]
        if name in NOT_NAMES and i + 2 < len(words):
            name = words[i + 2]
        if name not in NOT_NAMES:
            out.append((words[i - 1] if i else "", name))
    return out
