"""A device file without a hostname takes its name from its file, or, for a name every device's file has
(config_db.json, frr.conf, startup.yaml), from the directory holding it: batfish's per-device layout
(sonic_configs/<device>/{config_db.json,frr.conf}) groups both files of a device into one target."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from auditor.config import load_config
from collectors.offline.collector import OfflineFilesCollector, device_name

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_generic_file_names_take_the_directory_name() -> None:
    assert device_name(Path("ev/leaf07/config_db.json")) == "leaf07"
    assert device_name(Path("ev/leaf07/frr.conf")) == "leaf07"
    assert device_name(Path("ev/leaf09/startup.yaml")) == "leaf09"
    assert device_name(Path("ev/leaf07/leaf07-backup.cfg")) == "leaf07-backup"  # a name of its own
    assert device_name(Path("ev/spine1.json")) == "spine1"


def test_per_device_directories_without_hostnames_group_by_directory(tmp_path: Path) -> None:
    ev = tmp_path / "evidence"
    (ev / "leaf07").mkdir(parents=True)
    (ev / "leaf09").mkdir(parents=True)
    db = {"PORT": {"Ethernet0": {"admin_status": "up", "mtu": "9100"}}, "VLAN": {"Vlan10": {"vlanid": "10"}}}
    (ev / "leaf07" / "config_db.json").write_text(json.dumps(db, indent=4))
    shutil.copy(FIXTURES / "sonic" / "batfish_basic_frr.conf", ev / "leaf07" / "frr.conf")
    nvue = (FIXTURES / "cumulus" / "synthetic_leaf01_startup.yaml").read_text()
    (ev / "leaf09" / "startup.yaml").write_text(nvue.replace("      hostname: leaf01\n", ""))
    (tmp_path / "auditor.yaml").write_text("sources:\n  files:\n    - evidence\nstore: sqlite:///db.sqlite\n")
    plan = OfflineFilesCollector().plan(load_config(tmp_path / "auditor.yaml"))
    assert plan.problems == []
    targets = {t.name: (t.platform, sorted(Path(f[0]).name for f in t.payload.files)) for t in plan.targets}
    assert targets == {
        "leaf07": ("sonic", ["config_db.json", "frr.conf"]),
        "leaf09": ("cumulus", ["startup.yaml"]),
    }


def test_a_device_takes_the_platform_of_its_own_config_not_of_frr_conf(tmp_path: Path) -> None:
    """Cumulus Linux keeps an frr.conf too; read beside NVUE's startup.yaml (and sorting before it), it
    must not make the switch a SONiC device."""
    ev = tmp_path / "evidence" / "leaf09"
    ev.mkdir(parents=True)
    (ev / "frr.conf").write_text("frr version 8.4.3\nhostname leaf09\n!\nrouter bgp 65109\n!\n")
    nvue = (FIXTURES / "cumulus" / "synthetic_leaf01_startup.yaml").read_text()
    (ev / "startup.yaml").write_text(nvue.replace("hostname: leaf01", "hostname: leaf09"))
    (tmp_path / "auditor.yaml").write_text("sources:\n  files:\n    - evidence\nstore: sqlite:///db.sqlite\n")
    plan = OfflineFilesCollector().plan(load_config(tmp_path / "auditor.yaml"))
    assert plan.problems == []
    assert [(t.name, t.platform, len(t.payload.files)) for t in plan.targets] == [("leaf09", "cumulus", 2)]
