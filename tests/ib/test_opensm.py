"""The OpenSM partitions.conf normalizer against documented examples and handmade files, field by field."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from auditor.capture import RawCapture
from auditor.enums import FactKind
from auditor.facts import IbPartition
from collectors.normalizers.opensm import normalize_partitions
from collectors.offline.classify import classify

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "opensm"
CASES = sorted(p for p in FIXTURES.glob("*.conf"))


def capture(path: Path) -> RawCapture:
    return RawCapture(
        target="gpu-ib",
        format="opensm.partitions",
        source="OpenSM partitions.conf (offline file)",
        origin=path.name,
        collected_at=datetime.now(UTC),
        content=path.read_bytes(),
        meta={"fabric": "gpu-ib"},
    )


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_partitions_match_expected(path: Path) -> None:
    expected = json.loads(path.with_name(path.name.removesuffix(".conf") + ".expected.json").read_text())
    result = normalize_partitions(capture(path))
    got = [p.model_dump(mode="json") for p in result.facts if isinstance(p, IbPartition)]
    assert len(got) == len(result.facts)
    want = [{"fabric": "gpu-ib", **p} for p in expected["partitions"]]
    assert got == want
    assert result.covers == {FactKind.IB_PARTITION}
    assert len(result.problems) == len(expected["problems"])
    for problem, wanted in zip(result.problems, expected["problems"], strict=True):
        assert problem.line == wanted["line"] and wanted["contains"] in problem.message
        assert problem.origin == path.name


def test_empty_file_still_has_the_default_partition() -> None:
    """A readable file without rules is OpenSM's "no rule for Default" case: ALL limited, SELF full."""
    result = normalize_partitions(
        RawCapture("ib", "opensm.partitions", "file", "p.conf", datetime.now(UTC), b"# nothing yet\n", {})
    )
    assert [(p.name, p.pkey, [(m.guid, m.membership) for m in p.members]) for p in result.facts] == [
        ("Default", 0x7FFF, [("ALL", "limited"), ("SELF", "full")])
    ]
    assert result.facts[0].fabric == "ib"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("name", "content", "fmt"),
    [
        ("partitions.conf", b"Default=0x7fff,ipoib:ALL=full;\n", "opensm.partitions"),
        ("fabric-a.partitions.conf", b"# only comments\n", "opensm.partitions"),
        ("pkeys.txt", b"# UFM export\ntenant-a=0x0a01 : 0x0002c903000e0b72=full ;\n", "opensm.partitions"),
        ("be-leaf1.cfg", b"hostname be-leaf1\nvrf instance RDMA-A\n", "eos.running-config"),
    ],
)
def test_the_offline_classifier_recognizes_partition_files(name: str, content: bytes, fmt: str) -> None:
    found = classify(Path("/evidence/ib/gpu-ib") / name, content)
    assert found is not None and found.format == fmt
    if fmt == "opensm.partitions":
        assert found.hostname == "gpu-ib"  # the fabric is named after the directory
