"""Is this file an NX-OS running-config? Markers only NX-OS writes."""

from __future__ import annotations

import re

from collectors.parsing.detect import hostname, rancid_type, score
from collectors.platforms.registry import Detected

_M = re.MULTILINE
MARKERS = (
    (re.compile(r"^!Command: show running-config", _M), 4),  # EOS writes `! Command:` with a space
    (re.compile(r"^version \d+\.\d+\(\w+\)", _M), 4),  # `version 9.3(8)`; IOS has no parentheses
    (re.compile(r"^feature \S+", _M), 3),
    (re.compile(r"^vrf context \S+", _M), 3),
    (re.compile(r"^  vrf member \S+", _M), 2),
    (re.compile(r"^nv overlay evpn", _M), 2),
    (re.compile(r"^system default switchport", _M), 2),
    (re.compile(r"^interface (mgmt0|nve1)\s*$", _M), 2),
)


def detect(name: str, text: str) -> Detected | None:
    points = score(text, MARKERS) + (4 if rancid_type(text) in ("cisco-nx", "cisco_nx") else 0)
    return Detected("nxos.running-config", hostname(text), points) if points else None
