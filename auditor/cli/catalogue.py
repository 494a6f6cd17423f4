"""The check catalogue for `auditor checks list`, from a cache when nothing it was built from changed.

Listing the catalogue means importing every check module (the fact models, the Kubernetes and lateral
engines, SQLAlchemy through the check contract): about a second, for a table of names. The metadata is
cached as JSON under the user's cache directory ($AUDITOR_CACHE_DIR, else $XDG_CACHE_HOME/auditor, else
~/.cache/auditor), keyed by the Python and auditor versions, the `auditor.checks` entry points and the
path, size and modification time of every Python file of the packages that provide them and of `auditor`
itself: any edit, install or upgrade there builds it afresh. Only this listing reads the cache; audits
and re-checks always load the checks themselves. AUDITOR_CACHE_DIR=off turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from importlib.metadata import entry_points
from importlib.util import find_spec
from pathlib import Path
from typing import Any

GROUP = "auditor.checks"
FIELDS = ("id", "title", "tier", "severity", "needs", "rationale", "remediation")


def cache_dir() -> Path | None:
    """Where the catalogue is cached; None when turned off (AUDITOR_CACHE_DIR=off)."""
    explicit = os.environ.get("AUDITOR_CACHE_DIR")
    if explicit:
        return None if explicit.lower() == "off" else Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "auditor"


def _package_files(package: str) -> list[str]:
    """`relative path:size:mtime_ns` of every .py file of a top-level package, without importing it."""
    try:
        spec = find_spec(package)
    except (ImportError, ValueError):
        return [f"{package}:missing"]
    if spec is None:
        return [f"{package}:missing"]
    roots = list(spec.submodule_search_locations or []) or ([spec.origin] if spec.origin else [])
    found = []
    for root in roots:
        if os.path.isfile(root):
            st = os.stat(root)
            found.append(f"{root}:{st.st_size}:{st.st_mtime_ns}")
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    st = os.stat(path)
                    found.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
    return found


def fingerprint() -> str:
    """A digest of everything the catalogue is built from (see the module docstring)."""
    from auditor import __version__

    eps = sorted(entry_points(group=GROUP), key=lambda e: (e.name, e.value))
    parts = [sys.version, __version__, *(f"{e.name}={e.value}" for e in eps)]
    packages = sorted({e.value.split(":")[0].split(".")[0] for e in eps} | {"auditor"})
    for package in packages:
        parts += _package_files(package)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def _build() -> list[dict[str, Any]]:
    from checks.base import check_registry

    return [
        {
            "id": m.id,
            "title": m.title,
            "tier": m.tier.value,
            "severity": m.severity.value,
            "needs": sorted(k.value for k in m.needs),
            "rationale": m.rationale,
            "remediation": m.remediation,
        }
        for m in (c.meta for _, c in check_registry().items())
    ]


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    """Atomically (two listings at once never read half a file); a cache that cannot be written is no
    error, only a slower listing next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in path.parent.glob("checks-*.json"):
            stale.unlink(missing_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as tmp:
            json.dump(rows, tmp)
        os.replace(tmp.name, path)
    except OSError:
        return


def check_catalogue() -> list[dict[str, Any]]:
    """Every installed check's metadata (FIELDS), sorted by id, from the cache when it is current."""
    folder = cache_dir()
    path = folder / f"checks-{fingerprint()}.json" if folder is not None else None
    if path is not None:
        try:
            rows = json.loads(path.read_text())
            if isinstance(rows, list) and all(isinstance(r, dict) and set(r) == set(FIELDS) for r in rows):
                return rows
        except (OSError, ValueError):
            pass
    rows = _build()
    if path is not None:
        _write(path, rows)
    return rows


def refuse_unknown_formats(formats: list[str], option: str = "--format") -> None:
    """A report format given on the command line that no installed renderer provides is a usage error
    naming the installed ones (read from the entry points: nothing is imported)."""
    from auditor.errors import UsageError

    known = sorted({e.name for e in entry_points(group="auditor.reports")})
    unknown = [f for f in formats if f not in known]
    if unknown:
        raise UsageError(
            f"{option}: no report format {', '.join(map(repr, unknown))}",
            hint=f"installed: {', '.join(known) or 'none'}",
        )
