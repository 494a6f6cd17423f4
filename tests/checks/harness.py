"""Build a CheckContext from a fixture folder: intent.yaml, evidence.yaml, expected.yaml.

evidence.yaml lists targets, each with the fact kinds its evidence covers and its facts:
  - target: {name: be-leaf1, kind: device, tier: backend, status: ok}
    covers: [vrf, route, bgp_neighbor]
    facts:
      - {kind: vrf, device: be-leaf1, name: RDMA-A}
expected.yaml lists the findings as {status, subject} (order-insensitive, exact set).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from auditor.config.models import Intent
from auditor.enums import FactKind, TargetStatus, Tier
from auditor.facts import Coverage, FactRecord, record_from_json
from auditor.store.reader import StoredFact
from checks.base import CheckContext, FactView, TargetView


def load_case(folder: Path) -> tuple[CheckContext, list[dict[str, Any]]]:
    intent = Intent.model_validate(yaml.safe_load((folder / "intent.yaml").read_text()) or {})
    evidence = yaml.safe_load((folder / "evidence.yaml").read_text()) or []
    expected = yaml.safe_load((folder / "expected.yaml").read_text()) or []
    facts: list[StoredFact[FactRecord]] = []
    targets: list[TargetView] = []
    for seq, entry in enumerate(evidence, start=1):
        t = entry["target"]
        targets.append(
            TargetView(
                name=t["name"],
                kind=t.get("kind", "device"),
                platform=t.get("platform"),
                tier=Tier(t["tier"]) if t.get("tier") else None,
                role=t.get("role"),
                status=TargetStatus(t.get("status", "ok")),
                reason=t.get("reason"),
            )
        )
        sha = f"{seq:064x}"
        records: list[FactRecord] = [
            Coverage(target=t["name"], covers=FactKind(k)) for k in entry.get("covers", [])
        ]
        for raw in entry.get("facts", []):
            data = dict(raw)
            records.append(record_from_json(data.pop("kind"), data))
        for record in records:
            facts.append(StoredFact(len(facts) + 1, record.kind, t["name"], seq, sha, record))
    return CheckContext(intent=intent, facts=FactView(facts), targets=tuple(targets)), expected
