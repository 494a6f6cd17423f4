"""YAML as the network OSes write it: YAML 1.2, where `on`, `off`, `yes` and `no` are strings.

PyYAML's safe_load is YAML 1.1 and turns NVUE's `state: on` / `link: off` into booleans (and `0755`
into an octal number), so an NVUE file read with it says something else than the switch does.
ruamel.yaml's safe loader (pure Python) follows YAML 1.2. Anchors and aliases are refused: no OS
export writes them, and an alias-expanded document can be made exponentially large.
"""

from __future__ import annotations

import io
from typing import Any

import yaml as pyyaml
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent

from auditor import safeload
from auditor.capture import RawCapture
from collectors.parsing.config_tree import Context
from collectors.parsing.live_common import decode_text

MAX_BYTES = 64 * 1024 * 1024
# NVUE nests a dozen levels. The pure-Python scanner re-checks every open flow level at each token, so a
# line of a thousand `[` cost it seconds: libyaml checks the structure first, and parsing stops at the
# first event past this depth.
MAX_DEPTH = 64


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
    try:  # libyaml first (C, same structure in YAML 1.1 and 1.2): it refuses a hostile nesting fast
        safeload.check_yaml(text, safeload.Limits(max_depth=MAX_DEPTH, max_bytes=MAX_BYTES))
    except safeload.LimitExceeded as exc:
        ctx.problem(exc.line, f"{what} refused: {exc}")
        return None
    except pyyaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        ctx.problem(mark.line + 1 if mark else None, f"{what} is not valid YAML: {exc.problem or exc}")
        return None
    except pyyaml.YAMLError as exc:
        ctx.problem(None, f"{what} is not valid YAML: {exc}")
        return None
    yaml = YAML(typ="safe", pure=True)
    depth = 0
    try:
        for event in yaml.parse(io.StringIO(text)):
            line = event.start_mark.line + 1 if event.start_mark else None
            if isinstance(event, AliasEvent):
                ctx.problem(line, f"{what} uses a YAML alias, which no NVUE export writes: not read")
                return None
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    ctx.problem(line, f"{what} is nested deeper than {MAX_DEPTH} levels: not read")
                    return None
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
        return yaml.load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        ctx.problem(line, f"{what} is not valid YAML: {getattr(exc, 'problem', None) or exc}")
        return None
    except (ValueError, TypeError, RecursionError) as exc:
        ctx.problem(None, f"{what} cannot be read: {type(exc).__name__}: {exc}")
        return None
