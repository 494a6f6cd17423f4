"""X-FLOWS-NO-CROSS-TIER labels a source "internet" by the intent's address space, not ipaddress's."""

from __future__ import annotations

from pathlib import Path

import yaml

from checks.cross.flows_no_cross_tier import FlowsNoCrossTier
from tests.checks.harness import load_case

EVIDENCE = [
    {
        "target": {"name": "flowlogs:x", "kind": "flow-logs"},
        "covers": ["flow_conversation"],
        "facts": [
            {"kind": "flow_conversation", "source": "a", "src_addr": src, "dst_addr": "10.250.1.1",
             "dst_port": 22, "protocol": 6, "action": "ACCEPT", "packets": 1, "records": 1}
            for src in ("192.0.2.7", "11.1.1.1", "8.8.8.8")
        ],
    }
]  # fmt: skip


def _found(tmp_path: Path, addressing: dict[str, list[str]]) -> dict[str, str]:
    intent = {"tiers": {"oob": {"cidrs": ["10.250.0.0/16"]}}, "addressing": addressing}
    (tmp_path / "intent.yaml").write_text(yaml.safe_dump(intent))
    (tmp_path / "evidence.yaml").write_text(yaml.safe_dump(EVIDENCE))
    (tmp_path / "expected.yaml").write_text("[]")
    ctx, _ = load_case(tmp_path)
    return {
        f.subject.split()[0]: f.found for f in FlowsNoCrossTier().evaluate(ctx) if f.status.value == "FAIL"
    }


def test_labels_follow_the_declared_address_space(tmp_path: Path) -> None:
    builtin = _found(tmp_path, {})
    assert "from undeclared space" in builtin["192.0.2.7"]  # documentation range: not public by default
    assert "from internet" in builtin["11.1.1.1"] and "from internet" in builtin["8.8.8.8"]
    declared = _found(tmp_path, {"external": ["192.0.2.0/24"], "internal": ["11.0.0.0/8"]})
    assert "from internet" in declared["192.0.2.7"]
    assert "from undeclared space" in declared["11.1.1.1"]
    assert "from internet" in declared["8.8.8.8"]
