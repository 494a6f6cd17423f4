"""Cross-cutting checks: flow-log evidence, lateral movement, declared-vs-live drift."""

from checks.cross.declared_vs_live import DeclaredVsLive
from checks.cross.flowlogs_enabled import FlowLogsEnabled
from checks.cross.flowlogs_immutable import FlowLogsImmutable
from checks.cross.flows_no_cross_tier import FlowsNoCrossTier
from checks.cross.lateral_no_path import LateralNoPath

CHECKS: list[type] = [LateralNoPath, FlowLogsEnabled, FlowLogsImmutable, FlowsNoCrossTier, DeclaredVsLive]
