"""The findings as JUnit XML, so CI systems show an audit like a test run: one test suite per check,
one test case per subject. FAIL is a failure, ERROR an error; NOT_ASSESSED and NOT_APPLICABLE are
skipped (with the reason), never passed; a waived failure is skipped and names its waiver."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from auditor.enums import Status
from reports.json_report import finding_sort_key, iso_utc, output_path, write_atomic
from reports.model import FindingInfo, ReportData


def _case(suite: ET.Element, f: FindingInfo) -> None:
    case = ET.SubElement(
        suite, "testcase", name=f.subject, classname=f"{f.tier.value}.{f.check_id}", time="0"
    )
    detail = f"expected: {f.expected}\nfound: {f.found}\nevidence: " + ", ".join(
        f"#{e.seq} {e.sha256}" for e in f.evidence
    )
    if f.status == Status.FAIL and f.waiver is not None:
        ET.SubElement(
            case, "skipped", message=f"waived by {f.waiver.owner} until {f.waiver.expires}: {f.waiver.reason}"
        ).text = detail
    elif f.status == Status.FAIL:
        ET.SubElement(case, "failure", message=f.message, type=f.severity.value).text = detail
    elif f.status == Status.ERROR:
        ET.SubElement(case, "error", message=f.message, type="ERROR").text = detail
    elif f.status in (Status.NOT_ASSESSED, Status.NOT_APPLICABLE):
        ET.SubElement(case, "skipped", message=f"{f.status.value}: {f.message}").text = detail
    else:
        ET.SubElement(case, "system-out").text = detail


def render_junit(data: ReportData) -> bytes:
    by_check: dict[str, list[FindingInfo]] = defaultdict(list)
    for f in sorted(data.findings, key=finding_sort_key):
        by_check[f.check_id].append(f)
    root = ET.Element("testsuites", name=f"segmentation audit run {data.run.id}")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for check_id in sorted(by_check):
        findings = by_check[check_id]
        counts = {
            "tests": len(findings),
            "failures": sum(f.status == Status.FAIL and f.waiver is None for f in findings),
            "errors": sum(f.status == Status.ERROR for f in findings),
            "skipped": sum(
                f.status in (Status.NOT_ASSESSED, Status.NOT_APPLICABLE) or f.waiver is not None
                for f in findings
            ),
        }
        attrs = {"name": check_id, "timestamp": iso_utc(data.run.started_at), "time": "0"}
        suite = ET.SubElement(root, "testsuite", attrs | {k: str(v) for k, v in counts.items()})
        ET.SubElement(
            ET.SubElement(suite, "properties"), "property", name="chain_head", value=data.run.chain_head or ""
        )
        for f in findings:
            _case(suite, f)
        for k in totals:
            totals[k] += counts[k]
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    xml: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return xml + b"\n"


class JunitReport:
    format = "junit"
    extension = ".junit.xml"

    def render(self, data: ReportData, path: Path) -> Path:
        return write_atomic(output_path(Path(path), data, self.extension), render_junit(data))
