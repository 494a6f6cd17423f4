"""Two sealed runs of one scope with known differences, for the alert tests: run A, then run B in which a
finding newly fails (its text full of Slack and syslog metacharacters), an accepted flow into the backend
appears, a device stops answering, one failure stays failing, one new failure is waived and one is below the
alert threshold."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from auditor.enums import RunStatus, TargetStatus
from auditor.store.writer import FindingRow, RunWriter

HOSTILE = '<!channel> & "boss" <http://evil.example|click here>\nsecond line ] with \\ backslash'
STILL = FindingRow(
    "T3-VRF-NO-DEFAULT-ROUTE", "FAIL", "critical", "backend", "leaf1", "vrf RDMA-A", "m", "e", "f", [], []
)
TLS_PASS = FindingRow(
    "T2-INGRESS-TLS", "PASS", "high", "frontend", "leaf1", 'ingress "shop]"', "m", "e", "ok", [], []
)
TLS_FAIL = FindingRow(
    "T2-INGRESS-TLS", "FAIL", "high", "frontend", "leaf1", 'ingress "shop]"', "m", "e", HOSTILE, [], []
)
FLOW = FindingRow(
    "X-FLOWS-NO-CROSS-TIER",
    "FAIL",
    "critical",
    "cross",
    "flows",
    "203.0.113.9 -> 10.30.0.5:4791",
    "m",
    "e",
    "ACCEPT 203.0.113.9 -> 10.30.0.5 udp/4791 (internet into backend)",
    [],
    [],
)
WAIVED = FindingRow(
    "T2-NS-DEFAULT-DENY",
    "FAIL",
    "high",
    "frontend",
    "k8s",
    "ns shop",
    "m",
    "e",
    "f",
    [],
    [],
    {"check": "T2-NS-DEFAULT-DENY", "owner": "o", "reason": "r", "expires": "2099-01-01"},
)
MINOR = FindingRow("T2-DEFAULT-SG-EMPTY", "FAIL", "info", "frontend", "aws", "sg-1", "m", "e", "f", [], [])


def make_run(
    engine: Engine,
    scope: str,
    targets: Sequence[tuple[str, str, TargetStatus, str | None]],
    findings: list[FindingRow],
    config: dict[str, Any] | None = None,
) -> int:
    writer = RunWriter.start(engine, config=config or {}, config_sha256="0" * 64, scope=scope)
    for name, kind, status, reason in targets:
        tid = writer.add_target(kind=kind, name=name)
        writer.finish_target(tid, status, reason)
    writer.add_findings(findings)
    writer.seal(RunStatus.PARTIAL)
    return writer.run_id


@dataclass(frozen=True)
class TwoRuns:
    a: int
    b: int


def two_runs(engine: Engine, scope: str = "lab") -> TwoRuns:
    ok = TargetStatus.OK
    a = make_run(
        engine,
        scope,
        [("leaf1", "device", ok, None), ("leaf2", "device", ok, None), ("flows", "flow-logs", ok, None)],
        [STILL, TLS_PASS],
    )
    b = make_run(
        engine,
        scope,
        [
            ("leaf1", "device", ok, None),
            ("leaf2", "device", TargetStatus.FAILED, "connect: connection refused (10.0.0.2:22)"),
            ("flows", "flow-logs", ok, None),
        ],
        [STILL, TLS_FAIL, FLOW, WAIVED, MINOR],
    )
    return TwoRuns(a, b)
