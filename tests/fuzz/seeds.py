"""Seed captures for fuzzing: one or more real fixture files for every registered capture format.

Each seed is what a collector would hand a normalizer (format, meta, bytes), built from the captured
files under tests/fixtures, so mutations start from real input. `test_seeds_cover_every_format` holds
this table to the normalizer registry: a new format without a seed fails there, not silently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from auditor.capture import RawCapture

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
IB_FIXTURES = Path(__file__).resolve().parents[1] / "ib" / "fixtures"
WHEN = datetime(2025, 3, 4, tzinfo=UTC)


@dataclass(frozen=True)
class Seed:
    format: str
    path: Path
    meta: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.format}:{self.path.name}"

    def content(self) -> bytes:
        return self.path.read_bytes()

    def capture(self, content: bytes) -> RawCapture:
        meta = {"device": "dut", **self.meta}
        return RawCapture(
            target="dut",
            format=self.format,
            source=self.meta.get("command") or f"{self.format} (offline file)",
            origin=f"fuzz/{self.path.name}",
            collected_at=WHEN,
            content=content,
            meta=meta,
        )


def _dev(platform: str, command: str | None = None) -> dict[str, str]:
    meta = {"platform": platform, "tier": "backend", "role": "leaf"}
    if command:
        meta["command"] = command
    return meta


_AVD = FIXTURES / "avd/molecule/eos_cli_config_gen/intended/configs"
_NTC_IOS = FIXTURES / "ntc/cisco_ios"
_NAPALM = FIXTURES / "napalm/eos"
_CLI = FIXTURES / "aws/cli/us-east-1"
_BATFISH_AWS = FIXTURES / "aws/batfish/networks/hybrid-cloud-aws/aws_configs/us-west-2"

SEEDS: list[Seed] = [
    Seed("eos.running-config", _AVD / "vrf-instances.cfg", _dev("eos")),
    Seed("eos.running-config", _AVD / "port-channel-interfaces.cfg", _dev("eos")),
    Seed(
        "eos.show-json",
        FIXTURES / "eos_show/show_ip_access-lists.json",
        _dev("eos", "show ip access-lists | json"),
    ),
    Seed(
        "eos.show-json",
        FIXTURES / "eos_show/synthetic_show_priority-flow-control.json",
        _dev("eos", "show priority-flow-control | json"),
    ),
    Seed("eos.show-json", FIXTURES / "eos_show/show_vxlan_vni.json", _dev("eos", "show vxlan vni | json")),
    Seed("ios.running-config", FIXTURES / "ios/as2border1.cfg", _dev("ios")),
    Seed("ios.running-config", FIXTURES / "ios/rtr-with-acl.cfg", _dev("ios")),
    Seed(
        "ios.show-text",
        _NTC_IOS / "show_ip_access-lists/cisco_ios_show_ip_access-lists.raw",
        _dev("ios", "show ip access-lists"),
    ),
    Seed(
        "ios.show-text",
        _NTC_IOS / "show_ip_route/cisco_ios_show_ip_route.raw",
        _dev("ios", "show ip route vrf *"),
    ),
    Seed(
        "eos.show-mgmt",
        FIXTURES / "devsim/eos/show_management_ssh.txt",
        _dev("eos", "show management ssh"),
    ),
    Seed(
        "eos.show-mgmt",
        FIXTURES / "devsim/eos/show_management_api_http-commands.txt",
        _dev("eos", "show management api http-commands"),
    ),
    Seed("ios.show-mgmt", FIXTURES / "devsim/ios/show_ip_ssh.txt", _dev("ios", "show ip ssh")),
    Seed(
        "ios.show-text",
        FIXTURES / "devsim/ios/show_ip_http_server_status.txt",
        _dev("ios", "show ip http server status"),
    ),
    Seed("junos.config", FIXTURES / "junos/ai_leaf.conf", _dev("junos")),
    Seed("junos.config", FIXTURES / "junos/batfish_juniper_firewall.set", _dev("junos")),
    Seed("nxos.running-config", FIXTURES / "nxos/batfish_nxos_vrf/running-config.txt", _dev("nxos")),
    Seed(
        "nxos.show-json",
        FIXTURES / "nxos_show/synthetic_show_interface_priority-flow-control.json",
        _dev("nxos", "show interface priority-flow-control | json"),
    ),
    Seed("onyx.running-config", FIXTURES / "onyx/synthetic_sn2700_running-config.txt", _dev("onyx")),
    Seed(
        "onyx.show-text",
        FIXTURES / "devsim/onyx/show_interfaces_ethernet.txt",
        _dev("onyx", "show interfaces ethernet"),
    ),
    Seed("sonic.config-db", FIXTURES / "sonic/batfish_acl.json", _dev("sonic")),
    Seed("sonic.config-db", FIXTURES / "sonic/buildimage_sample_config_db.json", _dev("sonic")),
    Seed("sonic.frr", FIXTURES / "sonic/pybatfish_leaf01_frr.conf", _dev("sonic")),
    Seed("cumulus.nvue-json", FIXTURES / "cumulus/synthetic_leaf01_nvue.json", _dev("cumulus")),
    Seed("cumulus.nvue-yaml", FIXTURES / "cumulus/synthetic_leaf01_startup.yaml", _dev("cumulus")),
    Seed(
        "k8s.manifest",
        FIXTURES / "k8s/k8s-network-policy-recipes/04-deny-traffic-from-other-namespaces__1.yaml",
        {"cluster": "fuzz"},
    ),
    Seed(
        "k8s.manifest",
        FIXTURES
        / "k8s/cilium-connectivity-manifests/cilium-cli/connectivity/builder/manifests/client-egress-to-echo.yaml",
        {"cluster": "fuzz"},
    ),
    Seed(
        "aws.describe",
        _BATFISH_AWS / "SecurityGroups.json",
        {"region": "us-west-2", "account": "123456789012"},
    ),
    Seed(
        "aws.describe", _BATFISH_AWS / "RouteTables.json", {"region": "us-west-2", "account": "123456789012"}
    ),
    Seed(
        "aws.describe",
        _CLI / "flowlogs-locked.object-lock.json",
        {"region": "us-east-1", "aws_file": "object-lock", "aws_resource": "flowlogs-locked"},
    ),
    Seed("aws.flowlog", FIXTURES / "flowlogs/default-v2-no-header/flows.log", {}),
    Seed("aws.flowlog", FIXTURES / "flowlogs/custom-v5-header/flows.log", {}),
    Seed("aws.flowlog.object", FIXTURES / "flowlogs/default-v2-no-header/flows.log", {}),
    Seed("opensm.partitions", FIXTURES / "opensm/partition-config-examples.conf", {"fabric": "fuzz"}),
    Seed("opensm.partitions", FIXTURES / "opensm/malformed.conf", {"fabric": "fuzz"}),
    Seed("ufm.pkeys", IB_FIXTURES / "ufm-pkeys.json", {"fabric": "fuzz"}),
]

# NAPALM getters: each getter's expected result (what the driver returns) is the capture's content.
for _getter in (
    "get_interfaces",
    "get_interfaces_ip",
    "get_lldp_neighbors",
    "get_network_instances",
    "get_vlans",
):
    SEEDS.append(Seed(f"napalm.{_getter}", _NAPALM / _getter / "normal/expected_result.json", _dev("eos")))
SEEDS += [
    Seed(
        "napalm.get_facts",
        FIXTURES / "napalm/synthetic/get_facts/docstring/expected_result.json",
        _dev("eos"),
    ),
    Seed("napalm.get_config", FIXTURES / "devsim/eos/expected_get_config.json", _dev("eos")),
]


def bundle_seed_content() -> bytes:
    """A `napalm.getters` bundle built from the getters' seeds, the way the live collector stores it."""
    from collectors.normalizers.napalm import bundle_content

    getters = {
        s.format.partition(".")[2]: json.loads(s.content())
        for s in SEEDS
        if s.format.startswith("napalm.get_")
    }
    return bundle_content(getters)


def aggregate_seed_content() -> bytes:
    """An `aws.flowlog.aggregate` document, as live collection stores it, of the default-format seed."""
    from collectors.flowlogs.facts import totals_document
    from collectors.normalizers.flowlogs import read_flow_log

    path = FIXTURES / "flowlogs/default-v2-no-header/flows.log"
    totals = read_flow_log(path.read_bytes(), "s3://fuzz/flows.log")
    objects = [{"uri": "s3://fuzz/flows.log", "sha256": "0" * 64, "size": path.stat().st_size}]
    document = totals_document(totals, "fl-fuzz", (1_700_000_000, 1_700_000_600), objects)
    return json.dumps(document, sort_keys=True, indent=1).encode()


# Formats whose content is built from seeds (as their collectors build it), not read from one file.
GENERATED = {
    "napalm.getters": (FIXTURES / "napalm/eos/get_vlans/normal/expected_result.json", bundle_seed_content),
    "aws.flowlog.aggregate": (FIXTURES / "flowlogs/default-v2-no-header/flows.log", aggregate_seed_content),
}
