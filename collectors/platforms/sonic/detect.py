"""Is this file a SONiC config_db (nested `{"PORT": {...}}` or a flat redis dump `"PORT|Ethernet0"`), or
the FRR configuration SONiC keeps beside it (frr.conf, bgpd.conf, staticd.conf)?"""

from __future__ import annotations

import re

from collectors.parsing.detect import hostname, json_head, score
from collectors.platforms.registry import Detected

MARKERS = (
    (re.compile(r'"DEVICE_METADATA(\|localhost)?"\s*:'), 4),
    (re.compile(r'"PORT(\|[^"]*)?"\s*:'), 2),
    (
        re.compile(
            r'"(VLAN|VLAN_MEMBER|INTERFACE|LOOPBACK_INTERFACE|ACL_TABLE|ACL_RULE|BGP_NEIGHBOR)(\|[^"]*)?"\s*:'
        ),
        2,
    ),
    (
        re.compile(
            r'"(BUFFER_POOL|BUFFER_PROFILE|PORT_QOS_MAP|DSCP_TO_TC_MAP|TC_TO_QUEUE_MAP|WRED_PROFILE)"\s*:'
        ),
        2,
    ),
)


_M = re.MULTILINE
# FRR writes these and no other OS does; `router bgp` alone is every OS's, so it only adds to them.
FRR_MARKERS = (
    (re.compile(r"^frr (version|defaults) ", _M), 4),
    (re.compile(r"^service integrated-vtysh-config\s*$", _M), 3),
    (re.compile(r"^exit-vrf\s*$", _M), 2),
    (re.compile(r"^router bgp \d+", _M), 1),
)
FRR_FILES = ("frr.conf", "bgpd.conf", "staticd.conf", "zebra.conf")


def detect_frr(name: str, text: str) -> Detected | None:
    strong = score(text, FRR_MARKERS[:3]) + (2 if name.endswith(FRR_FILES) else 0)
    if not strong:
        return None
    return Detected("sonic.frr", hostname(text), strong + score(text, FRR_MARKERS[3:]))


def detect(name: str, text: str) -> Detected | None:
    if not text.lstrip().startswith("{"):
        return detect_frr(name, text)
    points = score(text, MARKERS) + (2 if name.endswith(("config_db.json", "config_db.json.gz")) else 0)
    if not points:
        return None
    return Detected("sonic.config-db", _hostname(json_head(text)), points)


def _hostname(doc: object) -> str | None:
    if not isinstance(doc, dict):
        return None
    meta = doc.get("DEVICE_METADATA", {}).get("localhost") or doc.get("DEVICE_METADATA|localhost")
    if isinstance(meta, dict) and isinstance(meta.get("value"), dict):  # redis dump: {"type", "value"}
        meta = meta["value"]
    host = meta.get("hostname") if isinstance(meta, dict) else None
    return str(host) if host else None
