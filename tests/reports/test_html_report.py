"""The HTML report as bytes: self-contained (no external reference, a CSP that forbids fetches), the
PDF's content (cover facts, summary, findings with their evidence, waivers, targets not assessed), and
every device-supplied string escaped. The browser side (sorting, filtering, the screenshot, script that
must not run) is in test_html_browser.py."""

from __future__ import annotations

import base64
import dataclasses
import enum
import hashlib
import re
import types
import typing
from datetime import UTC, date, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from auditor.enums import Severity, Status, TargetStatus, Tier
from reports.base import report_registry
from reports.html.renderer import HtmlReport, render_html
from reports.html.script import SCRIPT
from reports.html.style import STYLE
from reports.model import FindingInfo, ProblemInfo, ReportData, TargetInfo, Verification
from reports.sections import sections_of
from reports.sections.records import Crossing, Sections, TrendPoint
from tests.reports.sample_data import CHAIN_HEAD, RUN_ID, _ref, make_report_data, sha

# Strings an attacker controls through a device config or a cloud tag: each tries to leave its context
# (element text, a quoted attribute, a <title>, the <script> or <style> block) and run script.
PAYLOADS = [
    "<script>window.__xss = 'script'</script>",
    '"><img src=x onerror="window.__xss=\'img\'">',
    "'><svg onload=window.__xss='svg'>",
    "</td></tr></tbody></table><script>window.__xss='table'</script>",
    "</style></script><script>window.__xss='close'</script>",
    "javascript:window.__xss='url'",
    "host\u202egnp.exe",  # a right-to-left override that would display the name backwards
]
HOSTILE_HOST = "leaf<script>window.__xss='host'</script>.example"
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "nav", "main", "section", "footer",
    "h1", "h2", "h3", "p", "strong", "em", "code", "span", "div", "a", "br", "ol", "ul", "li", "dl", "dt",
    "dd", "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "form", "fieldset", "legend",
    "label", "input", "select", "option", "button", "output", "svg", "rect", "script", "g", "defs", "marker",
    "path", "text", "noscript",
}  # fmt: skip


def hostile_findings() -> list[FindingInfo]:
    """One FAIL per payload, in every text field a device can fill."""
    return [
        FindingInfo(
            check_id="T3-VRF-NO-DEFAULT-ROUTE",
            title="Backend RDMA VRFs carry no default route",
            tier=Tier.BACKEND,
            severity=Severity.CRITICAL,
            status=Status.FAIL,
            subject=f"{HOSTILE_HOST} vrf {p}",
            target=HOSTILE_HOST,
            message=f"description {p}",
            expected=f"no default route {p}",
            found=f"`{p}` in the running config",
            fact_ids=[i],
            evidence=[_ref(900 + i, f"show run {p}", HOSTILE_HOST)],
        )
        for i, p in enumerate(PAYLOADS)
    ]


def hostile_report_data() -> ReportData:
    """The sample run plus hostile findings, a hostile target, gap, scope and organisation."""
    base = make_report_data()
    findings = [*base.findings, *hostile_findings()]
    target = TargetInfo(
        HOSTILE_HOST,
        "device",
        "eos",
        Tier.BACKEND,
        "leaf",
        TargetStatus.FAILED,
        PAYLOADS[1],
        0,
        [PAYLOADS[2]],
    )
    problem = ProblemInfo(HOSTILE_HOST, PAYLOADS[3], PAYLOADS[0], PAYLOADS[4])
    run = dataclasses.replace(
        base.run, organisation=f"Example Corp {PAYLOADS[0]}", scope=f"pods A-C {PAYLOADS[1]}",
        audit_period=(date(2025, 1, 1), date(2025, 3, 31)),
    )  # fmt: skip
    return dataclasses.replace(
        base,
        run=run,
        findings=findings,
        targets=[*base.targets, target],
        problems=[*base.problems, problem],
        summary=ReportData.summarize(findings),
    )


class _Tags(HTMLParser):
    """Every start tag and its attributes, as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.script_text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_text.append(data)


def parse(page: bytes) -> _Tags:
    parser = _Tags()
    parser.feed(page.decode("utf-8"))
    return parser


def test_hostile_strings_stay_text() -> None:
    page = render_html(hostile_report_data())
    text = page.decode("utf-8")
    parsed = parse(page)
    assert {tag for tag, _ in parsed.tags} <= ALLOWED_TAGS
    assert [tag for tag, _ in parsed.tags].count("script") == 1
    assert "".join(parsed.script_text) == SCRIPT  # the one script is ours, byte for byte
    handlers = [(tag, name) for tag, attrs in parsed.tags for name, _ in attrs if name.startswith("on")]
    assert handlers == []
    hrefs = [value or "" for _, attrs in parsed.tags for name, value in attrs if name in ("href", "src")]
    assert all(h.startswith("#") for h in hrefs), [h for h in hrefs if not h.startswith("#")]
    for payload in PAYLOADS[:6]:
        assert payload not in text
    assert "&lt;script&gt;window.__xss = &#x27;script&#x27;&lt;/script&gt;" in text
    assert "host[U+202E]gnp.exe" in text and "\u202e" not in text  # shown, not obeyed
    # the hostile target is listed among those not assessed, its reason escaped
    assert "leaf&lt;script&gt;window.__xss=&#x27;host&#x27;&lt;/script&gt;.example" in text


def test_self_contained_with_a_policy_that_forbids_fetches() -> None:
    page = render_html(make_report_data()).decode("utf-8")
    [policy] = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy and "img-src 'none'" in policy
    for block, name in ((STYLE, "style"), (SCRIPT, "script")):
        digest = base64.b64encode(hashlib.sha256(block.encode()).digest()).decode()
        assert f"{name}-src 'sha256-{digest}'" in policy  # exactly this inline block may apply
        assert f"<{name}>{block}</{name}>" in page
    assert "unsafe-inline" not in policy
    assert not re.search(r"(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/[^\s\"<]*\.(js|css|woff2?|png|svg)", page)
    assert "@import" not in STYLE and "url(" not in STYLE
    assert "fetch(" not in SCRIPT and "XMLHttpRequest" not in SCRIPT and "innerHTML" not in SCRIPT


def test_cover_facts_summary_and_findings_match_the_data() -> None:
    data = hostile_report_data()
    text = render_html(data).decode("utf-8")
    assert f"<strong>{RUN_ID}</strong>" in text and f'id="chain-head">{CHAIN_HEAD}<' in text
    assert "Example Corp" in text and "2025-01-01 to 2025-03-31 (90 days)" in text
    assert "2025-03-14 09:26:53 UTC" in text and "after 13 min 41 s" in text
    assert "UNSIGNED: no signing key sealed this run" in text
    assert f"auditor verify auditor-run-{RUN_ID}-pack-UNSIGNED.tar.gz" in text
    assert f"auditor verify --run {RUN_ID} -c auditor.yaml" in text
    assert "FAILURES FOUND" in text
    rows = re.findall(
        r'<tr id="finding-\d+" data-status="([A-Z_]+)" data-tier="(\w+)" data-severity="(\w+)"', text
    )
    assert len(rows) == len(data.findings)
    order = [s for s, _, _ in rows]
    priority = ["FAIL", "ERROR", "NOT_ASSESSED", "PASS", "NOT_APPLICABLE"]
    assert order == sorted(order, key=priority.index)  # failures first, as in the PDF
    for f in data.findings:  # every evidence hash in full
        for ref in f.evidence:
            assert ref.sha256 in text
    assert text.count('data-waived="1"') == sum(1 for f in data.findings if f.waived)
    assert "IN FORCE" in text and "EXPIRED" in text and "CHG-4711" in text
    not_assessed = text[text.index('id="not-assessed-table"') :]
    not_assessed = not_assessed[: not_assessed.index("</table>")]
    assert "oob-sw1.example" in not_assessed and "SSH authentication failed" in not_assessed
    assert "be-leaf2.example" not in not_assessed  # collected in full
    assert 'id="summary-tiers"' in text and "<svg" in text and 'id="fw-soc2"' in text
    for c in data.checks:  # every check id in the findings links to the catalogue row
        assert f'id="check-{c.id}"' in text


def test_signed_verified_run_names_the_key() -> None:
    signed = Verification(True, 54, None, "signed by the pinned key SHA256:e28362d8ed042c8b")
    text = render_html(dataclasses.replace(make_report_data(), verification=signed)).decode("utf-8")
    assert "Signed by the pinned key SHA256:e28362d8ed042c8b" in text
    assert f"auditor verify auditor-run-{RUN_ID}-pack.tar.gz --pubkey PUBLIC_KEY.pem" in text
    assert "UNSIGNED" not in text


def test_deterministic_and_registered(tmp_path: Path) -> None:
    data = make_report_data()
    later = dataclasses.replace(data, generated_at=data.generated_at.replace(year=2030))
    assert render_html(data) == render_html(later)  # no render time: the bytes can be signed in a pack
    renderer = report_registry().get("html")
    assert isinstance(renderer, HtmlReport) and renderer.extension == ".html"
    written = renderer.render(data, tmp_path)
    assert written == tmp_path / f"auditor-run-{RUN_ID}.html"
    assert written.read_bytes() == render_html(data)


def test_an_empty_run_still_renders() -> None:
    data = dataclasses.replace(make_report_data([]), targets=[], problems=[], checks=[], waivers=[])
    text = render_html(data).decode("utf-8")
    assert "This run produced no findings." in text and 'id="findings-table"' not in text
    assert "NO APPLICABLE FINDINGS" in text and sha("facts") in text


def _fill(kind: Any, payload: str) -> Any:
    """A value of type `kind` with `payload` in every string, one element in every list."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        return _fill(next(a for a in args if a is not type(None)), payload)
    if origin is list:
        return [_fill(args[0], payload)]
    if origin is dict:
        return {_fill(args[0], payload): _fill(args[1], payload)}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        return kind(**{f.name: _fill(hints[f.name], payload) for f in dataclasses.fields(kind)})
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return next(iter(kind))
    values: dict[Any, Any] = {str: payload, int: 3, float: 1.5, bool: True, datetime: datetime(2025, 3, 14)}
    return values[kind]


def test_every_section_field_is_escaped() -> None:
    """Each string of every derived section (port names, descriptions, hop texts, capture sources: all
    from devices) carries a payload; none survives as markup."""
    payload = "<script>window.__xss='section'</script>\"'><img src=x onerror=alert(1)>"
    sections = _fill(Sections, payload)
    sections = dataclasses.replace(
        sections,
        tiers=dataclasses.replace(
            sections.tiers,
            crossings=[dataclasses.replace(sections.tiers.crossings[0], source="internet", target="oob")],
        ),
    )
    page = render_html(dataclasses.replace(make_report_data(), sections=sections))
    text = page.decode("utf-8")
    parsed = parse(page)
    assert {tag for tag, _ in parsed.tags} <= ALLOWED_TAGS
    assert [tag for tag, _ in parsed.tags].count("script") == 1
    assert all(not name.startswith("on") for _, attrs in parsed.tags for name, _ in attrs)
    assert payload not in text and "<img" not in text
    escaped = "&lt;script&gt;window.__xss=&#x27;section&#x27;&lt;/script&gt;"
    for section in (
        "tiers",
        "matrix",
        "ports",
        "default-deny",
        "flows",
        "lateral",
        "responsibility",
        "custody",
    ):
        body = text[text.index(f'<section id="{section}">') :]
        assert escaped in body[: body.index("</section>")], section


def test_trend_and_the_tiers_drawing() -> None:
    data = make_report_data()
    sections = sections_of(data)
    trend = [
        TrendPoint(4100 + i, datetime(2025, 3, i + 1, tzinfo=UTC), "complete", {"FAIL": 9 - i, "PASS": i})
        for i in range(3)
    ]
    trend.append(dataclasses.replace(trend[-1], run_id=RUN_ID, current=True))
    crossings = [Crossing("internet", "backend", "T3-VRF-NO-DEFAULT-ROUTE", 2, ["be-leaf1 vrf RDMA-A"])]
    crossings.append(Crossing("backend", "frontend", "X-FLOWS-NO-CROSS-TIER", 1, ["10.30.1.5 -> 10.20.0.9"]))
    sections = dataclasses.replace(
        sections,
        overview=dataclasses.replace(sections.overview, trend=trend),
        tiers=dataclasses.replace(sections.tiers, crossings=crossings),
    )
    text = render_html(dataclasses.replace(data, sections=sections)).decode("utf-8")
    table = text[text.index('id="trend-table"') :]
    table = table[: table.index("</table>")]
    assert [f"run {p.run_id}" in table for p in trend] == [True] * 4
    assert f"run {RUN_ID} (this run)" in table and table.count("<svg") == 4
    drawing = text[text.index('<svg class="tiers"') :]
    drawing = drawing[: drawing.index("</svg>")]
    assert drawing.count('<g class="crossing">') == 2 and drawing.count('<g class="zone') == 4
    assert "2 findings: Internet into Tier 3 · Backend RDMA" in drawing
    assert "1 finding: Tier 3 · Backend RDMA into Tier 2 · Frontend" in drawing


def test_code_syntax_is_worded_as_prose() -> None:
    finding = dataclasses.replace(
        make_report_data().findings[0],
        found='VRFs [\'MGMT\', \'management\'] carry {"port": 9090, "protocol": "TCP"}; set `mtu 9214`',
    )
    text = render_html(make_report_data([finding])).decode("utf-8")
    assert "VRFs MGMT, management carry (port 9090, protocol TCP); set <code>mtu 9214</code>" in text
    assert "[&#x27;MGMT&#x27;" not in text and "`" not in text.split("<script>")[0]
