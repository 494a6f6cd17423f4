"""The PDF read as an auditor reads it: bookmarks and contents lead to their sections, every page names its
run, chain head and place, and the text is prose, not code (the example lab's real report and the sample)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader
from pypdf.generic import Destination

from auditor.config.loader import load_config
from auditor.errors import ConfigError
from reports.pdf.renderer import PdfReport
from tests.e2e.conftest import LAB, run_cli
from tests.reports.sample_data import make_report_data

TOC_PAGE = 2


def outline(reader: PdfReader) -> list[tuple[int, str, int]]:
    """(level, title, 1-based page) of every bookmark, in order."""
    out: list[tuple[int, str, int]] = []

    def walk(items: list[object], level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
            elif isinstance(item, Destination):
                page = reader.get_destination_page_number(item)
                assert page is not None, item.title
                out.append((level, str(item.title), page + 1))

    walk(reader.outline, 0)  # type: ignore[arg-type]
    return out


def squash(text: str) -> str:
    return "".join(text.split())


@pytest.fixture(scope="module")
def lab_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example lab audited through the CLI, as a user would; its PDF report."""
    lab = tmp_path_factory.mktemp("pdf-lab") / "lab"
    shutil.copytree(LAB, lab, ignore=shutil.ignore_patterns(".auditor", "out"))
    with (lab / "auditor.yaml").open("a") as config:  # the cover's who and when, as a user sets them
        config.write("organisation: Example GPU Cloud\naudit_period: {start: 2026-01-01, end: 2026-03-31}\n")
    result = run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr  # the lab has planted failures
    return lab / "out" / "run-1.pdf"


@pytest.fixture(scope="module")
def sample_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return PdfReport().render(make_report_data(), tmp_path_factory.mktemp("pdf-nav") / "s.pdf")


@pytest.fixture(scope="module", params=["lab", "sample"])
def pdf(request: pytest.FixtureRequest) -> tuple[PdfReader, list[str]]:
    path: Path = request.getfixturevalue(f"{request.param}_pdf")
    reader = PdfReader(path)
    return reader, [page.extract_text() or "" for page in reader.pages]


EXPECTED_SECTIONS = [
    "1. Executive summary",
    "2. The tiers and what crosses them",
    "3. Segmentation matrix",
    "4. Findings by check and subject",
    "5. Switch-port segregation manifest",
    "6. Default-deny declarations",
    "7. Flow-log analysis",
    "8. Lateral-movement analysis",
    "9. Shared responsibility",
    "10. Waivers",
    "11. Not assessed and evidence gaps",
    "12. Targets and collection status",
    "13. Control matrix",
    "14. Chain of custody",
    "Appendix A. Checks evaluated",
    "Appendix B. Every finding",
    "Appendix D. Every capture",
    "Appendix E. Targets",
]


def test_every_bookmark_opens_the_page_of_its_section(pdf: tuple[PdfReader, list[str]]) -> None:
    reader, texts = pdf
    marks = outline(reader)
    titles = [title for _, title, _ in marks]
    for section in EXPECTED_SECTIONS:
        assert section in titles
    assert titles[0].startswith("Cover") and titles[1] == "Contents"
    assert marks[1][2] == TOC_PAGE, "the cover holds on one page"
    assert len({page for _, _, page in marks}) >= 5  # not all on one page
    for level, title, page in marks[1:]:
        # the heading is on the bookmarked page, and on no earlier page after the contents
        assert squash(title) in squash(texts[page - 1]), (title, page)
        for earlier in range(TOC_PAGE, page - 1):
            assert squash(title) not in squash(texts[earlier]), (title, page, earlier + 1)
        assert level in (0, 1)
    pages = [page for _, _, page in marks]
    assert pages == sorted(pages)  # reading order


def test_contents_lists_every_section_with_its_page(pdf: tuple[PdfReader, list[str]]) -> None:
    reader, _ = pdf
    contents = reader.pages[TOC_PAGE - 1].extract_text(extraction_mode="layout")
    assert "Contents" in contents
    lines = [" ".join(line.split()) for line in contents.splitlines()]
    for _, title, page in outline(reader)[2:]:
        # a TOC line reads "<title> <page>" (the dotted leader is drawn, not text)
        assert any(re.fullmatch(rf"{re.escape(title)}\s*{page}", line) for line in lines), (
            title,
            page,
            lines,
        )


def test_contents_entries_link_to_their_sections(pdf: tuple[PdfReader, list[str]]) -> None:
    reader, _ = pdf
    page_of = {
        p.indirect_reference.idnum: n for n, p in enumerate(reader.pages, start=1) if p.indirect_reference
    }
    targets: set[int] = set()
    for annot in reader.pages[TOC_PAGE - 1].get("/Annots", []):
        dest = annot.get_object().get("/Dest")
        if isinstance(dest, list) and dest:
            targets.add(page_of[dest[0].idnum])
    bookmarked = {page for _, _, page in outline(reader)[2:]}
    assert bookmarked <= targets


def test_every_page_names_its_run_chain_head_and_place(pdf: tuple[PdfReader, list[str]]) -> None:
    _, texts = pdf
    cover = squash(texts[0])
    head = re.search(r"chainhead([0-9a-f]{16})…", squash(texts[-1]))
    assert head, "the footer shows the chain head's first 16 hex digits"
    assert re.search(rf"{head[1]}[0-9a-f]{{48}}", cover), "the cover shows the whole chain head"
    run = re.search(r"Run (\d+) ·", texts[0])
    assert run
    total = len(texts)
    for number, text in enumerate(texts, start=1):
        assert f"Page {number} of {total}" in text
        assert f"Run {run[1]} ·" in text
        assert f"chainhead{head[1]}…" in squash(text)


def font_sizes(reader: PdfReader) -> dict[float, str]:
    """Each effective font size used for text (size x text matrix x CTM scale), with a sample of it."""
    sizes: dict[float, str] = {}
    for page in reader.pages:

        def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
            if text.strip():
                scale = (tm[0] ** 2 + tm[1] ** 2) ** 0.5 * (cm[0] ** 2 + cm[1] ** 2) ** 0.5
                sizes.setdefault(round(size * scale, 2), text.strip()[:40])

        page.extract_text(visitor_text=visit)
    return sizes


def test_nothing_is_set_under_8_points(pdf: tuple[PdfReader, list[str]]) -> None:
    reader, _ = pdf
    sizes = font_sizes(reader)
    assert max(sizes) >= 15  # the visitor sees real sizes (the section titles)
    small = {size: sample for size, sample in sizes.items() if size < 8}
    assert not small, small


def test_text_is_prose_not_code(pdf: tuple[PdfReader, list[str]]) -> None:
    _, texts = pdf
    text = "\n".join(texts)
    for code in ("['", "']", '["', "`", '{"'):
        assert code not in text, (code, text[max(0, text.find(code) - 80) : text.find(code) + 80])


def test_long_tables_repeat_their_header_on_every_page(pdf: tuple[PdfReader, list[str]]) -> None:
    reader, texts = pdf
    start = {title: page for _, title, page in outline(reader)}
    listing = start["Appendix B. Every finding"]
    after = min(page for page in start.values() if page > listing)  # appendix C (ports) or D
    spans = {
        "Evidence (seq, sha256)": (listing, after),
        "Checks and their findings": (start["13. Control matrix"], start["14. Chain of custody"]),
        "Rationale": (start["Appendix A. Checks evaluated"], start["Appendix B. Every finding"]),
        "SHA-256": (start["Appendix D. Every capture"], start["Appendix E. Targets"]),
    }
    for header, (first, end) in spans.items():
        for page in range(first, end):
            assert header in texts[page - 1], (header, page)


def test_lab_cover_names_the_organisation_and_period(lab_pdf: Path) -> None:
    cover = " ".join((PdfReader(lab_pdf).pages[0].extract_text() or "").split())
    assert "Organisation. Example GPU Cloud" in cover
    assert "Audit period. 2026-01-01 to 2026-03-31 (90 days)" in cover
    assert "Seal signature UNSIGNED" in cover  # the lab config has no signing key


def test_an_audit_period_that_ends_before_it_starts_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "auditor.yaml"
    config.write_text("audit_period:\n  start: 2026-03-31\n  end: 2026-01-01\n")
    with pytest.raises(ConfigError) as err:
        load_config(config)
    assert "auditor.yaml" in str(err.value) and "swap them" in str(err.value)


def test_check_ids_link_to_the_check_catalogue(pdf: tuple[PdfReader, list[str]]) -> None:
    reader, texts = pdf
    start = {title: page for _, title, page in outline(reader)}
    catalogue = start["Appendix A. Checks evaluated"]
    page_of = {
        p.indirect_reference.idnum: n for n, p in enumerate(reader.pages, start=1) if p.indirect_reference
    }
    for section in ("4. Findings by check and subject", "13. Control matrix"):
        links = []
        for annot in reader.pages[start[section] - 1].get("/Annots", []):
            dest = annot.get_object().get("/Dest")
            if isinstance(dest, list) and dest:
                links.append(page_of[dest[0].idnum])
        assert links, f"the check ids of {section} are links"
        assert all(page >= catalogue for page in links), (section, links, catalogue)
        # the row it opens names the check: each linked-to page of the catalogue lists check ids
        assert all(re.search(r"[TX]\d?-[A-Z0-9-]+", texts[page - 1]) for page in links)
