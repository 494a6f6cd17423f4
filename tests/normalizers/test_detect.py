"""Offline files are read as the platform their content says, with no hint and no conversion: every
registered platform's detector against real samples (see the SOURCE.txt beside each), decoys that
look alike, and the `platform:` hint deciding only what the content cannot."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from auditor.capture import RawCapture
from auditor.config.loader import parse_config
from collectors.offline.classify import UNKNOWN_CONFIG, classify, read_head
from collectors.offline.collector import OfflineFilesCollector
from collectors.platforms.cumulus.nvue import normalize_nvue_json, normalize_nvue_yaml
from collectors.platforms.registry import platforms
from tests.normalizers.test_junos import _key

FIX = Path(__file__).resolve().parents[1] / "fixtures"

SAMPLES = [
    ("avd/molecule/eos_cli_config_gen/intended/configs/vrf-instances.cfg", "eos.running-config"),
    ("avd/molecule/eos_cli_config_gen/intended/configs/port-channel-interfaces.cfg", "eos.running-config"),
    ("nxos/ai_backend_leaf/running-config.txt", "nxos.running-config"),
    ("nxos/napalm_nxos_ssh_normal/running-config.txt", "nxos.running-config"),
    ("ios/lhr-border-02.cfg", "ios.running-config"),
    ("ios/ios-xe-bgp-vrf.cfg", "ios.running-config"),
    ("junos/batfish_as1core1_ios.cfg", "ios.running-config"),  # an IOS router in Batfish's Junos network
    ("junos/ai_leaf.conf", "junos.config"),
    ("junos/ai_leaf.set", "junos.config"),
    ("junos/batfish_gh-2658-vrf-import-export.cfg", "junos.config"),
    ("junos/batfish_junos-srx-1.set", "junos.config"),
    ("junos/batfish_juniper_interfaces.set", "junos.config"),
    ("sonic/buildimage_sample_config_db.json", "sonic.config-db"),
    ("sonic/batfish_basic.json", "sonic.config-db"),
    ("sonic/utilities_mock_config_db.json", "sonic.config-db"),
    ("sonic/buildimage_qos_mellanox4600c_c64.json", "sonic.config-db"),  # QoS tables only
    ("cumulus/synthetic_leaf01_nvue.json", "cumulus.nvue-json"),
    ("cumulus/synthetic_leaf01_startup.yaml", "cumulus.nvue-yaml"),
    ("onyx/synthetic_sn2700_running-config.txt", "onyx.running-config"),
]


@pytest.mark.parametrize(("rel", "fmt"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_each_platform_is_detected_from_its_own_export(rel: str, fmt: str) -> None:
    path = FIX / rel
    found = classify(path, read_head(path))
    assert found is not None and found.format == fmt, found


def test_every_registered_platform_has_a_detected_sample() -> None:
    """A new platform is covered here by adding its sample to SAMPLES."""
    formats = {fmt for _, fmt in SAMPLES}
    for name, platform in platforms().items():
        assert platform.detect is not None, name
        assert formats & set(platform.normalizers), f"{name}: no sample in SAMPLES"


def test_hostnames_come_from_the_content() -> None:
    cases = {
        "junos/ai_leaf.set": "be-leaf-qfx1",
        "junos/ai_leaf.conf": "be-leaf-qfx1",
        "ios/lhr-border-02.cfg": "lhr-border-02",
        "onyx/synthetic_sn2700_running-config.txt": "be-leaf-onyx1",
        "cumulus/synthetic_leaf01_startup.yaml": "leaf01",
    }
    for rel, host in cases.items():
        found = classify(FIX / rel, read_head(FIX / rel))
        assert found is not None and found.hostname == host, (rel, found)


def test_a_config_with_only_a_hostname_is_not_guessed() -> None:
    found = classify(Path("x.cfg"), b"hostname edge1\n!\ninterface Loopback0\n ip address 10.0.0.1/32\n")
    assert found is not None and found.format == UNKNOWN_CONFIG and found.hostname == "edge1"


def test_nvue_yaml_reads_on_and_off_as_strings_like_its_json() -> None:
    """PyYAML (YAML 1.1) turns NVUE's `on` into True; the NVUE reader must not."""
    text = (FIX / "cumulus/synthetic_leaf01_startup.yaml").read_text()
    assert yaml.safe_load(text)[1]["set"]["interface"]["bond1"]["bond"]["lacp-bypass"] is True
    as_json = normalize_nvue_json(_capture((FIX / "cumulus/synthetic_leaf01_nvue.json").read_bytes(), "json"))
    as_yaml = normalize_nvue_yaml(_capture(text.encode(), "yaml"))
    assert as_yaml.problems == as_json.problems == []
    assert sorted(map(_key, as_yaml.facts)) == sorted(map(_key, as_json.facts))


def _capture(content: bytes, kind: str) -> RawCapture:
    return RawCapture(
        target="leaf01",
        format=f"cumulus.nvue-{kind}",
        source="startup.yaml",
        origin="leaf01",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=content,
        meta={"device": "leaf01", "platform": "cumulus"},
    )


def _plan(tmp_path: Path, files: dict[str, str], hint: str | None = None) -> tuple[dict[str, str], list[str]]:
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    for name, rel in files.items():
        shutil.copy(FIX / rel, evidence / name)
    extra = f", platform: {hint}" if hint else ""
    config = parse_config(f"sources:\n  files:\n    - {{path: {evidence}{extra}}}\n", base_dir=tmp_path)
    plan = OfflineFilesCollector().plan(config)
    return {t.name: str(t.platform) for t in plan.targets}, [f"{p} ({p.hint})" for p in plan.problems]


def test_a_directory_of_raw_exports_is_audited_with_no_hint(tmp_path: Path) -> None:
    targets, problems = _plan(
        tmp_path,
        {
            "border.cfg": "ios/lhr-border-02.cfg",
            "leaf.conf": "junos/ai_leaf.conf",
            "srx.txt": "junos/batfish_junos-srx-1.set",
            "config_db.json": "sonic/batfish_basic.json",
            "startup.yaml": "cumulus/synthetic_leaf01_startup.yaml",
            "onyx.txt": "onyx/synthetic_sn2700_running-config.txt",
        },
    )
    assert problems == []
    assert targets["lhr-border-02"] == "ios"
    assert targets["be-leaf-qfx1"] == "junos"
    assert targets["junos-srx-1"] == "junos"
    assert targets["leaf01"] == "cumulus"
    assert targets["be-leaf-onyx1"] == "onyx"
    assert "sonic" in targets.values()


def test_a_hint_never_overrides_what_the_content_says(tmp_path: Path) -> None:
    """`platform: eos` on an IOS config used to read it with the EOS parser (0 of its ACLs)."""
    targets, problems = _plan(tmp_path, {"r.cfg": "ios/lhr-border-02.cfg"}, hint="eos")
    assert (targets, problems) == ({"lhr-border-02": "ios"}, [])


def test_the_hint_decides_an_undetectable_config_and_its_absence_is_reported(tmp_path: Path) -> None:
    bare = tmp_path / "bare.cfg"  # a hostname and an address: every Cisco-like OS writes this
    bare.write_text("hostname edge1\n!\ninterface Loopback0\n ip address 10.0.0.1/32\n")
    (tmp_path / "hinted").mkdir()
    targets, problems = _plan(tmp_path / "hinted", {"e.cfg": str(bare)}, hint="ios")
    assert (targets, problems) == ({"edge1": "ios"}, [])
    (tmp_path / "bare").mkdir()
    targets, problems = _plan(tmp_path / "bare", {"e.cfg": str(bare)})
    assert targets == {} and len(problems) == 1
    assert "cannot tell the platform" in problems[0] and "junos" in problems[0]
