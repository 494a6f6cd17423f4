"""The run as an OSCAL 1.1.2 `assessment-results` document (NIST OSCAL JSON), for GRC tools.

One result for the run; `reviewed-controls` names the NIST SP 800-53 rev. 5 controls the run assessed;
one observation per evidence capture a finding rests on (with its seq and sha256); one finding per
failing, waived, erroring or not-assessed check finding and 800-53 control of its check, plus one
summary finding for each reviewed control that no such finding covers. docs/oscal.md describes it.
UUIDs are uuid5 of the run id, its chain head and a stable key, and nothing depends on the time of
rendering, so the same run always renders the same bytes."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any

from auditor.enums import Status
from reports.json_report import finding_sort_key, iso_utc, output_path, write_atomic
from reports.model import (
    CheckInfo,
    EvidenceRef,
    FindingInfo,
    FrameworkResult,
    ReportData,
    RequirementResult,
    RequirementStatus,
)

OSCAL_VERSION = "1.1.2"
# Namespace of the properties this tool defines (OSCAL asks for one on every non-OSCAL property name).
NS = "urn:segmentation-auditor:oscal"
UUID_ROOT = uuid.uuid5(uuid.NAMESPACE_URL, NS)
NIST_800_53_KEY = "nist-sp-800-53r5"
# Check findings that become OSCAL findings; PASS and NOT_APPLICABLE only feed the observations.
REPORTED = (Status.FAIL, Status.ERROR, Status.NOT_ASSESSED)
_CONTROL = re.compile(r"^([A-Za-z]{2})-(\d+)(?:\((\d+)\))?$")


def oscal_control_id(requirement_id: str) -> str:
    """`AC-4` -> `ac-4`, `SC-7(5)` -> `sc-7.5`: the control ids of NIST's OSCAL SP 800-53 rev. 5 catalog."""
    m = _CONTROL.match(requirement_id.strip())
    if m:
        family, number, enhancement = m.groups()
        return f"{family.lower()}-{number}" + (f".{enhancement}" if enhancement else "")
    token = re.sub(r"[^\w.\-]+", ".", requirement_id.strip().lower()).strip(".")
    return token if token and not token[0].isdigit() else f"_{token}"


def one_line(text: str) -> str:
    """OSCAL strings (prop values, hashes) are one line without leading or trailing blanks."""
    return " ".join(text.split()) or "-"


@dataclass(frozen=True)
class Control:
    """An 800-53 requirement of the mapping as OSCAL sees it: the catalog id and this run's result."""

    control_id: str
    requirement: RequirementResult


@dataclass
class _Index:
    """The mappings turned around: which 800-53 controls and other requirements each check evidences."""

    controls: list[Control] = field(default_factory=list)
    by_check: dict[str, list[Control]] = field(default_factory=dict)
    others: dict[str, list[tuple[FrameworkResult, str]]] = field(default_factory=dict)
    frameworks: list[FrameworkResult] = field(default_factory=list)

    @classmethod
    def build(cls, frameworks: Iterable[FrameworkResult]) -> _Index:
        index = cls()
        for fw in sorted(frameworks, key=lambda fw: fw.key):
            index.frameworks.append(fw)
            nist = fw.key == NIST_800_53_KEY
            for req in fw.requirements:
                control = Control(oscal_control_id(req.id), req) if nist else None
                if control is not None:
                    index.controls.append(control)
                for c in req.checks:
                    if control is not None:
                        index.by_check.setdefault(c.check_id, []).append(control)
                    else:
                        index.others.setdefault(c.check_id, []).append((fw, req.id))
        return index


class _Ids:
    """uuid5 of the run's identity (id and chain head) and a key naming the element: stable per run."""

    def __init__(self, data: ReportData) -> None:
        self._base = uuid.uuid5(UUID_ROOT, f"run/{data.run.id}/{data.run.chain_head or ''}")

    def __call__(self, *key: object) -> str:
        return str(uuid.uuid5(self._base, "/".join(str(k) for k in key)))


def _prop(name: str, value: object, cls: str | None = None) -> dict[str, str]:
    out = {"name": name, "ns": NS, "value": one_line(str(value))}
    if cls:
        out["class"] = cls
    return out


def _finding_keys(findings: list[FindingInfo]) -> list[tuple[FindingInfo, str]]:
    """Each finding in the JSON report's order with a stable key: a hash of its content (plus a counter
    for exact duplicates), so its OSCAL uuids survive re-rendering and do not move with other rows."""
    out: list[tuple[FindingInfo, str]] = []
    seen: dict[str, int] = {}
    for f in sorted(findings, key=finding_sort_key):
        digest = hashlib.sha256(json.dumps(finding_sort_key(f)).encode()).hexdigest()[:32]
        seen[digest] = seen.get(digest, 0) + 1
        out.append((f, digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"))
    return out


def _captures(findings: Iterable[FindingInfo]) -> list[EvidenceRef]:
    """Every capture some finding (passing ones included) rests on, once, in chain order."""
    by_key = {(e.seq, e.sha256): e for f in findings for e in f.evidence}
    return [by_key[k] for k in sorted(by_key)]


def _result_label(f: FindingInfo) -> str:
    """The check finding's outcome in the control matrix's words: WAIVED for a waived failure."""
    return RequirementStatus.WAIVED.value if f.waived else f.status.value


class _Builder:
    def __init__(self, data: ReportData) -> None:
        self.data = data
        self.run = data.run
        self.id = _Ids(data)
        self.index = _Index.build(data.controls)
        self.checks: dict[str, CheckInfo] = {c.id: c for c in data.checks}
        self.collected = iso_utc(self.run.started_at)
        self.tool = self.id("component", "auditor")

    # -- evidence ------------------------------------------------------------------------------------

    def observation_id(self, e: EvidenceRef) -> str:
        return self.id("observation", e.seq, e.sha256)

    def resource_id(self, e: EvidenceRef) -> str:
        return self.id("resource", "capture", e.seq, e.sha256)

    def observation(self, e: EvidenceRef) -> dict[str, Any]:
        return {
            "uuid": self.observation_id(e),
            "title": f"Capture #{e.seq}: {e.source}",
            "description": (
                f"Raw capture #{e.seq} of run {self.run.id} in the evidence chain: `{e.source}` from "
                f"{e.origin}, redacted and stored with sha256 {e.sha256}."
            ),
            "props": [_prop("capture-seq", e.seq), _prop("capture-sha256", e.sha256)],
            "methods": ["EXAMINE"],
            "origins": [self.origin()],
            "relevant-evidence": [
                {
                    "href": f"#{self.resource_id(e)}",
                    "description": f"capture #{e.seq}, sha256 {e.sha256}: {e.source} ({e.origin})",
                    "props": [
                        _prop("capture-seq", e.seq),
                        _prop("capture-sha256", e.sha256),
                        _prop("capture-source", e.source),
                        _prop("capture-origin", e.origin),
                    ],
                }
            ],
            "collected": self.collected,
        }

    def capture_resource(self, e: EvidenceRef) -> dict[str, Any]:
        return {
            "uuid": self.resource_id(e),
            "title": f"Capture #{e.seq} of run {self.run.id}: {e.source}",
            "description": (
                f"Stored in the auditor's evidence store; `auditor evidence export --run {self.run.id}` "
                f"writes it out and `auditor verify --run {self.run.id}` rechecks its hash and the chain."
            ),
            "props": [_prop("capture-seq", e.seq), _prop("capture-origin", e.origin)],
            "rlinks": [
                {
                    "href": f"urn:segmentation-auditor:run:{self.run.id}:capture:{e.seq}",
                    "hashes": [{"algorithm": "SHA-256", "value": e.sha256}],
                }
            ],
        }

    def plan_resource(self) -> dict[str, Any]:
        """What `import-ap` points at: no OSCAL assessment plan exists; the run's audit config is the plan."""
        return {
            "uuid": self.id("resource", "assessment-plan"),
            "title": f"Assessment plan of run {self.run.id}: the audit configuration",
            "description": (
                "The auditor does not write an OSCAL assessment plan. What was to be assessed and how "
                "(the declared tiers, the evidence sources, the waivers) is the audit configuration "
                f"stored with run {self.run.id}, sha256 {self.run.config_sha256}. Point `import-ap` at "
                "your own assessment plan before importing into a tool that resolves it."
            ),
            "props": [_prop("config-sha256", self.run.config_sha256)],
            "rlinks": [
                {
                    "href": f"urn:segmentation-auditor:run:{self.run.id}:config",
                    "hashes": [{"algorithm": "SHA-256", "value": self.run.config_sha256}],
                }
            ],
        }

    def origin(self) -> dict[str, Any]:
        return {"actors": [{"type": "tool", "actor-uuid": self.tool}]}

    # -- findings and risks ----------------------------------------------------------------------------

    def related(self, evidence: Iterable[EvidenceRef]) -> list[dict[str, str]]:
        ids = {self.observation_id(e): None for e in sorted(evidence, key=lambda e: (e.seq, e.sha256))}
        return [{"observation-uuid": i} for i in ids]

    def other_requirements(self, check_id: str) -> list[dict[str, str]]:
        return [_prop("mapped-requirement", req, fw.key) for fw, req in self.index.others.get(check_id, [])]

    def finding_props(self, f: FindingInfo) -> list[dict[str, str]]:
        props = [
            _prop("result", _result_label(f)),
            _prop("check-status", f.status.value),
            _prop("check-id", f.check_id),
            _prop("subject", f.subject),
            _prop("tier", f.tier.value),
            _prop("severity", f.severity.value),
        ]
        if f.target:
            props.append(_prop("target", f.target))
        if f.waiver is not None:
            props += [
                _prop("waived", "true"),
                _prop("waiver-owner", f.waiver.owner),
                _prop("waiver-expires", f.waiver.expires.isoformat()),
            ]
        return props + self.other_requirements(f.check_id)

    def status(self, f: FindingInfo) -> dict[str, str]:
        if f.status is Status.FAIL and f.waiver is not None:
            return {
                "state": "not-satisfied",
                "reason": "fail",
                "remarks": (
                    f"Failed, and waived by {f.waiver.owner} until {f.waiver.expires.isoformat()}: "
                    f"{f.waiver.reason} (an accepted risk, see the related risk)."
                ),
            }
        if f.status is Status.FAIL:
            return {"state": "not-satisfied", "reason": "fail"}
        label = "not assessed" if f.status is Status.NOT_ASSESSED else "not assessed (the check erred)"
        return {"state": "not-satisfied", "reason": "other", "remarks": f"{label}: {f.message}"}

    def risk(self, f: FindingInfo, key: str) -> dict[str, Any]:
        check = self.checks.get(f.check_id)
        risk: dict[str, Any] = {
            "uuid": self.id("risk", key),
            "title": f"{f.title}: {f.subject}",
            "description": check.rationale if check and check.rationale else f.message,
            "statement": f"{f.message.rstrip('.')}. Expected: {f.expected}. Found: {f.found}",
            "props": [_prop("check-id", f.check_id), _prop("severity", f.severity.value)],
            "status": "deviation-approved" if f.waiver is not None else "open",
            "origins": [self.origin()],
        }
        if f.waiver is not None:
            end = datetime.combine(f.waiver.expires, time(23, 59, 59), tzinfo=UTC)
            risk["deadline"] = iso_utc(end)
            risk["statement"] += (
                f"\n\nAccepted by {f.waiver.owner} until {f.waiver.expires.isoformat()}: {f.waiver.reason}"
            )
            risk["props"] += [
                _prop("waiver-owner", f.waiver.owner),
                _prop("waiver-expires", f.waiver.expires),
            ]
        if check and check.remediation:
            risk["remediations"] = [
                {
                    "uuid": self.id("remediation", key),
                    "lifecycle": "recommendation",
                    "title": f"Remediate {f.check_id}",
                    "description": check.remediation,
                }
            ]
        if f.evidence:
            risk["related-observations"] = self.related(f.evidence)
        return risk

    def check_findings(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], set[str]]:
        """OSCAL findings and risks of the failing, waived, erroring and not-assessed check findings, and
        the control ids they cover."""
        findings: list[dict[str, Any]] = []
        risks: list[dict[str, Any]] = []
        covered: set[str] = set()
        for f, key in _finding_keys(self.data.findings):
            if f.status not in REPORTED:
                continue
            risk_id = None
            if f.status is Status.FAIL:
                risk = self.risk(f, key)
                risks.append(risk)
                risk_id = risk["uuid"]
            controls = self.index.by_check.get(f.check_id, [])
            targets = [(c.control_id, c.requirement.title) for c in controls] or [
                (f.check_id, f"{f.check_id} (mapped to no NIST SP 800-53 control)")
            ]
            for control_id, title in targets:
                covered.add(control_id)
                finding: dict[str, Any] = {
                    "uuid": self.id("finding", key, control_id),
                    "title": f"{f.title}: {f.subject}",
                    "description": f"{f.message}\n\nExpected: {f.expected}\n\nFound: {f.found}",
                    "props": self.finding_props(f),
                    "origins": [self.origin()],
                    "target": {
                        "type": "objective-id",
                        "target-id": control_id,
                        "title": title,
                        "status": self.status(f),
                    },
                }
                if f.evidence:
                    finding["related-observations"] = self.related(f.evidence)
                if risk_id:
                    finding["related-risks"] = [{"risk-uuid": risk_id}]
                findings.append(finding)
        return findings, risks, covered

    def control_finding(self, control: Control) -> dict[str, Any]:
        """A reviewed control no check finding speaks for: every mapped check passed (satisfied), or its
        checks did not run in this run (not-satisfied, not assessed)."""
        req = control.requirement
        ran = {c.check_id for c in req.checks if c.evaluated}
        passed = req.result is RequirementStatus.PASS
        checks = [c.check_id for c in req.checks]
        if passed:
            status = {"state": "satisfied", "reason": "pass"}
            description = f"Every finding of the mapped checks ({', '.join(checks)}) passed."
        else:
            idle = ", ".join(c.check_id for c in req.checks if not c.evaluated) or ", ".join(checks)
            status = {
                "state": "not-satisfied",
                "reason": "other",
                "remarks": f"not assessed: the mapped checks {idle} did not run in this run",
            }
            description = f"No finding of the mapped checks ({', '.join(checks)}) assessed this control."
        evidence = [
            e for f in self.data.findings if f.check_id in ran and f.status is Status.PASS for e in f.evidence
        ]
        finding: dict[str, Any] = {
            "uuid": self.id("control-finding", control.control_id),
            "title": f"{req.id}: {req.title}",
            "description": description,
            "props": [_prop("result", req.result.value), *(_prop("mapped-check", c) for c in checks)],
            "origins": [self.origin()],
            "target": {
                "type": "objective-id",
                "target-id": control.control_id,
                "title": req.title,
                "status": status,
            },
        }
        if evidence:
            finding["related-observations"] = self.related(evidence)
        return finding

    # -- the result --------------------------------------------------------------------------------------

    def reviewed_controls(self) -> dict[str, Any]:
        assessed = [
            c for c in self.index.controls if c.requirement.result is not RequirementStatus.NOT_APPLICABLE
        ]
        idle = [c for c in self.index.controls if c.requirement.result is RequirementStatus.NOT_APPLICABLE]
        selection: dict[str, Any] = {
            "description": (
                "NIST SP 800-53 rev. 5 controls that the checks of this run evidence "
                f"(mapping reports/mappings/{NIST_800_53_KEY}.yaml); ids as in NIST's OSCAL catalog."
            )
        }
        if assessed:
            selection["include-controls"] = [{"control-id": c.control_id} for c in _unique(assessed)]
        if idle:
            selection["exclude-controls"] = [{"control-id": c.control_id} for c in _unique(idle)]
            selection["remarks"] = (
                "Excluded: every mapped check belongs to a tier the config does not declare."
            )
        out: dict[str, Any] = {
            "description": (
                "The controls reviewed by this run. Requirements of the other mapped frameworks, which "
                "have no OSCAL catalog ids, are listed as `mapped-requirement` properties (class: the "
                "framework's mapping key)."
            ),
            "control-selections": [selection],
        }
        props = [
            _prop("mapped-requirement", r.id, fw.key)
            for fw in self.index.frameworks
            if fw.key != NIST_800_53_KEY
            for r in fw.requirements
            if r.result is not RequirementStatus.NOT_APPLICABLE
        ]
        if props:
            out["props"] = props
        links = [
            {"href": fw.source, "rel": "reference", "text": f"{fw.framework} {fw.version}"}
            for fw in self.index.frameworks
        ]
        if links:
            out["links"] = links
        return out

    def result_props(self) -> list[dict[str, str]]:
        run = self.run
        values: list[tuple[str, object | None]] = [
            ("run-id", run.id),
            ("run-status", run.status.value),
            ("chain-head", run.chain_head),
            ("config-sha256", run.config_sha256),
            ("facts-digest", run.facts_digest),
            ("findings-digest", run.findings_digest),
            ("capture-count", run.capture_count),
            ("fact-count", run.fact_count),
            ("tool-version", run.tool_version),
        ]
        props = [_prop(name, value) for name, value in values if value is not None and value != ""]
        props += [_prop("declared-tier", t.value) for t in run.declared_tiers]
        if self.data.verification is not None:
            props.append(_prop("evidence-verified", str(self.data.verification.verified).lower()))
        return props

    def local_definitions(self) -> dict[str, Any]:
        component = {
            "uuid": self.tool,
            "type": "software",
            "title": f"segmentation-auditor {self.run.tool_version}",
            "description": (
                "Collects read-only evidence from devices, cloud and Kubernetes APIs into a hash-chained "
                "store and evaluates the declared network segmentation against it."
            ),
            "props": [_prop("tool-version", self.run.tool_version)],
            "status": {"state": "operational"},
        }
        return {
            "assessment-assets": {
                "components": [component],
                "assessment-platforms": [
                    {
                        "uuid": self.id("assessment-platform"),
                        "title": "segmentation-auditor",
                        "uses-components": [{"component-uuid": self.tool}],
                    }
                ],
            }
        }

    def remarks(self) -> str | None:
        problems = sorted(self.data.problems, key=lambda p: (p.target or "", p.location, p.message))
        if not problems:
            return None
        lines = [f"Evidence gaps in this run ({len(problems)}):", ""]
        lines += [f"- {p.target or '(no target)'}: {p.location}: {p.message}" for p in problems]
        return "\n".join(lines)

    def result(self) -> dict[str, Any]:
        run = self.run
        findings, risks, covered = self.check_findings()
        findings += [
            self.control_finding(c)
            for c in _unique(self.index.controls)
            if c.control_id not in covered and c.requirement.result is not RequirementStatus.NOT_APPLICABLE
        ]
        counts = {s: sum(f.status is s for f in self.data.findings) for s in Status}
        summary = ", ".join(f"{n} {s.value}" for s, n in counts.items() if n) or "no findings"
        result: dict[str, Any] = {
            "uuid": self.id("result"),
            "title": f"Segmentation audit run {run.id}",
            "description": f"{run.scope}\n\nCheck findings: {summary}.",
            "start": iso_utc(run.started_at),
        }
        if run.finished_at is not None:
            result["end"] = iso_utc(run.finished_at)
        result["props"] = self.result_props()
        result["local-definitions"] = self.local_definitions()
        result["reviewed-controls"] = self.reviewed_controls()
        observations = [self.observation(e) for e in _captures(self.data.findings)]
        if observations:
            result["observations"] = observations
        if risks:
            result["risks"] = risks
        if findings:
            result["findings"] = findings
        remarks = self.remarks()
        if remarks:
            result["remarks"] = remarks
        return result

    def document(self) -> dict[str, Any]:
        run = self.run
        plan = self.plan_resource()
        resources = [plan] + [self.capture_resource(e) for e in _captures(self.data.findings)]
        return {
            "assessment-results": {
                "uuid": self.id("assessment-results"),
                "metadata": {
                    "title": f"Network segmentation audit: run {run.id}",
                    "last-modified": iso_utc(run.finished_at or run.started_at),
                    "version": f"run-{run.id}",
                    "oscal-version": OSCAL_VERSION,
                    "props": [_prop("run-id", run.id)],
                },
                "import-ap": {
                    "href": f"#{plan['uuid']}",
                    "remarks": "A placeholder: the back-matter resource it names describes the audit "
                    "configuration that served as the assessment plan (see docs/oscal.md).",
                },
                "results": [self.result()],
                "back-matter": {"resources": resources},
            }
        }


def _unique(controls: Iterable[Control]) -> list[Control]:
    """Controls once each, in mapping order (a mapping file names a control once; be safe anyway)."""
    seen: dict[str, Control] = {}
    for c in controls:
        seen.setdefault(c.control_id, c)
    return list(seen.values())


def build_oscal(data: ReportData) -> dict[str, Any]:
    """The OSCAL assessment-results document of a run as plain JSON values."""
    return _Builder(data).document()


def dumps_oscal(data: ReportData) -> bytes:
    """UTF-8, 2-space indent, newline at the end, like the JSON report: the same run, the same bytes."""
    text = json.dumps(build_oscal(data), indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


class OscalReport:
    """Renders ReportData as an OSCAL 1.1.2 assessment-results JSON document."""

    format = "oscal"
    extension = ".oscal.json"

    def render(self, data: ReportData, path: Path) -> Path:
        return write_atomic(output_path(Path(path), data, self.extension), dumps_oscal(data))
