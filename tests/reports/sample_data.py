"""Builders of realistic ReportData for the renderer tests.

The sample looks like a real run of the auditor on a GPU cluster: backend leaves with a leaked default
route, a frontend namespace without default-deny, an unreachable out-of-band switch (NOT_ASSESSED), an
undeclared tier (NOT_APPLICABLE), and evidence references with real-looking sha256 hashes."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, timedelta

from auditor.enums import RunStatus, Severity, Status, TargetStatus, Tier, WaiverState
from reports.controls import control_matrix
from reports.mappings import Framework
from reports.model import (
    CheckInfo,
    EvidenceRef,
    FindingInfo,
    ProblemInfo,
    ReportData,
    RunInfo,
    TargetInfo,
    Verification,
    WaiverInfo,
    WaiverUse,
)

STARTED = datetime(2025, 3, 14, 9, 26, 53, tzinfo=UTC)
GENERATED = datetime(2025, 3, 14, 9, 41, 7, tzinfo=UTC)
RUN_ID = 4217


def sha(text: str) -> str:
    """A stable, realistic sha256 hex digest derived from a label."""
    return hashlib.sha256(text.encode()).hexdigest()


CHAIN_HEAD = sha("chain-head-run-4217")

WAIVER = WaiverInfo(
    check="T1-OOB-MGMT-FROM-JUMP-ONLY",
    target="be-leaf1.example",
    subject="* acl MGMT-IN",
    owner="netops@example.com",
    reason="Corporate LAN SSH kept until the jump-host rollout (CHG-4711)",
    expires=date(2025, 6, 30),
)
EXPIRED_WAIVER = WaiverInfo(
    check="T2-NS-DEFAULT-DENY",
    target="prod-k8s",
    subject="namespace tenant-*",
    owner="platform@example.com",
    reason="Egress default-deny rollout in progress",
    expires=date(2025, 1, 31),
)
HOST_KEY_NOTE = (
    "SSH host-key verification disabled by the operator for this target (insecure_host_keys: true)"
)

# Two small frameworks over the sample checks, so every requirement result appears: FAIL, ERROR,
# NOT_ASSESSED (from a gap and from a check that did not run), WAIVED, PASS and NOT_APPLICABLE.
FRAMEWORKS = [
    Framework.model_validate(
        {
            "key": "soc2",
            "framework": "SOC 2",
            "title": "Trust Services Criteria",
            "version": "2017 TSC",
            "source": "https://www.aicpa-cima.com/resources/download/2017-trust-services-criteria",
            "requirements": [
                {
                    "id": "CC6.1",
                    "title": "Logical access & segmentation",
                    "check_ids": ["T3-VRF-NO-DEFAULT-ROUTE"],
                },
                {"id": "CC6.6", "title": "Boundary protection", "check_ids": ["T1-OOB-MGMT-FROM-JUMP-ONLY"]},
                {"id": "CC6.7", "title": "Restricted transmission", "check_ids": ["T2-EGRESS-VIA-PROXY"]},
                {
                    "id": "CC7.2",
                    "title": "Anomaly monitoring",
                    "check_ids": ["X-FLOWS-NO-CROSS-TIER"],
                    "note": "flow logs reviewed against the tiers",
                },
            ],
        }
    ),
    Framework.model_validate(
        {
            "key": "nist-sp-800-53r5",
            "framework": "NIST SP 800-53",
            "title": "Security and Privacy Controls",
            "version": "Revision 5",
            "source": "https://doi.org/10.6028/NIST.SP.800-53r5",
            "requirements": [
                {"id": "CM-6", "title": "Configuration settings", "check_ids": ["T3-MTU-JUMBO"]},
                {"id": "SC-7(5)", "title": "Deny by default", "check_ids": ["T2-NS-DEFAULT-DENY"]},
                {"id": "AU-9", "title": "Protect audit information", "check_ids": ["X-FLOW-LOGS-IMMUTABLE"]},
            ],
        }
    ),
]

CHECKS: list[CheckInfo] = [
    CheckInfo(
        "T1-OOB-NOT-ROUTED-ELSEWHERE",
        "Out-of-band management prefixes are not routed to any other tier",
        Tier.OOB,
        Severity.CRITICAL,
        "A routed management network lets a compromised workload reach BMCs and switch consoles.",
        "Remove routes to the OOB prefixes from every non-management VRF and filter them at the border.",
    ),
    CheckInfo(
        "T1-OOB-MGMT-FROM-JUMP-ONLY",
        "IPMI, Redfish and SSH on management ports only from declared jump hosts",
        Tier.OOB,
        Severity.HIGH,
        "Management protocols are the keys to the hardware; only vetted jump hosts may reach them.",
        "Restrict the management ACL sources to the declared jump hosts.",
    ),
    CheckInfo(
        "T2-NS-DEFAULT-DENY",
        "Every tenant namespace has default-deny ingress and egress",
        Tier.FRONTEND,
        Severity.HIGH,
        "Without default-deny, any pod can reach any other tenant's services.",
        "Apply a NetworkPolicy selecting all pods with empty ingress and egress rules.",
    ),
    CheckInfo(
        "T2-EGRESS-VIA-PROXY",
        "Internet egress only through the declared forward proxy",
        Tier.FRONTEND,
        Severity.MEDIUM,
        "Direct egress allows exfiltration of model weights and datasets.",
        "Remove NAT/internet gateway routes from frontend subnets; route through the proxy.",
    ),
    CheckInfo(
        "T3-VRF-NO-DEFAULT-ROUTE",
        "Backend RDMA VRFs carry no default route",
        Tier.BACKEND,
        Severity.CRITICAL,
        "A default route in the RDMA fabric is a path out of the isolated GPU network.",
        "Withdraw 0.0.0.0/0 and ::/0 from the backend VRFs and stop route leaking into them.",
    ),
    CheckInfo(
        "T3-MTU-JUMBO",
        "Backend interfaces run MTU 9000 or more end to end",
        Tier.BACKEND,
        Severity.MEDIUM,
        "RoCEv2 throughput collapses when a hop fragments or drops jumbo frames.",
        "Set MTU 9214 on every backend leaf and spine interface.",
    ),
    CheckInfo(
        "X-FLOW-LOGS-IMMUTABLE",
        "VPC flow logs enabled and kept under object lock",
        Tier.CROSS,
        Severity.HIGH,
        "Flow logs are the evidence that no unauthorized flow reached tier 1 or tier 3.",
        "Enable flow logs on every VPC and deliver them to an S3 bucket with Object Lock.",
    ),
]

TARGETS: list[TargetInfo] = [
    TargetInfo("be-leaf1.example", "device", "eos", Tier.BACKEND, "leaf", TargetStatus.OK, None, 14),
    TargetInfo("be-leaf2.example", "device", "eos", Tier.BACKEND, "leaf", TargetStatus.OK, None, 14),
    TargetInfo(
        "be-spine1.example",
        "device",
        "nxos",
        Tier.BACKEND,
        "spine",
        TargetStatus.PARTIAL,
        "show interface timed out after 30 s; 11 of 12 commands captured",
        11,
        [HOST_KEY_NOTE],
    ),
    TargetInfo(
        "oob-sw1.example",
        "device",
        "eos",
        Tier.OOB,
        "mgmt-switch",
        TargetStatus.FAILED,
        "SSH authentication failed for user audit-ro",
        0,
    ),
    TargetInfo("prod-k8s", "kubernetes", None, Tier.FRONTEND, None, TargetStatus.OK, None, 6),
    TargetInfo("aws:audit/us-east-1", "aws", None, None, None, TargetStatus.OK, None, 9),
]

PROBLEMS: list[ProblemInfo] = [
    ProblemInfo(
        "oob-sw1.example",
        "ssh://oob-sw1.example:22",
        "authentication failed for user 'audit-ro'",
        "check AUDIT_USER/AUDIT_PASS and the device's AAA configuration",
    ),
    ProblemInfo(
        "be-spine1.example",
        "show interface | json",
        "command timed out after 30 s",
        "raise the device timeout or collect this command offline",
    ),
    ProblemInfo(
        None,
        "evidence/flowlogs/2025-03-13.log.gz",
        "line 88412: truncated gzip stream",
        "re-download the flow log object from S3",
    ),
]


def _ref(seq: int, source: str, origin: str) -> EvidenceRef:
    return EvidenceRef(seq=seq, sha256=sha(f"capture-{seq}"), source=source, origin=origin)


def sample_findings() -> list[FindingInfo]:
    """A mixed set of findings covering every tier and every status."""
    rib = "show ip route vrf all | json"
    return [
        FindingInfo(
            "T3-VRF-NO-DEFAULT-ROUTE",
            "Backend RDMA VRFs carry no default route",
            Tier.BACKEND,
            Severity.CRITICAL,
            Status.FAIL,
            "be-leaf1.example vrf RDMA-A",
            "be-leaf1.example",
            "VRF RDMA-A has a default route learned over BGP from 10.30.255.1",
            "no route to 0.0.0.0/0 or ::/0 in VRF RDMA-A",
            "0.0.0.0/0 via 10.30.255.1 (bgp, leaked from VRF FRONTEND)",
            [101, 102],
            [_ref(17, rib, "be-leaf1.example"), _ref(18, "show running-config", "be-leaf1.example")],
        ),
        FindingInfo(
            "T3-VRF-NO-DEFAULT-ROUTE",
            "Backend RDMA VRFs carry no default route",
            Tier.BACKEND,
            Severity.CRITICAL,
            Status.PASS,
            "be-leaf2.example vrf RDMA-A",
            "be-leaf2.example",
            "no default route",
            "no route to 0.0.0.0/0 or ::/0 in VRF RDMA-A",
            "no default route (412 routes inspected)",
            [140],
            [_ref(31, rib, "be-leaf2.example")],
        ),
        FindingInfo(
            "T3-MTU-JUMBO",
            "Backend interfaces run MTU 9000 or more end to end",
            Tier.BACKEND,
            Severity.MEDIUM,
            Status.FAIL,
            "be-leaf2.example Ethernet49/1",
            "be-leaf2.example",
            "uplink to be-spine1 runs the default MTU",
            "mtu >= 9000",
            "mtu 1500",
            [155],
            [_ref(33, "show interfaces | json", "be-leaf2.example")],
        ),
        FindingInfo(
            "T3-MTU-JUMBO",
            "Backend interfaces run MTU 9000 or more end to end",
            Tier.BACKEND,
            Severity.MEDIUM,
            Status.NOT_ASSESSED,
            "be-spine1.example",
            "be-spine1.example",
            "interface capture missing: command timed out",
            "mtu >= 9000 on every backend interface",
            "no evidence (show interface timed out)",
            [],
            [],
        ),
        FindingInfo(
            "T1-OOB-NOT-ROUTED-ELSEWHERE",
            "Out-of-band management prefixes are not routed to any other tier",
            Tier.OOB,
            Severity.CRITICAL,
            Status.NOT_ASSESSED,
            "oob-sw1.example",
            "oob-sw1.example",
            "target could not be collected",
            "10.250.0.0/16 absent from every non-MGMT VRF",
            "no evidence (SSH authentication failed)",
            [],
            [],
        ),
        FindingInfo(
            "T1-OOB-NOT-ROUTED-ELSEWHERE",
            "Out-of-band management prefixes are not routed to any other tier",
            Tier.OOB,
            Severity.CRITICAL,
            Status.PASS,
            "be-leaf1.example",
            "be-leaf1.example",
            "no OOB prefix outside MGMT",
            "10.250.0.0/16 absent from every non-MGMT VRF",
            "absent from RDMA-A, RDMA-B, default",
            [101],
            [_ref(17, rib, "be-leaf1.example")],
        ),
        FindingInfo(
            "T1-OOB-MGMT-FROM-JUMP-ONLY",
            "IPMI, Redfish and SSH on management ports only from declared jump hosts",
            Tier.OOB,
            Severity.HIGH,
            Status.FAIL,
            "be-leaf1.example Management1 acl MGMT-IN",
            "be-leaf1.example",
            "SSH permitted from the whole corporate LAN",
            "permit tcp/22, udp/623, tcp/443 only from 10.250.200.10/32",
            "permit tcp 10.0.0.0/8 any eq 22 (seq 30)",
            [120, 121],
            [
                _ref(18, "show running-config", "be-leaf1.example"),
                _ref(19, "show ip access-lists | json", "be-leaf1.example"),
            ],
            WAIVER,
        ),
        FindingInfo(
            "T2-NS-DEFAULT-DENY",
            "Every tenant namespace has default-deny ingress and egress",
            Tier.FRONTEND,
            Severity.HIGH,
            Status.FAIL,
            "namespace tenant-<acme> & co",
            "prod-k8s",
            "no policy selects all pods for egress",
            "NetworkPolicy with podSelector {} and policyTypes [Ingress, Egress]",
            "only ingress default-deny (policy deny-ingress); egress open",
            [201],
            [_ref(44, "GET /apis/networking.k8s.io/v1/networkpolicies", "prod-k8s")],
        ),
        FindingInfo(
            "T2-NS-DEFAULT-DENY",
            "Every tenant namespace has default-deny ingress and egress",
            Tier.FRONTEND,
            Severity.HIGH,
            Status.PASS,
            "namespace tenant-globex",
            "prod-k8s",
            "default-deny in both directions",
            "NetworkPolicy with podSelector {} and policyTypes [Ingress, Egress]",
            "policy default-deny-all",
            [202],
            [_ref(44, "GET /apis/networking.k8s.io/v1/networkpolicies", "prod-k8s")],
        ),
        FindingInfo(
            "T2-EGRESS-VIA-PROXY",
            "Internet egress only through the declared forward proxy",
            Tier.FRONTEND,
            Severity.MEDIUM,
            Status.ERROR,
            "subnet-0a1b2c3d4e5f60718",
            "aws:audit/us-east-1",
            "check raised KeyError: 'Routes'",
            "0.0.0.0/0 only via the proxy ENI eni-0f00ba4",
            "check error: route table rtb-0c0ffee has no Routes key",
            [301],
            [_ref(52, "ec2:DescribeRouteTables", "aws:audit/us-east-1")],
        ),
        FindingInfo(
            "X-FLOW-LOGS-IMMUTABLE",
            "VPC flow logs enabled and kept under object lock",
            Tier.CROSS,
            Severity.HIGH,
            Status.FAIL,
            "vpc-0123456789abcdef0",
            "aws:audit/us-east-1",
            "flow logs delivered to a bucket without Object Lock",
            "flow log ACTIVE, destination bucket with Object Lock (COMPLIANCE)",
            "flow log ACTIVE to s3://cluster-flowlogs (Object Lock disabled)",
            [310, 311],
            [
                _ref(55, "ec2:DescribeFlowLogs", "aws:audit/us-east-1"),
                _ref(56, "s3:GetObjectLockConfiguration", "aws:audit/us-east-1"),
            ],
        ),
        FindingInfo(
            "X-FLOW-LOGS-IMMUTABLE",
            "VPC flow logs enabled and kept under object lock",
            Tier.CROSS,
            Severity.HIGH,
            Status.NOT_APPLICABLE,
            "vpc-0fedcba9876543210 (sandbox)",
            "aws:audit/us-east-1",
            "VPC not tagged with any declared tier",
            "flow log ACTIVE, destination bucket with Object Lock (COMPLIANCE)",
            "VPC carries no tier tag",
            [],
            [],
        ),
    ]


def make_report_data(findings: list[FindingInfo] | None = None) -> ReportData:
    """A finished, partial run (one target failed) with the given or the sample findings."""
    fs = sample_findings() if findings is None else findings
    run = RunInfo(
        id=RUN_ID,
        status=RunStatus.PARTIAL,
        started_at=STARTED,
        finished_at=STARTED + timedelta(minutes=13, seconds=41),
        scope="Production GPU cluster us-east-1 (pods A-C): OOB, frontend and backend RDMA fabric",
        tool_version="0.1.0",
        config_sha256=sha("auditor.yaml"),
        chain_head=CHAIN_HEAD,
        facts_digest=sha("facts"),
        findings_digest=sha("findings"),
        capture_count=54,
        fact_count=1873,
        declared_tiers=[Tier.OOB, Tier.FRONTEND, Tier.BACKEND],
    )
    return ReportData(
        run=run,
        targets=list(TARGETS),
        checks=list(CHECKS),
        findings=fs,
        problems=list(PROBLEMS),
        generated_at=GENERATED,
        summary=ReportData.summarize(fs),
        controls=control_matrix(FRAMEWORKS, fs),
        waivers=[
            WaiverUse(0, WAIVER, WaiverState.ACTIVE, sum(1 for f in fs if f.waiver == WAIVER)),
            WaiverUse(1, EXPIRED_WAIVER, WaiverState.EXPIRED, 1),
        ],
        verification=Verification(verified=True, captures_checked=54, mismatch=None),
    )


_STATUS_CYCLE = [
    Status.PASS,
    Status.FAIL,
    Status.PASS,
    Status.NOT_ASSESSED,
    Status.ERROR,
    Status.NOT_APPLICABLE,
]


def many_findings(count: int, *, long_text: bool = True) -> list[FindingInfo]:
    """`count` findings over every check and status; with `long_text`, texts that wrap over many lines,
    an unbroken 150-character token in every 25th, and every 48th (all FAIL) far longer than a cell
    may show."""
    out: list[FindingInfo] = []
    clause = (
        "route-map RM-LEAK-FRONTEND permit 10 match ip address prefix-list PL-ANY set community 65000:100 "
    )
    for i in range(count):
        check = CHECKS[i % len(CHECKS)]
        status = _STATUS_CYCLE[i % len(_STATUS_CYCLE)]
        repeat = (30 if i % 48 == 1 else 2) if long_text else 1
        token = "x" * (150 if long_text and i % 25 == 0 else 0)
        refs = [
            _ref(1000 + i * 3 + k, "show running-config", f"leaf{i % 64}.example") for k in range(1 + i % 3)
        ]
        out.append(
            FindingInfo(
                check.id,
                check.title,
                check.tier,
                check.severity,
                status,
                f"leaf{i % 64}.example Ethernet{i % 48 + 1}/{i % 4 + 1} finding-{i:05d}",
                f"leaf{i % 64}.example",
                f"finding {i}: {clause}",
                f"expected state {i}: {clause * repeat}",
                f"found state {i}: {clause * (repeat - 1 if long_text else 1)}{token}",
                [i * 2, i * 2 + 1],
                refs,
            )
        )
    return out
