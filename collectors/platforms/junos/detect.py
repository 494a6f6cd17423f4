"""Is this file a Junos configuration, as `show configuration` prints it (curly braces) or as
`show configuration | display set` prints it (one `set` statement a line)?"""

from __future__ import annotations

import re

from collectors.parsing.detect import rancid_type, score
from collectors.platforms.registry import Detected

_M = re.MULTILINE
_TOP = (
    r"(system|interfaces|protocols|routing-options|routing-instances|firewall|policy-options|vlans|snmp|"
    r"chassis|security|class-of-service|forwarding-options|groups|apply-groups)"
)
MARKERS = (
    (re.compile(r"^## Last (commit|changed): ", _M), 4),
    (re.compile(r"^version \S+;\s*$", _M), 4),
    (re.compile(r"^(set|deactivate) version \S+\s*$", _M), 4),
    (re.compile(rf"^{_TOP} \{{\s*$", _M), 3),
    (re.compile(rf"^set {_TOP} \S", _M), 3),
    (re.compile(r"^\s+host-name \S+;\s*$", _M), 2),
    (re.compile(r"^\s+unit \d+ \{\s*$", _M), 2),
)
_HOST = re.compile(r"^(?:set system host-name\s+|\s+host-name\s+)\"?([^\s;\"]+)", _M)


def detect(name: str, text: str) -> Detected | None:
    points = score(text, MARKERS) + (4 if rancid_type(text) in ("juniper", "junos") else 0)
    if not points:
        return None
    host = _HOST.search(text)
    return Detected("junos.config", host.group(1) if host else None, points)
