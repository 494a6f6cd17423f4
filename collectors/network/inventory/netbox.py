"""A NetBox export of dcim devices (`/api/dcim/devices/` JSON: a list, or a page with `results`).
Address from primary_ip4/primary_ip (prefix length dropped), platform from the platform slug, role
from role/device_role, tier from the `tier` custom field or a `tier-<name>` tag."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from auditor.config.models import InventorySource
from auditor.normalize import Problem
from collectors.network.inventory.common import Imported, make_device


def load_netbox(path: Path, source: InventorySource) -> Imported:
    out = Imported()
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        out.problems.append(
            Problem(str(path), f"cannot read NetBox export: {exc}", hint="export dcim devices as JSON")
        )
        return out
    rows = doc.get("results", []) if isinstance(doc, dict) else doc
    for i, dev in enumerate(rows if isinstance(rows, list) else []):
        if not isinstance(dev, dict) or not dev.get("name"):
            out.problems.append(Problem(f"{path}[{i}]", "device without a name", hint="name it in NetBox"))
            continue
        ip = _slug(dev.get("primary_ip4")) or _slug(dev.get("primary_ip"), "address")
        make_device(
            out,
            str(path),
            name=str(dev["name"]),
            host=str(ip).split("/")[0] if ip else None,
            platform=_slug(dev.get("platform")),
            tier=(dev.get("custom_fields") or {}).get("tier") or _tier_tag(dev.get("tags") or []),
            role=_slug(dev.get("role") or dev.get("device_role")),
            source=source,
        )
    return out


def _slug(obj: Any, key: str = "slug") -> Any:
    if isinstance(obj, dict):
        return obj.get(key) or obj.get("address") or obj.get("name")
    return obj


def _tier_tag(tags: list[Any]) -> str | None:
    for tag in tags:
        slug = _slug(tag)
        if isinstance(slug, str) and slug.startswith("tier-"):
            return slug[len("tier-") :]
    return None
