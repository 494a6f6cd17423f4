"""Helpers for the platforms' offline content detectors: count markers only one OS writes.

A detector looks at a file's name and first bytes (never a full parse) and says which capture format
the file is, with a score: each distinct marker pattern found adds its weight. The classifier takes the
platform with the highest score and refuses a tie, so an ambiguous file is reported, not guessed.
"""

from __future__ import annotations

import json
import re
from typing import Any

HOSTNAME = re.compile(r"^hostname\s+\"?([^\s\"]+)", re.MULTILINE)
# Batfish and RANCID tag collected configs with their content type on the first lines.
RANCID = re.compile(r"^[!#]\s*RANCID-CONTENT-TYPE:\s*(\S+)", re.MULTILINE)


def score(text: str, markers: tuple[tuple[re.Pattern[str], int], ...]) -> int:
    """The sum of the weights of the marker patterns found in `text`."""
    return sum(weight for pattern, weight in markers if pattern.search(text))


def hostname(text: str) -> str | None:
    found = HOSTNAME.search(text)
    return found.group(1) if found else None


def rancid_type(text: str) -> str | None:
    found = RANCID.search(text[:2048])
    return found.group(1).lower() if found else None


def json_head(text: str) -> Any:
    """The document when the head is a whole JSON document, else None (a head cut mid-document is
    still recognised by the callers' key patterns)."""
    try:
        return json.loads(text)
    except ValueError:
        return None
