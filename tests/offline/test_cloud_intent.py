"""intent.cloud is validated with errors that name the file, line and field (exit 2 from the CLI)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from auditor.config.loader import parse_config
from auditor.errors import AuditorError
from tests.e2e.conftest import LAB, run_cli


@pytest.mark.parametrize(
    ("cloud", "line", "words"),
    [
        ("  cloud:\n    open_egress_groups:\n      - {ids: [web-sg], reason: x}\n", 4, "security group id"),
        ("  cloud:\n    open_egress_groups:\n      - {reason: proxy}\n", 4, "ids and/or tags"),
        ("  cloud:\n    open_egress_groups:\n      - {tags: {a: b}}\n", 4, "reason"),
        ("  cloud:\n    attachments:\n      - {id: igw-0abc, tier: oob}\n", 4, "attachment id"),
        ("  cloud:\n    attachments:\n      - {id: vpn-0abc, tier: cross}\n", 4, "tier"),
        ("  cloud:\n    nacl_return_traffic: {protocols: [icmp]}\n", 3, "protocols"),
    ],
)
def test_bad_cloud_intent_names_line_and_field(cloud: str, line: int, words: str) -> None:
    text = "intent:\n" + cloud
    with pytest.raises(AuditorError) as err:
        parse_config(text, source="auditor.yaml")
    message = str(err.value)
    assert f"auditor.yaml:{line}" in message and "intent.cloud." in message, message
    assert words in message, message


def test_cli_exits_2_on_a_bad_attachment(tmp_path: Path) -> None:
    cfg = tmp_path / "auditor.yaml"
    cfg.write_text("intent:\n  cloud:\n    attachments: [{id: tgw-attach-0a, tier: nowhere}]\n")
    result = run_cli("audit", "-c", str(cfg), "--quiet")
    assert result.returncode == 2
    assert "auditor.yaml:3" in result.stderr and "Traceback" not in result.stderr


def test_a_describe_gz_truncated_after_its_head_is_a_problem_at_collection(tmp_path: Path) -> None:
    """The head classifies (the keys are at the start); the end of the stream is missing."""
    region = tmp_path / "evidence" / "us-east-1"
    region.mkdir(parents=True)
    groups = json.loads((LAB / "evidence" / "aws" / "us-east-1" / "SecurityGroups.json").read_text())
    groups["SecurityGroups"] *= 400  # long enough that the cut falls well after the head
    packed = gzip.compress(json.dumps(groups).encode())
    (region / "SecurityGroups.json.gz").write_bytes(packed[: len(packed) - 50])
    (region / "Vpcs.json").write_bytes((LAB / "evidence" / "aws" / "us-east-1" / "Vpcs.json").read_bytes())
    (tmp_path / "auditor.yaml").write_text(
        "sources:\n  files: [{path: evidence, account: '111122223333'}]\n"
        "store: sqlite:///.auditor/auditor.db\noutput: out\nreports: [json]\n"
    )
    result = run_cli("audit", "-c", str(tmp_path / "auditor.yaml"), "--quiet")
    report = json.loads((tmp_path / "out" / "run-1.json").read_text())
    problems = [f"{p['location']}: {p['message']}" for p in report["problems"]]
    assert any(
        p.startswith("evidence/us-east-1/SecurityGroups.json.gz:") and "gzip stream is truncated" in p
        for p in problems
    ), problems
    assert report["run"]["status"] == "partial" and result.returncode == 3
