"""Is this file an EOS running-config? Markers only EOS writes."""

from __future__ import annotations

import re

from collectors.parsing.detect import hostname, rancid_type, score
from collectors.platforms.registry import Detected

_M = re.MULTILINE
MARKERS = (
    (re.compile(r"^! device: .*\bEOS-", _M), 4),  # the header `show running-config` prints
    (re.compile(r"^! Command: show running-config", _M), 2),  # NX-OS writes `!Command:` with no space
    (re.compile(r"^! boot system flash:", _M), 2),
    (re.compile(r"^vrf instance \S+", _M), 3),
    (re.compile(r"^management api (http-commands|gnmi|netconf)", _M), 3),
    (re.compile(r"^service routing protocols model", _M), 3),
    (re.compile(r"^daemon TerminAttr", _M), 3),
    (re.compile(r"^transceiver qsfp default-mode", _M), 3),
    (re.compile(r"^ip virtual-router mac-address", _M), 2),
    (re.compile(r"^interface (Ethernet\d+(/\d+)*|Port-Channel\d+|Vxlan1|Management\d+)\s*$", _M), 1),
    # an interface's VRF (IOS: `vrf forwarding`, NX-OS: `vrf member`)
    (re.compile(r"^   vrf \S+\s*$", _M), 1),
)


def detect(name: str, text: str) -> Detected | None:
    points = score(text, MARKERS) + (4 if rancid_type(text) == "arista" else 0)
    return Detected("eos.running-config", hostname(text), points) if points else None
