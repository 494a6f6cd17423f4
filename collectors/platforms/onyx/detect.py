"""Is this file an Onyx running-config? Its `##` header and flat `interface ethernet 1/1 ...` lines."""

from __future__ import annotations

import re

from collectors.parsing.detect import hostname, score
from collectors.platforms.registry import Detected

_M = re.MULTILINE
MARKERS = (
    (re.compile(r"^## Running database ", _M), 4),
    (re.compile(r"^## Product release: ", _M), 2),
    (re.compile(r"^## Hostname: ", _M), 2),
    (re.compile(r"^\s*interface ethernet \d+/\d+(/\d+)? \S", _M), 3),  # settings on the interface line
    (re.compile(r"^\s*no cli default prefix-modes enable", _M), 3),
)
_HEADER_HOST = re.compile(r"^## Hostname: (\S+)", _M)


def detect(name: str, text: str) -> Detected | None:
    points = score(text, MARKERS)
    if not points:
        return None
    header = _HEADER_HOST.search(text)
    return Detected("onyx.running-config", header.group(1) if header else hostname(text), points)
