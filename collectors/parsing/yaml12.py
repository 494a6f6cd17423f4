"""YAML as the network OSes write it: YAML 1.2, where `on`, `off`, `yes` and `no` are strings.

PyYAML's safe_load is YAML 1.1 and turns NVUE's `state: on` / `link: off` into booleans (and `0755`
into an octal number), so an NVUE file read with it says something else than the switch does.
ruamel.yaml's safe loader (pure Python) follows YAML 1.2. Anchors and aliases are refused: no OS
export writes them, and an alias-expanded document can be made exponentially large.
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent

from auditor.capture import RawCapture
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import decode_text

MAX_BYTES = 64 * 1024 * 1024


def load_yaml12(capture: RawCapture, ctx: Context, what: str) -> Any | None:
    """The capture's YAML 1.2 document (plain dicts, lists, str, int, float, bool, None), or None with
    a Problem naming the line where it breaks."""
    if len(capture.content) > MAX_BYTES:
        ctx.problem(None, f"{what} is larger than {MAX_BYTES // (1024 * 1024)} MiB: not read")
        return None
    text = decode_text(capture)
    if not text.strip():
        ctx.problem(None, f"empty {what}: nothing to read")
        return None
    yaml = YAML(typ="safe", pure=True)
    try:
        for event in yaml.parse(io.StringIO(text)):
            if isinstance(event, AliasEvent):
                line = event.start_mark.line + 1 if event.start_mark else None
                ctx.problem(line, f"{what} uses a YAML alias, which no NVUE export writes: not read")
                return None
        return yaml.load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        ctx.problem(line, f"{what} is not valid YAML: {getattr(exc, 'problem', None) or exc}")
        return None
    except (ValueError, TypeError, RecursionError) as exc:
        ctx.problem(None, f"{what} cannot be read: {type(exc).__name__}: {exc}")
        return None
