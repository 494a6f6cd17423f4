"""Apply examples/lab/fixes.yaml to a copy of the lab: the clean variant with no planted violation."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import yaml


def _select(doc: Any, path: list[Any]) -> Any:
    node = doc
    for step in path:
        if isinstance(step, dict):
            matches = [i for i in node if all(i.get(k) == v for k, v in step.items())]
            assert len(matches) == 1, f"{step} matches {len(matches)} items"
            node = matches[0]
        else:
            node = node[step]
    return node


def _edit_json(path: Path, fix: dict[str, Any]) -> None:
    doc = json.loads(path.read_text())
    target = _select(doc, fix["json"])
    if "remove" in fix:
        before = len(target)
        target[:] = [i for i in target if not all(i.get(k) == v for k, v in fix["remove"].items())]
        assert len(target) == before - 1, f"{path.name}: {fix['remove']} matched {before - len(target)} items"
    if "set" in fix:
        target.update(fix["set"])
    if "append" in fix:
        target.append(fix["append"])
    path.write_text(json.dumps(doc, indent=2) + "\n")


def _edit_text(path: Path, fix: dict[str, Any]) -> None:
    raw = path.read_bytes()
    zipped = raw[:2] == b"\x1f\x8b"
    text = (gzip.decompress(raw) if zipped else raw).decode()
    assert text.count(fix["replace"]) == 1, f"{path.name}: the planted text is not there exactly once"
    text = text.replace(fix["replace"], fix["with"])
    path.write_bytes(gzip.compress(text.encode(), mtime=0) if zipped else text.encode())


def apply_fixes(lab: Path) -> int:
    fixes = yaml.safe_load((lab / "fixes.yaml").read_text())
    for fix in fixes:
        path = lab / fix["file"]
        (_edit_json if "json" in fix else _edit_text)(path, fix)
    return len(fixes)
