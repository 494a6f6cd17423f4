"""Field agreement of the normalized facts with the public ground truth in ../shared/fixtures (issue 10).

Per platform and ground-truth source: fields compared, fields agreeing, the percentage, and the first
disagreements. The comparisons are tests/normalizers/ground_truth.py's, the same the normalizer tests
assert; this script only walks every ground-truth file and counts. Run from the repository root:
    python benchmarks/ground_truth_agreement.py [--fixtures DIR] [--show N]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auditor.capture import RawCapture
from collectors.normalizers.napalm import normalize_getter, normalize_getters
from collectors.parsing.napalm_names import canonical_getters, namer_for
from collectors.platforms.ios.show import normalize_show_text
from collectors.platforms.nxos.show import normalize_show_json
from collectors.platforms.sonic.config_db import normalize_config_db
from tests.normalizers import ground_truth as gt
from tests.normalizers import test_eos
from tests.normalizers.test_napalm import _interface_vrfs

SHARED = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
NAPALM_PLATFORMS = {"eos": "eos", "nxos": "nxos", "nxos_ssh": "nxos", "ios": "ios", "junos": "junos"}


@dataclass
class Tally:
    compared: int = 0
    agreed: int = 0
    misses: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def add(self, origin: str, fields: Iterable[gt.Field]) -> None:
        for where, got, want in fields:
            self.compared += 1
            if got == want:
                self.agreed += 1
            else:
                self.misses.append(f"{origin}: {where}: got {got!r}, want {want!r}")


def avd(tally: Tally, fixtures: Path) -> None:
    root = fixtures / "arista-avd"
    for test_case in test_eos.CASES:
        # the tests' copy holds the same files as the shared folder: read the shared ones
        cfg = root / test_case.cfg.relative_to(test_eos.AVD)
        model = root / test_case.model_path.relative_to(test_eos.AVD)
        tally.add(
            test_case.name, gt.avd_fields(test_eos.Case(test_case.name, cfg, model, test_case.molecule))
        )


def _getter_files(driver_dir: Path, getter: str) -> list[Path]:
    return sorted(driver_dir.glob(f"**/test_{getter}/*/expected_result.json"))


def napalm(tallies: dict[tuple[str, str], Tally], fixtures: Path, canonical: bool) -> None:
    """With `canonical`, the ground truth's interface names are first put through the platform's
    canonical-name function (the facts promise one name per port: NX-OS `port-channel12`, `mgmt0`);
    without it, NAPALM's names are compared as NAPALM's getters give them."""
    for driver, platform in NAPALM_PLATFORMS.items():
        ddir = fixtures / "napalm-mocked-data" / driver
        tally = tallies.setdefault((platform, "napalm" if canonical else "napalm-rawname"), Tally())
        namer = namer_for(gt.napalm_capture("napalm.getters", {}, platform))

        def canon(getter: str, value: Any, namer: Any = namer) -> Any:
            return canonical_getters({getter: value}, namer)[getter] if canonical else value

        first: dict[str, Any] = {}
        for getter, compare in (
            ("get_network_instances", gt.napalm_vrf_fields),
            ("get_vlans", gt.napalm_vlan_fields),
            ("get_lldp_neighbors", gt.napalm_lldp_fields),
        ):
            for path in _getter_files(ddir, getter):
                expected = json.loads(path.read_text())
                first.setdefault(getter, expected)
                result = normalize_getter(gt.napalm_capture(f"napalm.{getter}", expected, platform))
                tally.problems += [f"{driver}/{path.parent.name}: {p.message}" for p in result.problems]
                want = canon(getter, expected)
                tally.add(f"{driver} {getter}/{path.parent.name}", compare(result.facts, want))
        links = _getter_files(ddir, "get_interfaces")
        ips = _getter_files(ddir, "get_interfaces_ip")
        if not (links and ips and "get_network_instances" in first):
            continue
        # every get_interfaces case with the first IP case, every IP case with the first interfaces case
        pairs = [(a, ips[0]) for a in links] + [(links[0], b) for b in ips[1:]]
        for a, b in pairs:
            bundle = {
                "get_interfaces": json.loads(a.read_text()),
                "get_interfaces_ip": json.loads(b.read_text()),
                "get_network_instances": first["get_network_instances"],
                "get_vlans": first.get("get_vlans", {}),
            }
            result = normalize_getters(gt.napalm_capture("napalm.getters", bundle, platform))
            want = canonical_getters(bundle, namer) if canonical else bundle
            vrf_of = _interface_vrfs(want["get_network_instances"])
            fields = gt.napalm_interface_fields(
                result.facts, want["get_interfaces"], want["get_interfaces_ip"], vrf_of
            )
            tally.add(f"{driver} interfaces {a.parent.name}+{b.parent.name}", fields)


def _capture(fmt: str, platform: str, command: str, content: bytes) -> RawCapture:
    return RawCapture(
        target="r1",
        format=fmt,
        source=command,
        origin="r1.example:22",
        collected_at=datetime(2025, 3, 4, tzinfo=UTC),
        content=content,
        meta={"device": "r1", "platform": platform, "command": command},
    )


IOS_COMMANDS = {
    "show_ip_route": "show ip route vrf *",
    "show_ip_access-lists": "show ip access-lists",
    "show_vrf": "show vrf",
    "show_ip_vrf_interfaces": "show ip vrf interfaces",
    "show_lldp_neighbors": "show lldp neighbors",
    "show_vlan": "show vlan",
}


def ntc(tallies: dict[tuple[str, str], Tally], fixtures: Path) -> None:
    root = fixtures / "ntc-templates"
    tally = tallies.setdefault(("ios", "ntc-templates"), Tally())
    for cdir, command in IOS_COMMANDS.items():
        for raw in sorted((root / "cisco_ios" / cdir).glob("*.raw")):
            result = normalize_show_text(_capture("ios.show-text", "ios", command, raw.read_bytes()))
            tally.problems += [f"{raw.name}: {p.message}" for p in result.problems]
            tally.add(
                f"ios {raw.stem}",
                gt.ios_ntc_fields(cdir, result.facts, gt.ntc_records(raw.with_suffix(".yml"))),
            )
    tally = tallies.setdefault(("nxos", "ntc-templates"), Tally())
    for cdir, command in gt.NXOS_NTC_COMMANDS.items():
        for yml in sorted((root / "cisco_nxos" / cdir).glob("*.yml")):
            rows = gt.ntc_records(yml)
            doc = json.dumps(gt.nxos_ntc_doc(cdir, rows), indent=1).encode()
            result = normalize_show_json(_capture("nxos.show-json", "nxos", command, doc))
            tally.problems += [f"{yml.name}: {p.message}" for p in result.problems]
            tally.add(f"nxos {yml.stem}", gt.nxos_ntc_fields(cdir, result.facts, rows))


def sonic(tallies: dict[tuple[str, str], Tally], fixtures: Path) -> None:
    """No public SONiC or NVUE parse expectations exist (see ../shared/fixtures/INDEX.md); the SONiC
    config_db samples are compared with their own tables instead (gt.sonic_table_fields)."""
    tally = tallies.setdefault(("sonic", "config_db-tables"), Tally())
    files = sorted((fixtures / "sonic-buildimage").rglob("sample_config_db.json"))
    files += sorted((fixtures / "sonic-utilities").rglob("config_db*.json"))
    files += sorted((fixtures / "sonic-utilities" / "tests" / "db_migrator_input").rglob("*.json"))
    files += sorted((fixtures / "sonic-buildimage").rglob("l3_intfs.json"))
    files += sorted((fixtures / "sonic-buildimage").rglob("l2switch.json"))
    files += sorted((fixtures / "batfish" / "sonic-grammar-test-snapshots").rglob("config_db.json"))
    for path in files:
        doc = json.loads(path.read_text())
        content = json.dumps(doc.get("SAMPLE_CONFIG_DB_JSON", doc)).encode()
        capture = _capture("sonic.config-db", "sonic", "show runningconfiguration all", content)
        result = normalize_config_db(capture)
        origin = str(path.relative_to(fixtures))
        tally.problems += [f"{origin}: {p.message}" for p in result.problems]
        tally.add(origin, gt.sonic_table_fields(doc, result.facts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=SHARED)
    parser.add_argument("--show", type=int, default=5, help="disagreements listed per row")
    args = parser.parse_args()
    tallies: dict[tuple[str, str], Tally] = {("eos", "avd"): Tally()}
    avd(tallies[("eos", "avd")], args.fixtures)
    napalm(tallies, args.fixtures, canonical=True)
    napalm(tallies, args.fixtures, canonical=False)
    ntc(tallies, args.fixtures)
    sonic(tallies, args.fixtures)
    print(f"{'platform':<8} {'source':<14} {'compared':>8} {'agree':>8} {'%':>8}")
    for (platform, source), t in sorted(tallies.items()):
        pct = 100 * t.agreed / t.compared if t.compared else float("nan")
        print(f"{platform:<8} {source:<14} {t.compared:>8} {t.agreed:>8} {pct:>8.2f}")
    for (platform, source), t in sorted(tallies.items()):
        if t.misses or t.problems:
            print(f"\n{platform} / {source}: {len(t.misses)} disagreeing, {len(t.problems)} problems")
            for line in t.misses[: args.show] + t.problems[: args.show]:
                print(f"  {line}")


if __name__ == "__main__":
    main()
