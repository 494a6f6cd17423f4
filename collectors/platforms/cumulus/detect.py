"""Is this file an NVUE config: `startup.yaml` / `nv config show` YAML (a `- header`/`- set` list, or the
tree under a bare `set:`), or `nv config show -o json`?"""

from __future__ import annotations

import re

from collectors.parsing.detect import json_head, score
from collectors.platforms.registry import Detected

_M = re.MULTILINE
YAML_MARKERS = (
    (re.compile(r"^- header:\s*$", _M), 2),
    (re.compile(r"^\s+nvue-api-version:", _M), 3),
    (re.compile(r"^- set:\s*$", _M), 2),
)
JSON_MARKERS = (
    (re.compile(r'"nvue-api-version"\s*:'), 3),
    (re.compile(r'"header"\s*:'), 1),
)
# NVUE's top-level branches; a JSON object holding several of them (and nothing else) is an NVUE tree.
_BRANCHES = frozenset(
    {
        "interface",
        "bridge",
        "vrf",
        "router",
        "system",
        "qos",
        "service",
        "acl",
        "evpn",
        "nve",
        "mlag",
        "platform",
    }
)
_HOST_YAML = re.compile(r"^\s+hostname:\s*['\"]?([^\s'\"#]+)", _M)


def detect(name: str, text: str) -> Detected | None:
    head = text.lstrip()
    if head.startswith(("{", "[")):
        points = score(text, JSON_MARKERS)
        doc = json_head(text)
        if isinstance(doc, list):
            doc = next(
                (i["set"] for i in doc if isinstance(i, dict) and isinstance(i.get("set"), dict)), None
            )
        if (
            isinstance(doc, dict)
            and len(_BRANCHES & doc.keys()) >= 2
            and doc.keys() <= _BRANCHES | {"header"}
        ):
            points += 3
        return Detected("cumulus.nvue-json", _json_host(doc), points) if points else None
    points = score(text, YAML_MARKERS) or _bare_set(text)
    if not points:
        return None
    points += 1 if name == "startup.yaml" else 0
    host = _HOST_YAML.search(text)
    return Detected("cumulus.nvue-yaml", host.group(1) if host else None, points)


_SET_MAPPING = re.compile(r"^set:\s*$", _M)
_SET_BRANCH = re.compile(r"^  ([a-z-]+):\s*$", _M)


def _bare_set(text: str) -> int:
    """NVUE's tree as a mapping under a top-level `set:` (no header list), as NVUE-based tools write
    it: `set:` at the start of a line with at least two NVUE branches indented under it."""
    if not _SET_MAPPING.search(text):
        return 0
    return 2 if len(_BRANCHES & set(_SET_BRANCH.findall(text))) >= 2 else 0


def _json_host(doc: object) -> str | None:
    system = doc.get("system") if isinstance(doc, dict) else None
    host = system.get("hostname") if isinstance(system, dict) else None
    return str(host) if host else None
