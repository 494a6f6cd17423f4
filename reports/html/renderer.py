"""The HTML report: the PDF's content as one self-contained page for people who read in a browser.

Inline CSS and script, no external reference of any kind, and a Content-Security-Policy that allows
only that stylesheet and that script by their SHA-256 and forbids every fetch: should a device-supplied
string ever slip past the escaping, the browser still would not run it or load anything. The bytes
are deterministic for the same ReportData (no render time), so the file can sit in a signed pack."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from reports.html.artifacts import default_deny_section, ports_section, responsibility_section
from reports.html.controls import checks_section, controls_section, waivers_section
from reports.html.cover import cover
from reports.html.coverage import gaps_section, targets_section
from reports.html.custody import custody_section
from reports.html.findings import findings_section
from reports.html.flows import flows_section, lateral_section
from reports.html.intent import matrix_section, tiers_section, trend_table
from reports.html.markup import esc
from reports.html.script import SCRIPT
from reports.html.style import STYLE
from reports.html.summary import summary_section
from reports.json_report import content_time, iso_utc, output_path, write_atomic
from reports.model import ReportData
from reports.sections import sections_of

CONTENTS = [
    ("run", "Run"),
    ("integrity", "Integrity and how to verify"),
    ("summary", "1. Executive summary"),
    ("tiers", "2. The tiers and what crosses them"),
    ("matrix", "3. Segmentation matrix"),
    ("findings", "4. Findings"),
    ("ports", "5. Switch-port segregation manifest"),
    ("default-deny", "6. Default-deny declarations"),
    ("flows", "7. Flow-log analysis"),
    ("lateral", "8. Lateral-movement analysis"),
    ("responsibility", "9. Shared responsibility"),
    ("waivers", "10. Waivers"),
    ("gaps", "11. Not assessed and evidence gaps"),
    ("targets", "12. Targets and collection status"),
    ("controls", "13. Control matrix"),
    ("custody", "14. Chain of custody"),
    ("checks", "Appendix A. Checks evaluated"),
]


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


# Without script nothing pages the findings: this style (in <noscript>) shows the rows the server hid.
NOSCRIPT_STYLE = "#findings-table tbody tr[hidden] { display: table-row !important; }"


def content_security_policy() -> str:
    """Nothing may load or connect; only this page's own stylesheets and script may apply."""
    return (
        f"default-src 'none'; style-src '{_hash(STYLE)}' '{_hash(NOSCRIPT_STYLE)}'; "
        f"script-src '{_hash(SCRIPT)}'; "
        "img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'"
    )


def _contents() -> str:
    items = "".join(f'<li><a href="#{key}">{esc(title)}</a></li>' for key, title in CONTENTS)
    return f'<nav class="toc" aria-label="Contents"><strong>Contents</strong><ol>{items}</ol></nav>'


def render_html(data: ReportData) -> bytes:
    """The report as UTF-8 HTML bytes."""
    run = data.run
    sections = sections_of(data)
    body = "".join(
        [
            cover(data, _contents()),
            summary_section(data, trend_table(sections.overview.trend)),
            tiers_section(sections.tiers),
            matrix_section(sections.matrix, sections.notes),
            findings_section(data, sections.groups),
            ports_section(sections.ports),
            default_deny_section(sections.default_deny),
            flows_section(sections.flows),
            lateral_section(sections.lateral),
            responsibility_section(sections.responsibility),
            waivers_section(data),
            gaps_section(data, sections.not_assessed),
            targets_section(data),
            controls_section(data),
            custody_section(sections.custody, data.run.capture_count),
            checks_section(data),
        ]
    )
    footer = (
        f"<footer>Run {run.id} · chain head <code>{esc(run.chain_head)}</code> · content as of "
        f"{esc(iso_utc(content_time(data)))} · segmentation-auditor {esc(run.tool_version)}</footer>"
    )
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy()}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{esc(f'Network segmentation audit, run {run.id}')}</title>"
        f"<style>{STYLE}</style><noscript><style>{NOSCRIPT_STYLE}</style></noscript></head>\n"
        f"<body>{body}{footer}<script>{SCRIPT}</script></body></html>\n"
    )
    return page.encode("utf-8")


class HtmlReport:
    """Renders ReportData as one self-contained HTML page (sortable, filterable findings)."""

    format = "html"
    extension = ".html"

    def render(self, data: ReportData, path: Path) -> Path:
        """Write the page to `path` (or into it, if it is a directory) and return the file written."""
        target = output_path(Path(path), data, self.extension)
        return write_atomic(target, render_html(data))
