"""Redaction of the run config before it is stored with the run.

The config holds references to secrets (`password_env: AUDIT_PASS`), never secrets by design, but a
user can still write one in: a password in the `store:` URL, a token pasted into a field. The stored
copy is what a report, `auditor evidence export` and `verify` see, so every string is cleaned of URL
userinfo and known token formats, and any value under a key that names a credential is replaced.
"""

from __future__ import annotations

from typing import Any

from auditor.evidence.redact_scan import REDACTED, is_secret_name, scan

__all__ = ["clean_string", "redact_config"]

_MAX_NODES = 100_000  # a validated config is small; this only bounds the walk


def redact_config(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of `data` (plain JSON values) with every secret value replaced by the redaction token."""
    root: dict[str, Any] = {}
    stack: list[tuple[Any, Any, str]] = [(data, root, "")]
    seen = 0
    while stack:
        source, target, _ = stack.pop()
        seen += 1
        if seen > _MAX_NODES:
            raise ValueError("config too large to redact")
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, value in items:
            if isinstance(value, dict):
                child: Any = {}
            elif isinstance(value, list):
                child = [None] * len(value)
            elif isinstance(value, str):
                secret_key = isinstance(key, str) and is_secret_name(key) and value not in ("", REDACTED)
                child = REDACTED if secret_key else clean_string(value)
            else:
                child = value
            target[key] = child
            if isinstance(value, (dict, list)):
                stack.append((value, child, str(key)))
    return root


def clean_string(value: str) -> str:
    """URL passwords and recognisable tokens out of a string (a config field, a capture's source or
    origin); prose stays as written."""
    hits = sorted((h for h in scan(value) if h.rule != "high-entropy-string"), key=lambda h: h.start)
    if not hits:
        return value
    parts: list[str] = []
    pos = 0
    for h in hits:
        if h.start < pos:
            pos = max(pos, h.end)
            continue
        parts.append(value[pos : h.start])
        parts.append(REDACTED)
        pos = h.end
    parts.append(value[pos:])
    return "".join(parts)
