"""The findings as CSV: one row per finding, for spreadsheets and GRC tools that import tables."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from reports.json_report import finding_sort_key, output_path, write_atomic
from reports.model import ReportData

COLUMNS = (
    "run_id",
    "check_id",
    "title",
    "tier",
    "severity",
    "status",
    "waived_by",
    "waiver_expires",
    "target",
    "subject",
    "expected",
    "found",
    "message",
    "evidence",
)


def render_csv(data: ReportData) -> bytes:
    """RFC 4180 CSV (CRLF line ends, quoted where needed), UTF-8, rows in the JSON report's order.

    `evidence` lists `seq:sha256` of the captures each finding rests on, separated by spaces, so a row
    can be traced to the evidence chain without the JSON report."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for f in sorted(data.findings, key=finding_sort_key):
        writer.writerow(
            (
                data.run.id,
                f.check_id,
                f.title,
                f.tier.value,
                f.severity.value,
                f.status.value,
                f.waiver.owner if f.waiver else "",
                f.waiver.expires.isoformat() if f.waiver else "",
                f.target or "",
                f.subject,
                f.expected,
                f.found,
                f.message,
                " ".join(f"{e.seq}:{e.sha256}" for e in sorted(f.evidence, key=lambda e: e.seq)),
            )
        )
    return buffer.getvalue().encode("utf-8")


class CsvReport:
    format = "csv"
    extension = ".csv"

    def render(self, data: ReportData, path: Path) -> Path:
        return write_atomic(output_path(Path(path), data, self.extension), render_csv(data))
