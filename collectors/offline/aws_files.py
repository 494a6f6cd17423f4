"""Which offline files are AWS evidence, by the keys at the top of their JSON (or by the documented name
of a CLI file that does not name its resource: `<bucket>.object-lock.json`, `<tgw-rtb-id>.routes.json`).

A describe response is recognised by its top-level keys whatever the file is called (`Vpcs`,
`SecurityGroups`, `VpnConnections`, `logGroups`, ...). A response that does not say what it describes
(`ObjectLockConfiguration`, `Routes`, ...) in a file not named by the rule is a Problem that says how to
name it, never a silent skip.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from auditor.normalize import Problem
from collectors.normalizers.aws import RESPONSE_KEYS, UNNAMED_KEYS
from collectors.normalizers.aws_cli import match_name, naming_hint, resource_problem

_MAX_KEYS = 64


@dataclass(frozen=True)
class AwsFile:
    kind: str | None = None  # a CLI file kind (normalizers/aws_cli), None for self-describing responses
    resource: str | None = None  # the bucket or route table its name gives

    def meta(self) -> dict[str, str]:
        if self.kind is None or self.resource is None:
            return {}
        return {"aws_file": self.kind, "aws_resource": self.resource}


def detect(path: Path, head: bytes, origin: str) -> AwsFile | Problem | None:
    keys = top_level_keys(head.decode("utf-8", errors="replace"))
    named = match_name(path.name)
    if named is not None:
        cli, resource = named
        problem = resource_problem(cli, resource)
        if problem is None:
            return AwsFile(cli.kind, resource)
        if (
            cli.key is not None and cli.key in keys
        ):  # the CLI's output under a name that cannot be its resource
            return Problem(
                origin, f"{problem}: a {cli.suffixes[0]} file is named after its {cli.resource}", hint=_HINT
            )
        # anything else (an OpenShift `app.routes.json`, ...) is judged by its content below
    if not path.name.lower().endswith((".json", ".json.gz")):
        return None
    if keys & RESPONSE_KEYS:
        return AwsFile()
    for key in sorted(keys & UNNAMED_KEYS):
        return Problem(origin, naming_hint(key) or key, hint=_HINT)
    return None


_HINT = "see the README's offline AWS evidence table for the command and file name of each call"


def top_level_keys(text: str) -> set[str]:
    """Keys of the top-level objects in (the start of) a JSON text: the object itself, each object of a
    top-level list, or objects written one after another. Linear; stops after a few dozen keys."""
    keys: set[str] = set()
    depth = 0  # nesting of objects and lists
    list_top = False  # whether the outermost value is a list (then its objects are the responses)
    in_string = escape = False
    start = 0
    last_string: str | None = None
    for i, ch in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
                last_string = text[start:i]
            continue
        if ch == '"':
            in_string, start = True, i + 1
        elif ch == ":":
            if last_string is not None and depth == (2 if list_top else 1):
                keys.add(last_string)
                if len(keys) >= _MAX_KEYS:
                    break
            last_string = None
        elif ch in "{[":
            if depth == 0:
                list_top = ch == "["
            depth += 1
            last_string = None
        elif ch in "}]":
            depth = max(depth - 1, 0)
            last_string = None
        elif ch == ",":
            last_string = None
    return keys
