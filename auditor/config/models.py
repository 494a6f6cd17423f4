"""Pydantic models of the audit config. The config holds references to secrets, never secrets."""

from __future__ import annotations

import fnmatch
import ipaddress
import re
from datetime import date
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from auditor.config.alerts import AlertSettings
from auditor.config.schedule import MetricsSettings, Schedule, unique_configs
from auditor.config.segmentation import (
    PortAssignment,
    VrfAlias,
    alias_list,
    canonical_vrf,
    check_references,
    port_assignment,
)
from auditor.enums import Tier

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _cidr(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a CIDR such as 10.0.0.0/16, got {value!r}")
    try:
        return str(ipaddress.ip_network(value, strict=False))
    except ValueError as exc:
        raise ValueError(f"expected a CIDR such as 10.0.0.0/16, got {value!r}") from exc


Cidr = Annotated[str, BeforeValidator(_cidr)]  # validated per item, so errors name the list index


def _platform(value: object) -> str:
    """A registered network platform's name, from its name or any alias (`nxos_ssh`, `arista_eos`, ...).
    The list comes from the platform registry (entry-point group auditor.platforms)."""
    from collectors.platforms.registry import platforms  # noqa: PLC0415 - loads the platform plugins

    found = platforms().resolve(value) if isinstance(value, str) else None
    if found is None:
        names = ", ".join(name for name, _ in platforms().items())
        raise ValueError(f"unknown platform {value!r}: expected one of {names}")
    return found.name


PlatformName = Annotated[str, BeforeValidator(_platform)]


def _int_ranges(
    value: object, *, shape: str, item: str, name: str, low: int, high: int, pairs: bool = False
) -> list[tuple[int, int]]:
    """Numbers and ranges given as "100-199,300", [100, "200-210"] (or [[100, 199]] when `pairs`),
    each within low..high; `shape`, `item` and `name` word the errors for the field being read."""
    items: list[object]
    if isinstance(value, str):
        items = [p for p in value.replace(" ", "").split(",") if p]
    elif isinstance(value, int):
        items = [value]
    elif isinstance(value, list):
        items = list(value)
    else:
        raise ValueError(f"expected {shape}")
    out: list[tuple[int, int]] = []
    for entry in items:
        if isinstance(entry, int) and not (isinstance(entry, bool) and not pairs):
            lo = hi = entry
        elif isinstance(entry, str) and re.fullmatch(r"\d+(-\d+)?", entry):
            lo_s, _, hi_s = entry.partition("-")
            lo, hi = int(lo_s), int(hi_s or lo_s)
        elif (
            pairs
            and isinstance(entry, list | tuple)
            and len(entry) == 2
            and all(isinstance(i, int) for i in entry)
        ):
            lo, hi = entry[0], entry[1]
        else:
            raise ValueError(f"expected {item}, got {entry!r}")
        if not (low <= lo <= hi <= high):
            raise ValueError(f"{name} range {lo}-{hi} is outside {low}-{high}")
        out.append((lo, hi))
    return out


def _vlan_ranges(value: object) -> list[tuple[int, int]]:
    """Accept "100-199,300", [100, "200-210"] or [[100, 199]]."""
    return _int_ranges(
        value,
        shape="VLAN ranges such as '100-199,300'",
        item="a VLAN id or range such as 100-199",
        name="VLAN",
        low=1,
        high=4094,
        pairs=True,  # VLAN lists have always also taken [lo, hi] pairs (and, being ints, booleans)
    )


class NamespaceSelector(_Strict):
    """Which Kubernetes namespaces belong to a tier: by name pattern and/or by labels."""

    names: list[str] = []
    labels: dict[str, str] = {}
    exclude: list[str] = ["kube-system", "kube-public", "kube-node-lease"]
    tenant_label: str | None = Field(
        default=None,
        description="namespace label naming the tenant (namespaces sharing its value are one tenant); "
        "unset: every selected namespace is its own tenant",
    )

    def tenant_of(self, name: str, labels: dict[str, str]) -> str:
        """The tenant a selected namespace belongs to (T2-NO-CROSS-TENANT)."""
        if self.tenant_label and labels.get(self.tenant_label):
            return labels[self.tenant_label]
        return name

    def selects(self, name: str, labels: dict[str, str]) -> bool:
        if any(fnmatch.fnmatchcase(name, pat) for pat in self.exclude):
            return False
        if not self.names and not self.labels:
            return False
        by_name = not self.names or any(fnmatch.fnmatchcase(name, pat) for pat in self.names)
        by_labels = all(labels.get(k) == v for k, v in self.labels.items())
        return by_name and by_labels


class AwsTags(_Strict):
    vpc_tags: dict[str, str] = {}
    subnet_tags: dict[str, str] = {}


class TierIntent(_Strict):
    """What one tier is made of. Checks hold observed facts against this."""

    cidrs: list[Cidr] = []
    vrfs: list[str] = []
    vlans: list[tuple[int, int]] = []
    devices: list[str] = Field(default=[], description="hostname glob patterns of this tier's devices")
    device_roles: dict[str, list[str]] = Field(
        default={}, description="role name -> hostname glob patterns, e.g. {leaf: ['be-leaf*']}"
    )
    namespaces: NamespaceSelector | None = None
    aws: AwsTags | None = None

    @field_validator("vlans", mode="before")
    @classmethod
    def _vlans(cls, v: object) -> list[tuple[int, int]]:
        return _vlan_ranges(v)

    def networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        return [ipaddress.ip_network(c) for c in self.cidrs]

    def role_of(self, hostname: str) -> str | None:
        for role, patterns in self.device_roles.items():
            if any(fnmatch.fnmatchcase(hostname, p) for p in patterns):
                return role
        return None

    def claims(self, hostname: str) -> bool:
        patterns = list(self.devices) + [p for ps in self.device_roles.values() for p in ps]
        return any(fnmatch.fnmatchcase(hostname, p) for p in patterns)


def _port_ranges(value: object) -> list[tuple[int, int]]:
    """Accept [161, "1812-1813"] or "67-69,4011"."""
    return _int_ranges(
        value,
        shape="ports such as [161] or ['1812-1813']",
        item="a port or range such as 161 or '1812-1813'",
        name="port",
        low=0,
        high=65535,
    )


# a DNS name (RFC 1123 labels; a trailing dot allowed), as a proxy may be declared by name
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = re.compile(rf"(?=.{{1,253}}\.?$)({_LABEL}\.)*{_LABEL}\.?")
_AWS_ID = re.compile(r"^(tgw|tgw-attach|igw|nat|eigw|vgw|eni|i|pcx|cagw|lgw|vpce)-[0-9a-f]+$")


def _gateway(value: object) -> str:
    """An OOB gateway: an address/CIDR (a next hop) or an AWS route target id (tgw-..., eni-...)."""
    if isinstance(value, str) and _AWS_ID.match(value):
        return value
    try:
        return _cidr(value)
    except ValueError:
        raise ValueError(
            f"expected a gateway address such as 10.250.0.1 or an AWS route target such as tgw-0abc, "
            f"got {value!r}"
        ) from None


class OobService(_Strict):
    """A service authorised into or out of the OOB network beyond the jump hosts (SNMP pollers, NTP,
    syslog, AAA, DHCP/PXE). Its replies (from destinations and ports back to sources) are authorised too."""

    name: str = Field(min_length=1)
    sources: list[Cidr] = Field(min_length=1)
    destinations: list[Cidr] = Field(min_length=1)
    protocol: Literal["tcp", "udp", "icmp", "any"]
    ports: list[tuple[int, int]] = Field(default=[], description="destination ports; required for tcp/udp")

    @field_validator("ports", mode="before")
    @classmethod
    def _ports(cls, v: object) -> list[tuple[int, int]]:
        return _port_ranges(v)

    @model_validator(mode="after")
    def _ports_fit(self) -> OobService:
        if self.protocol in ("tcp", "udp") and not self.ports:
            raise ValueError(f"service {self.name!r}: give the {self.protocol} ports, e.g. ports: [161]")
        if self.protocol in ("icmp", "any") and self.ports:
            raise ValueError(f"service {self.name!r}: ports apply to tcp or udp only")
        return self


class OobTier(TierIntent):
    jump_hosts: list[Cidr] = []
    services: list[OobService] = Field(
        default=[], description="authorised services into/out of OOB beyond the jump hosts"
    )
    gateways: list[Annotated[str, BeforeValidator(_gateway)]] = Field(
        default=[], description="next hops (or AWS route targets) a management default route may use"
    )


class ClusterDns(_Strict):
    """The in-cluster DNS: traffic to this Service and its pods is the approved resolver path, and it
    is judged on where its Corefile (the ConfigMap `corefile`) forwards."""

    service: str = "kube-system/kube-dns"
    corefile: str = "kube-system/coredns"

    @field_validator("service", "corefile")
    @classmethod
    def _namespaced(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?/[a-z0-9]([a-z0-9.-]*[a-z0-9])?", v):
            raise ValueError(f"expected namespace/name such as kube-system/kube-dns, got {v!r}")
        return v


class FrontendTier(TierIntent):
    egress_proxy: list[str] = Field(
        default=[],
        description="address:port or name:port of the declared forward proxies (a name matches FQDN rules)",
    )
    dns_resolvers: list[str] = []
    cluster_dns: ClusterDns = ClusterDns()
    load_balancer_ports: list[int] = Field(
        default=[443], description="ports model-serving security groups and NACLs may open to the internet"
    )

    @field_validator("egress_proxy")
    @classmethod
    def _proxy(cls, v: list[str]) -> list[str]:
        for item in v:
            host, sep, port = item.rpartition(":")
            if not sep or not port.isdigit() or not 0 < int(port) < 65536:
                raise ValueError(
                    f"expected host:port such as 10.20.5.10:3128 or proxy.example.com:3128, got {item!r}"
                )
            try:
                ipaddress.ip_address(host.strip("[]"))
            except ValueError:
                if not _HOSTNAME.fullmatch(host) or re.fullmatch(r"[0-9.]+", host):
                    raise ValueError(
                        f"{host!r} in {item!r} is neither an IP address nor a DNS name "
                        "(letters, digits, hyphens, dot-separated labels)"
                    ) from None
        return v

    @field_validator("dns_resolvers")
    @classmethod
    def _resolvers(cls, v: list[str]) -> list[str]:
        for item in v:
            ipaddress.ip_address(item)
        return v


class BackendTier(TierIntent):
    min_mtu: int = Field(default=9000, ge=1280, le=10240)
    lossless_priority: int = Field(default=3, ge=0, le=7)
    max_oversubscription: float = Field(default=1.0, gt=0)


class Tiers(_Strict):
    oob: OobTier | None = None
    frontend: FrontendTier | None = None
    backend: BackendTier | None = None

    def get(self, tier: Tier) -> TierIntent | None:
        if tier == Tier.CROSS:
            return None
        tier_intent: TierIntent | None = getattr(self, tier.value)
        return tier_intent

    def declared(self) -> list[Tier]:
        return [t for t in (Tier.OOB, Tier.FRONTEND, Tier.BACKEND) if self.get(t) is not None]


_SG_ID = re.compile(r"^sg-[0-9A-Za-z]+$")
_ATTACHMENT_ID = re.compile(r"^(tgw-attach|vpn|vgw|pcx|tgw|dxgw)-[0-9A-Za-z]+$")


class OpenEgressGroups(_Strict):
    """Security groups whose unrestricted egress (all traffic to 0.0.0.0/0 or ::/0) is accepted, e.g.
    node groups whose traffic an egress proxy or firewall already confines. By id and/or by tags (every
    tag given must match); the reason is printed with the PASS."""

    ids: list[str] = []
    tags: dict[str, str] = {}
    reason: str = Field(min_length=1, description="why this egress is acceptable (shown in the finding)")

    @field_validator("ids")
    @classmethod
    def _ids(cls, v: list[str]) -> list[str]:
        for item in v:
            if not _SG_ID.match(item):
                raise ValueError(f"expected a security group id such as sg-0123abcd, got {item!r}")
        return v

    @model_validator(mode="after")
    def _something(self) -> OpenEgressGroups:
        if not self.ids and not self.tags:
            raise ValueError("give ids and/or tags of the security groups")
        return self

    def matches(self, group_id: str, tags: dict[str, str]) -> bool:
        if self.ids and group_id not in self.ids:
            return False
        return all(tags.get(k) == v for k, v in self.tags.items())


class NaclReturnTraffic(_Strict):
    """Inbound NACL rules that only let replies in: a stateless NACL must admit the replies to the
    subnet's own outbound connections on the clients' ephemeral ports. An allow from the internet on
    `protocols` for ports lo-65535 with lo >= `lowest_port` (AWS documents 1024-65535) is read as such a
    rule, not as an opening. `protocols: []` turns this off (every such rule is then a finding)."""

    protocols: list[Literal["tcp", "udp"]] = ["tcp"]
    lowest_port: int = Field(default=1024, ge=1, le=65535)

    def is_return_rule(self, protocol: str, lo: int | None, hi: int | None) -> bool:
        name = {"6": "tcp", "17": "udp"}.get(protocol, protocol.lower())
        return name in self.protocols and lo is not None and lo >= self.lowest_port and hi == 65535


class CloudAttachment(_Strict):
    """A cloud attachment that leads into a tier: a transit gateway attachment (tgw-attach-...), a VPN
    connection (vpn-...) or gateway (vgw-...), a peering (pcx-...) or Direct Connect gateway (dxgw-...)."""

    id: str
    tier: Literal["oob", "frontend", "backend"]
    description: str = ""

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not _ATTACHMENT_ID.match(v):
            raise ValueError(
                f"expected an attachment id such as tgw-attach-0abc, vpn-0abc, vgw-0abc, pcx-0abc, got {v!r}"
            )
        return v


class CloudIntent(_Strict):
    """Cloud designs that look like violations but are declared legitimate (see README, cloud exceptions)."""

    open_egress_groups: list[OpenEgressGroups] = []
    nacl_return_traffic: NaclReturnTraffic = NaclReturnTraffic()
    attachments: list[CloudAttachment] = []

    def open_egress(self, group_id: str, tags: dict[str, str]) -> OpenEgressGroups | None:
        return next((g for g in self.open_egress_groups if g.matches(group_id, tags)), None)

    def attachment_tier(self, *ids: str | None) -> Tier | None:
        """The declared tier of the first of `ids` (an attachment, its VPN connection, ...) declared."""
        for ident in ids:
            for a in self.attachments:
                if ident is not None and a.id == ident:
                    return Tier(a.tier)
        return None


Responsibility = Literal["provider", "tenant", "shared"]


class FlowLogIntent(_Strict):
    """What flow-log evidence must look like (X-FLOWLOGS-* checks)."""

    retention_days: int = Field(default=365, ge=1, description="minimum Object Lock / log retention")
    window_hours: int = Field(default=24, ge=1, le=24 * 90, description="how far back flow records are read")


class Addressing(_Strict):
    """What "public" means (see checks/address_space.py): ranges internal beyond RFC 1918/CGNAT/ULA, and
    `external` ranges that count as public even inside private or special space (lab internet stand-ins)."""

    internal: list[Cidr] = []
    external: list[Cidr] = []

    @field_validator("external")
    @classmethod
    def _not_both(cls, v: list[str], info: ValidationInfo) -> list[str]:
        both = sorted(set(v) & set(info.data.get("internal", [])))
        if both:
            raise ValueError(f"{', '.join(both)} declared both internal and external; keep it in one list")
        return v


class Intent(_Strict):
    """The declared segmentation. A tier that is not declared makes its checks NOT_APPLICABLE."""

    tiers: Tiers = Tiers()
    addressing: Addressing = Addressing()
    flow_logs: FlowLogIntent = FlowLogIntent()
    cloud: CloudIntent = CloudIntent()
    shared_responsibility: dict[str, Responsibility] = Field(
        default={}, description="control area -> who operates it, e.g. {physical-network: provider}"
    )
    vrf_aliases: list[VrfAlias] = Field(
        default=[], description="device/platform spellings of declared VRFs, e.g. {Vrf-RDMA-A: RDMA-A}"
    )
    ports: list[PortAssignment] = Field(
        default=[], description="port manifest: device and interface globs -> tier, tenant, VLAN, VRF, role"
    )

    @field_validator("vrf_aliases", mode="before")
    @classmethod
    def _alias_map(cls, v: object) -> object:
        return alias_list(v)

    @model_validator(mode="after")
    def _references(self) -> Intent:
        check_references(self)
        return self

    def canonical_vrf(self, name: str, device: str | None = None, platform: str | None = None) -> str:
        """The declared VRF that `name` on this device stands for (aliases, SONiC's Vrf prefix), else
        `name`. Every comparison of a device's VRF with the declared ones goes through here."""
        return canonical_vrf(self, name, device, platform)

    def port(self, device: str, interface: str) -> PortAssignment | None:
        """The port manifest entry for this port (the first that covers it), or None."""
        return port_assignment(self, device, interface)

    def tier_of_device(self, hostname: str) -> Tier | None:
        for tier in self.tiers.declared():
            ti = self.tiers.get(tier)
            if ti is not None and ti.claims(hostname):
                return tier
        return None


class Credentials(_Strict):
    """References to where a secret lives. The secret itself is read at connect time and never stored."""

    username: str | None = None
    username_env: str | None = None
    password_env: str | None = None
    password_file: Path | None = None
    key_file: Path | None = None
    use_ssh_agent: bool = False

    @field_validator("username_env", "password_env")
    @classmethod
    def _env(cls, v: str | None) -> str | None:
        if v is not None and not _ENV_NAME.match(v):
            raise ValueError(f"expected an environment variable name, got {v!r}")
        return v


class DeviceSource(_Strict):
    host: str
    name: str | None = None
    platform: PlatformName = Field(description="a registered network platform (or one of its aliases)")
    tier: Tier | None = None
    role: str | None = None
    port: int | None = Field(default=None, ge=1, le=65535)
    credentials: Credentials = Credentials()
    known_hosts: Path | None = None
    accept_unknown_host_key: bool = Field(default=False, description="explicit, reported opt-out")
    verify_tls: bool = True
    ca_file: Path | None = None

    @property
    def target_name(self) -> str:
        return self.name or self.host


class AwsSource(_Strict):
    name: str | None = None
    profile: str | None = None
    role_arn: str | None = None
    external_id_env: str | None = None
    regions: list[str] = Field(min_length=1)
    endpoint_url: str | None = None
    flow_log_records: bool = Field(default=True, description="also read flow-log records over the window")

    @model_validator(mode="after")
    def _identity(self) -> AwsSource:
        if self.profile and self.role_arn:
            raise ValueError("give either profile or role_arn, not both")
        return self


class KubernetesSource(_Strict):
    name: str | None = None
    kubeconfig: Path | None = None
    context: str | None = None


class FileSource(_Strict):
    """A directory (or file) of offline evidence for air-gapped audits."""

    path: Path
    cluster: str | None = Field(default=None, description="cluster name for Kubernetes manifests found here")
    account: str | None = Field(default=None, description="AWS account id for describe_* JSON found here")
    region: str | None = None
    platform: PlatformName | None = Field(
        default=None, description="platform of device configs here whose platform cannot be detected"
    )
    ignore: list[str] = Field(
        default=[],
        description="file name globs (relative to this path) that are not evidence, e.g. README.md; "
        "hidden files are always skipped, every other unreadable or unrecognised file is a problem",
    )


class InventorySource(_Strict):
    """Devices from an inventory network teams already keep: Nornir/Ansible-style YAML or a NetBox export."""

    path: Path
    format: Literal["nornir", "ansible", "netbox"]
    credentials: Credentials = Credentials()
    known_hosts: Path | None = None


class UfmSource(_Strict):
    """An NVIDIA UFM server, read for InfiniBand partitions (P_Keys)."""

    name: str | None = None
    url: str
    credentials: Credentials = Credentials()
    verify_tls: bool = True
    ca_file: Path | None = None


class DeclaredPolicySource(_Strict):
    """Policies declared as code (a git checkout of manifests/JSON), compared with the live ones."""

    path: Path
    cluster: str | None = None


class Sources(_Strict):
    devices: list[DeviceSource] = []
    inventory: list[InventorySource] = []
    aws: list[AwsSource] = []
    kubernetes: list[KubernetesSource] = []
    ufm: list[UfmSource] = []
    files: list[FileSource] = []
    declared: list[DeclaredPolicySource] = []

    @field_validator("files", mode="before")
    @classmethod
    def _paths(cls, v: object) -> object:
        if isinstance(v, list):
            return [{"path": x} if isinstance(x, str) else x for x in v]
        return v


class SigningSettings(_Strict):
    """Ed25519 signing of run seals (see README, security). The private key is read from a file or an
    environment variable when a run is sealed and is never stored; `public_key` pins the key that
    `auditor verify/report/check -c auditor.yaml` require the seal to be signed with."""

    key_file: Path | None = Field(default=None, description="the private key (PEM), relative to the config")
    key_env: str | None = Field(default=None, description="an environment variable holding the key (PEM)")
    public_key: Path | None = Field(default=None, description="the public key (PEM) seals are signed with")

    @model_validator(mode="after")
    def _needs_a_key(self) -> SigningSettings:
        if self.key_file is None and self.key_env is None and self.public_key is None:
            raise ValueError("signing needs key_file or key_env (to sign), and/or public_key (to verify)")
        if self.key_file is not None and self.key_env is not None:
            raise ValueError("signing: give key_file or key_env, not both")
        return self


class CollectionSettings(_Strict):
    """How live collection behaves; the defaults suit a few hundred devices."""

    workers: int = Field(default=16, ge=1, le=512)
    connect_timeout: float = Field(default=10.0, gt=0, description="seconds")
    command_timeout: float = Field(default=60.0, gt=0, description="seconds per command")
    retries: int = Field(default=2, ge=0, le=10, description="for transient errors only, never for auth")
    retry_backoff: float = Field(default=1.0, ge=0, description="seconds, doubled at each retry")
    device_deadline: float | None = Field(
        default=None,
        gt=0,
        description="seconds one device may take in all (connect, every command, disconnect, retries); "
        "default connect_timeout + 3 x command_timeout",
    )
    max_file_bytes: int = Field(
        default=256 * 1024 * 1024,
        ge=1,
        description="largest offline evidence file read (bytes, and decompressed bytes of a .gz); "
        "a larger one is a problem, not read",
    )

    def deadline_for_device(self) -> float:
        """The hard per-device deadline: set, or connect_timeout + 3 x command_timeout (a healthy device
        answers all its commands in far less; a hung one is cut off there, whatever its driver does)."""
        return self.device_deadline or self.connect_timeout + 3 * self.command_timeout


class Waiver(_Strict):
    """An accepted risk: a failing check on matching subjects is reported as waived until it expires."""

    check: str
    target: str = Field(default="*", description="glob on the target name")
    subject: str = Field(default="*", description="glob on the finding subject")
    owner: str
    reason: str
    expires: date

    @field_validator("check")
    @classmethod
    def _installed(cls, value: str) -> str:
        """A typo in the check id would waive nothing, silently: refuse it (exit 2, naming the line)."""
        from auditor.pipeline.waivers import unknown_check_message  # noqa: PLC0415 (import cycle)

        problem = unknown_check_message(value)
        if problem:
            raise ValueError(problem)
        return value


class AuditPeriod(_Strict):
    """The period an audit covers (for the report cover): first and last day, inclusive."""

    start: date
    end: date

    @model_validator(mode="after")
    def _ordered(self) -> AuditPeriod:
        if self.end < self.start:
            raise ValueError(f"audit_period ends ({self.end}) before it starts ({self.start}); swap them")
        return self


class AuditConfig(_Strict):
    intent: Intent = Intent()
    sources: Sources = Sources()
    collection: CollectionSettings = CollectionSettings()
    waivers: list[Waiver] = []
    store: str = "sqlite:///auditor.db"
    output: Path = Path("audit-output")
    reports: list[str] = Field(
        default=["json", "pdf"],
        description="report formats: json, pdf, html, csv, junit, oscal, or a plugin's",
    )
    scope: str = Field(default="", description="free text for the report cover: what is audited and why")
    organisation: str = Field(default="", description="who is audited, for the report cover")
    audit_period: AuditPeriod | None = Field(
        default=None,
        description="the period the audit covers, for the report cover: {start: date, end: date}",
    )
    signing: SigningSettings | None = None
    schedules: Annotated[list[Schedule], AfterValidator(unique_configs)] = Field(default=[], exclude=True)
    metrics: MetricsSettings | None = Field(
        default=None, exclude=True
    )  # schedule.py: not in the run's snapshot
    alerts: AlertSettings | None = Field(default=None, exclude=True)  # config/alerts.py: not in the snapshot
    base_dir: Path = Field(default=Path("."), exclude=True)

    def resolve(self, path: Path) -> Path:
        """Relative paths in the config are relative to the config file's directory."""
        path = path.expanduser()
        return path if path.is_absolute() else (self.base_dir / path)

    def store_url(self) -> str:
        prefix = "sqlite:///"
        if self.store.startswith(prefix) and not self.store.startswith("sqlite:////"):
            rel = self.store[len(prefix) :]
            if rel and rel != ":memory:":
                return prefix + str(self.resolve(Path(rel)).resolve())
        return self.store
