"""Is this file an IOS / IOS-XE running-config? Markers only IOS writes."""

from __future__ import annotations

import re

from collectors.parsing.detect import hostname, rancid_type, score
from collectors.platforms.registry import Detected

_M = re.MULTILINE
MARKERS = (
    (re.compile(r"^Building configuration\.\.\.", _M), 4),
    (re.compile(r"^Current configuration : \d+ bytes", _M), 4),
    (re.compile(r"^version 1[0-7]\.\d+\s*$", _M), 3),  # NX-OS: `version 9.3(8)`; EOS prints no version line
    (re.compile(r"^boot-start-marker", _M), 3),
    (re.compile(r"^service timestamps ", _M), 2),
    (re.compile(r"^vrf definition \S+", _M), 2),
    (re.compile(r"^ip vrf \S+", _M), 2),
    (re.compile(r"^ (ip )?vrf forwarding \S+", _M), 2),
    (re.compile(r"^line vty \d+( \d+)?", _M), 1),
    (re.compile(r"^interface (GigabitEthernet|FastEthernet|TenGigabitEthernet|Serial)\s?\d", _M), 1),
    (re.compile(r"^ip cef\s*$", _M), 1),
    (re.compile(r"^ip access-list (standard|extended) \S+", _M), 1),
    (re.compile(r"^access-list \d+ (permit|deny) ", _M), 1),
)


def detect(name: str, text: str) -> Detected | None:
    points = score(text, MARKERS) + (1 if rancid_type(text) == "cisco" else 0)
    return Detected("ios.running-config", hostname(text), points) if points else None
