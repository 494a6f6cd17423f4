"""The typed records of the report's derived sections: what a renderer (PDF, HTML) draws, nothing more.

Frozen dataclasses of plain values (strings, numbers, enums): no reportlab, no store, no markup. Prose
fields are already worded for people (no Python list syntax, no Markdown backticks)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from auditor.enums import Severity, Status, Tier


@dataclass(frozen=True)
class CountRow:
    """One bar group of a chart: a label and a count per category (status or requirement result)."""

    label: str
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class CountChart:
    """A grouped bar chart: categories (in drawing order) over rows (one bar group each)."""

    title: str
    categories: list[str]
    rows: list[CountRow]


@dataclass(frozen=True)
class TrendPoint:
    """One run of the same scope: its findings per status (the current run last, `current` set)."""

    run_id: int
    started_at: datetime
    run_status: str
    counts: dict[str, int]
    current: bool = False


@dataclass(frozen=True)
class Overview:
    """The executive summary's charts and the trend over previous runs of the same scope."""

    per_tier: CountChart
    per_framework: CountChart
    per_severity: CountChart
    trend: list[TrendPoint]


@dataclass(frozen=True)
class TierBox:
    """A tier as declared in the audit config (empty lists: not declared there)."""

    tier: Tier
    declared: bool
    cidrs: list[str]
    vrfs: list[str]
    vlans: list[str]
    notes: list[str]  # jump hosts, proxy, resolvers, MTU, ... worded


@dataclass(frozen=True)
class Crossing:
    """Observed traffic or reachability crossing from one zone into a tier: failing findings of one check.

    `source` is a tier value (oob, frontend, backend) or "internet"; `target` the tier crossed into."""

    source: str
    target: str
    check_id: str
    count: int
    examples: list[str]  # subjects, at most a few


@dataclass(frozen=True)
class TierPicture:
    boxes: list[TierBox]
    crossings: list[Crossing]


@dataclass(frozen=True)
class MatrixRow:
    """One aspect of one tier: declared versus observed, and the worst result of the checks behind it."""

    tier: Tier
    aspect: str
    declared: str
    observed: str
    status: Status | None  # None: no check evaluated it
    result: str  # e.g. "2 FAIL of 14"
    checks: list[str]


@dataclass(frozen=True)
class PortRow:
    """One switch port: where it sits and what it is for (the segregation manifest)."""

    device: str
    port: str
    kind: str  # ethernet, port-channel
    mode: str  # access, trunk, routed, -
    vrf: str
    vlans: str
    tier: str  # the device's tier (or the manifest's, when it declares the port)
    tenant: str
    declared: str  # what the config's port manifest declares for it, worded; "" when nothing


@dataclass(frozen=True)
class PortGroup:
    """Ports summarised: per tier, VRF and VLAN set, how many ports on how many devices."""

    tier: str
    vrf: str
    vlans: str
    tenant: str
    devices: int
    ports: int
    example: str


@dataclass(frozen=True)
class PortManifest:
    groups: list[PortGroup]
    rows: list[PortRow]  # at most `limit` rows; `total` counts them all
    total: int
    devices: int
    status: Status | None
    result: str


@dataclass(frozen=True)
class DefaultDenyRow:
    """A family of filters in one scope (an AWS region, a device tier, a cluster) and its posture."""

    family: str  # security groups, network ACLs, device ACLs, Kubernetes policies
    scope: str
    total: int
    deny_by_default: int  # filters that deny by default (no rule opening everything to anyone)
    opening: int  # filters with a rule open to any source / all traffic
    detail: str
    status: Status | None
    result: str
    checks: list[str]


@dataclass(frozen=True)
class FlowSourceRow:
    """One flow-log source: files and records read, and the window they cover."""

    source: str
    files: int
    records: int
    accepted: int
    rejected: int
    unusable: int  # NODATA, SKIPDATA and malformed records
    first_seen: datetime | None
    last_seen: datetime | None


@dataclass(frozen=True)
class FlowClassRow:
    """Conversations from one zone into another, by action (ACCEPT / REJECT)."""

    source: str  # tier value, "internet" or "unknown"
    destination: str
    action: str
    conversations: int
    records: int
    packets: int


@dataclass(frozen=True)
class FlowFindingRow:
    """A failing flow finding: an unauthorised flow, DNS to an unapproved resolver, a cross-tier flow."""

    category: str
    check_id: str
    subject: str
    found: str
    status: Status


@dataclass(frozen=True)
class LogStoreRow:
    """Where flow logs land and how long they are kept immutably."""

    destination: str
    kind: str
    immutability: str
    retention: str
    status: Status | None


@dataclass(frozen=True)
class FlowAnalysis:
    sources: list[FlowSourceRow]
    classes: list[FlowClassRow]
    findings: list[FlowFindingRow]
    stores: list[LogStoreRow]
    coverage: str  # VPCs with flow logs, worded from the X-FLOWLOGS-ENABLED findings
    retention_days: int | None  # the declared minimum
    findings_total: int = 0  # failing flow findings in all (`findings` holds the first of them)


@dataclass(frozen=True)
class LateralHop:
    """One link of a lateral-movement path: from a zone to another, what it allows, and why."""

    number: int
    source: str
    destination: str
    allows: str
    via: list[str]


@dataclass(frozen=True)
class LateralPath:
    subject: str
    source: str
    target_tier: str
    status: Status
    severity: Severity
    hops: list[LateralHop]


@dataclass(frozen=True)
class LateralAnalysis:
    paths: list[LateralPath]  # failing paths, hop by hop
    checked: int  # zone/tier pairs the check looked at
    passed: int
    not_assessed: int


@dataclass(frozen=True)
class ResponsibilityRow:
    """A control area of the shared-responsibility matrix, who operates it, and the checks it covers."""

    area: str
    owner: str  # provider, tenant, shared
    checks: list[str]
    status: Status | None
    result: str


@dataclass(frozen=True)
class NotAssessedRow:
    """A target or check that was not assessed, and why."""

    what: str  # a target name or a check id
    kind: str  # target kind, or "check"
    reason: str
    count: int  # findings NOT_ASSESSED (or 1 for a target)


@dataclass(frozen=True)
class CustodyRow:
    """One capture in the chain of custody."""

    seq: int
    target: str
    source: str  # the command or API call
    origin: str  # where it came from (host, endpoint, file)
    format: str
    collected_at: datetime | None
    sha256: str
    size: int


@dataclass(frozen=True)
class CustodySummary:
    """The captures of one target kind and format family, summarised for the body."""

    group: str
    targets: int
    captures: int
    bytes: int
    first: datetime | None
    last: datetime | None
    first_seq: int
    last_seq: int


@dataclass(frozen=True)
class Custody:
    summary: list[CustodySummary]
    rows: list[CustodyRow]


@dataclass(frozen=True)
class FindingGroup:
    """Findings of one check, status and subject pattern (digits generalised): one row of the body."""

    check_id: str
    title: str
    tier: Tier
    severity: Severity
    status: Status
    pattern: str
    count: int
    waived: int
    examples: list[str]
    found: str  # the first finding's found text, as a sample
    anchor: str  # destination of the first of these findings in the complete listing


@dataclass(frozen=True)
class Sections:
    """Everything derived for the report's sections; see reports.sections for how each is made."""

    overview: Overview
    tiers: TierPicture
    matrix: list[MatrixRow]
    ports: PortManifest
    default_deny: list[DefaultDenyRow]
    flows: FlowAnalysis
    lateral: LateralAnalysis
    responsibility: list[ResponsibilityRow]
    not_assessed: list[NotAssessedRow]
    custody: Custody
    groups: list[FindingGroup]
    notes: list[str] = field(default_factory=list)  # what could not be derived, worded
