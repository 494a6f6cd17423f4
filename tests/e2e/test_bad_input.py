"""Bad input gets a clear error naming the file and line, and loses nothing already collected."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from tests.e2e.conftest import run_cli


def _report(lab: Path) -> dict[str, object]:
    return json.loads((lab / "out" / "run-1.json").read_text())  # type: ignore[no-any-return]


def test_yaml_syntax_error_names_file_and_line(lab: Path) -> None:
    cfg = lab / "auditor.yaml"
    lines = cfg.read_text().splitlines()
    idx = next(i for i, line in enumerate(lines) if "min_mtu" in line)
    lines[idx] = "      min_mtu: [9000"
    cfg.write_text("\n".join(lines) + "\n")
    result = run_cli("audit", "-c", str(cfg), "--quiet")
    assert result.returncode == 2
    err = " ".join(result.stderr.split())
    assert "auditor.yaml:" in err and "not valid YAML" in err
    assert not (lab / ".auditor").exists()  # nothing half-done was started


def test_unknown_key_names_line_field_and_expected_keys(lab: Path) -> None:
    cfg = lab / "auditor.yaml"
    lines = cfg.read_text().splitlines()
    idx = next(i for i, line in enumerate(lines) if "lossless_priority" in line)
    lines[idx] = lines[idx].replace("lossless_priority", "lossles_priority")
    cfg.write_text("\n".join(lines) + "\n")
    result = run_cli("audit", "-c", str(cfg), "--quiet")
    assert result.returncode == 2
    err = " ".join(result.stderr.split())
    assert f"auditor.yaml:{idx + 1}: intent.tiers.backend.lossles_priority: unknown key" in err
    assert "lossless_priority" in err  # the expected keys are listed


def test_wrong_type_names_the_field(lab: Path) -> None:
    cfg = lab / "auditor.yaml"
    text = cfg.read_text().replace("min_mtu: 9000", "min_mtu: jumbo")
    cfg.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "min_mtu" in t)
    result = run_cli("audit", "-c", str(cfg), "--quiet")
    assert result.returncode == 2
    assert f"auditor.yaml:{line}: intent.tiers.backend.min_mtu:" in " ".join(result.stderr.split())


def test_broken_evidence_is_reported_and_the_rest_is_kept(lab: Path) -> None:
    # 1. a device config cut in the middle (a truncated transfer)
    spine = lab / "evidence" / "devices" / "be-spine1.cfg"
    kept = spine.read_text().splitlines()[:40]
    spine.write_text("\n".join(kept) + "\n")
    # 2. an AWS describe file that is not JSON from line 3 on
    nat = lab / "evidence" / "aws" / "us-east-1" / "NatGateways.json"
    nat.write_text('{\n  "NatGateways": [\n    {"NatGatewayId": nat-0 oops\n')
    # 3. a garbled flow-log line in the middle of a gzip file
    flow = next((lab / "evidence" / "flowlogs").glob("*0100Z.log.gz"))
    lines = gzip.decompress(flow.read_bytes()).decode().splitlines()
    lines.insert(3, "2 111122223333 eni-0x 10.20.130.15 GARBLED")
    flow.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))

    result = run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet")
    assert result.returncode == 1, result.stderr  # the planted failures are still found
    report = _report(lab)
    problems = [f"{p['location']}: {p['message']}" for p in report["problems"]]  # type: ignore[index]
    assert any(p.startswith("evidence/devices/be-spine1.cfg:40:") and "truncated" in p for p in problems), (
        problems
    )
    assert any(p.startswith("evidence/aws/us-east-1/NatGateways.json:3:") for p in problems), problems
    assert any(p.startswith(f"evidence/flowlogs/{flow.name}:4:") for p in problems), problems
    assert report["run"]["status"] == "partial"  # type: ignore[index]
    # nothing else was lost: all planted violations are still found, and the damaged targets are partial
    failed = {(f["check_id"], f["subject"]) for f in report["findings"] if f["status"] == "FAIL"}  # type: ignore[index]
    assert ("T3-VRF-NO-DEFAULT-ROUTE", "be-leaf2/vrf RDMA-B") in failed
    assert ("T2-NS-DEFAULT-DENY", "lab-cluster/ns team-c") in failed
    targets = {t["name"]: t for t in report["targets"]}  # type: ignore[index]
    assert targets["be-spine1"]["status"] == "partial" and "truncated" in targets["be-spine1"]["reason"]
    assert targets["111122223333/us-east-1"]["status"] == "partial"
    aws_files = list((lab / "evidence" / "aws" / "us-east-1").glob("*.json"))  # the broken one included
    assert targets["111122223333/us-east-1"]["captures"] == len(aws_files)
    # the CLI names them too
    assert "be-spine1.cfg:40" in result.stdout.replace("\n", "")
    verify = run_cli("verify", "-c", str(lab / "auditor.yaml"))
    assert verify.returncode == 0, verify.stdout


def test_missing_evidence_path_is_an_evidence_gap(lab: Path) -> None:
    cfg = lab / "auditor.yaml"
    cfg.write_text(
        cfg.read_text().replace(
            "    - evidence/flowlogs\n", "    - evidence/flowlogs\n    - evidence/nowhere\n"
        )
    )
    result = run_cli("audit", "-c", str(cfg), "--quiet")
    assert result.returncode == 1
    report = _report(lab)
    assert any("evidence/nowhere" in p["location"] for p in report["problems"])  # type: ignore[index]
    assert report["run"]["status"] == "partial"  # type: ignore[index]


def test_usage_errors_exit_2() -> None:
    bad_value = run_cli("report", "--run", "notanumber")
    assert bad_value.returncode == 2
    assert "Invalid value for '--run'" in bad_value.stderr
    assert run_cli("no-such-command").returncode == 2
