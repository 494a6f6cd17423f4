"""Control mappings as data: one YAML file per framework, listing its requirements and the check ids that
evidence them. The check id is the only link between a framework and the code (DESIGN.md, convention 2).

`load_frameworks()` reads and validates the files (unknown keys, empty or duplicate ids fail with the
file named); `validate_mappings()` holds them against the check registry: an id that no check has, or a
check that no requirement names, is an error."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from auditor.errors import AuditorError

MAPPINGS_DIR = Path(__file__).resolve().parent
# The same shape checks.base enforces on CheckMeta.id (kept here so loading mappings imports no checks).
CHECK_ID = re.compile(r"^(T1|T2|T3|X)-[A-Z0-9]+(-[A-Z0-9]+)*$")


class MappingError(AuditorError):
    """A mapping file is malformed or names a check that does not exist."""

    hint = "fix the control mapping file under reports/mappings/"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Requirement(_Frozen):
    """One requirement (control, criterion, section) of a framework and the checks that evidence it."""

    id: str = Field(min_length=1, max_length=40)
    title: str = Field(min_length=1, max_length=200, description="our own short summary, not the text")
    check_ids: tuple[str, ...] = Field(min_length=1)
    note: str = Field(default="", description="why the mapping holds, where it is not obvious")

    @field_validator("check_ids")
    @classmethod
    def _ids(cls, ids: tuple[str, ...]) -> tuple[str, ...]:
        bad = [i for i in ids if not CHECK_ID.match(i)]
        if bad:
            raise ValueError(
                f"not a check id: {', '.join(bad)} (ids look like T1-..., T2-..., T3-..., X-...)"
            )
        dupes = sorted(i for i, n in Counter(ids).items() if n > 1)
        if dupes:
            raise ValueError(f"check id listed twice: {', '.join(dupes)}")
        return ids


class Framework(_Frozen):
    """A framework's mapping file: its name, version, where to read it, and its mapped requirements."""

    key: str = Field(description="the file name without .yaml; stable, used in the JSON report")
    framework: str = Field(min_length=1)
    title: str = Field(min_length=1)
    version: str = Field(min_length=1)
    source: str = Field(pattern=r"^https://\S+$", description="where the framework text is published")
    requirements: tuple[Requirement, ...] = Field(min_length=1)

    @field_validator("requirements")
    @classmethod
    def _unique(cls, reqs: tuple[Requirement, ...]) -> tuple[Requirement, ...]:
        seen: set[str] = set()
        for r in reqs:
            if r.id in seen:
                raise ValueError(f"requirement {r.id!r} is listed twice")
            seen.add(r.id)
        return reqs

    @property
    def label(self) -> str:
        return f"{self.framework} {self.version}"

    def check_ids(self) -> set[str]:
        return {c for r in self.requirements for c in r.check_ids}


@dataclass(frozen=True)
class ControlRef:
    """One requirement a check evidences, as shown next to the check."""

    framework: str
    key: str
    requirement: str
    title: str


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MappingError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        raise MappingError(f"{path}: not valid YAML: {exc}") from None


def _where(loc: tuple[Any, ...], data: Mapping[str, Any]) -> str:
    """`requirements[3] (id SC-7(5)).check_ids` rather than a bare index, so the entry is easy to find."""
    parts: list[str] = []
    node: Any = data
    for p in loc:
        if isinstance(p, int):
            label = f"[{p}]"
            item = node[p] if isinstance(node, list) and p < len(node) else None
            if isinstance(item, dict) and "id" in item:
                label += f" (id {item['id']})"
            parts.append(label)
            node = item
        else:
            parts.append(f".{p}" if parts else str(p))
            node = node.get(p) if isinstance(node, dict) else None
    return "".join(parts) or "(top level)"


def load_framework(path: Path) -> Framework:
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise MappingError(f"{path}: expected a mapping with framework, version, source, requirements")
    try:
        return Framework.model_validate({"key": path.stem, **data})
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = err["msg"].removeprefix("Value error, ")
        raise MappingError(f"{path}: {_where(tuple(err['loc']), data)}: {msg}") from None


def framework_files(directory: Path = MAPPINGS_DIR) -> list[Path]:
    return sorted(directory.glob("*.yaml"))


def load_frameworks(directory: Path | None = None) -> tuple[Framework, ...]:
    """Every framework mapping in `directory` (default: the shipped ones), by file name."""
    if directory is None:
        return _shipped()
    return tuple(load_framework(p) for p in framework_files(directory))


@lru_cache(maxsize=1)
def _shipped() -> tuple[Framework, ...]:
    return tuple(load_framework(p) for p in framework_files(MAPPINGS_DIR))


@dataclass
class MappingReport:
    """The mappings held against the registry. `errors` fail the build; the rest is for the lead to see."""

    unknown: dict[str, list[str]] = field(default_factory=dict)  # id -> ["soc2 CC6.1", ...]
    unmapped: list[str] = field(default_factory=list)  # registered checks no requirement names

    @property
    def errors(self) -> list[str]:
        out = [
            f"{cid}: no registered check has this id (named by {', '.join(where)}); "
            f"fix the id or register the check"
            for cid, where in sorted(self.unknown.items())
        ]
        out += [f"{cid}: registered but mapped to no requirement of any framework" for cid in self.unmapped]
        return out


def validate_mappings(frameworks: Iterable[Framework], registered: Iterable[str]) -> MappingReport:
    registered = set(registered)
    report = MappingReport()
    mapped: set[str] = set()
    for fw in frameworks:
        for req in fw.requirements:
            for cid in req.check_ids:
                mapped.add(cid)
                if cid not in registered:
                    report.unknown.setdefault(cid, []).append(f"{fw.key} {req.id}")
    report.unmapped = sorted(registered - mapped)
    return report


def controls_by_check(frameworks: Iterable[Framework]) -> dict[str, list[ControlRef]]:
    """check id -> the requirements it evidences, in framework-file then requirement order."""
    out: dict[str, list[ControlRef]] = {}
    for fw in frameworks:
        for req in fw.requirements:
            for cid in req.check_ids:
                out.setdefault(cid, []).append(ControlRef(fw.framework, fw.key, req.id, req.title))
    return out


__all__ = [
    "ControlRef",
    "Framework",
    "MappingError",
    "MappingReport",
    "Requirement",
    "controls_by_check",
    "load_framework",
    "load_frameworks",
    "validate_mappings",
]
