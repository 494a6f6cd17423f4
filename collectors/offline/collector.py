"""Offline evidence: the same captures as live collection, read from files for air-gapped audits."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from auditor.capture import RawCapture
from auditor.config.models import AuditConfig, FileSource
from auditor.enums import TargetKind, Tier
from auditor.normalize import Problem
from collectors.base import Plan, TargetSpec
from collectors.export import ExportedCapture, ExportedGap, read_lines, replay
from collectors.normalizers.aws_cli import BY_KIND
from collectors.offline.aws_files import detect as detect_aws
from collectors.offline.classify import (
    CAPTURES_FORMAT,
    HEAD_BYTES,
    UNKNOWN_CONFIG,
    Classified,
    classify,
    platform_of_format,
)
from collectors.offline.gz import GZIP_MAGIC, GzipDamaged, gzip_damage, read_head
from collectors.offline.walk import CHECK_PERMISSIONS, Found, walk
from collectors.platforms.registry import get as get_platform
from collectors.platforms.registry import platforms

_REGION = re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-\d$")
SOURCE_OF = {
    "eos.running-config": "show running-config",
    "nxos.running-config": "show running-config",
    "k8s.manifest": "kubernetes manifest",
    "aws.describe": "ec2 describe_* response",
    "aws.flowlog": "vpc flow log file",
    "opensm.partitions": "OpenSM partitions.conf",
    "sonic.frr": "FRR configuration (frr.conf)",
}
SUPPORTED = (
    "network device configs and show outputs, Kubernetes manifests (.yaml/.yml/.json), AWS CLI / "
    "describe_* JSON (.json, .json.gz), VPC flow logs (text, .gz, Parquet), OpenSM partitions.conf, "
    "exported captures (*.captures.jsonl)"
)
PARQUET_MAGIC = b"PAR1"
SELF_CHECKED_GZIP = frozenset({"aws.flowlog"})  # its normalizer reads the stream and names the damaged line


class OfflineFilesCollector:
    """Reads evidence directories. Files are grouped into targets by what they describe."""

    name: ClassVar[str] = "files"
    permissions: ClassVar[dict[str, list[str]]] = {"filesystem": ["read the configured evidence paths"]}

    def plan(self, config: AuditConfig) -> Plan:
        plan = Plan()
        groups: dict[tuple[TargetKind, str], list[tuple[Path, str, dict[str, str]]]] = defaultdict(list)
        specs: dict[tuple[TargetKind, str], TargetSpec] = {}
        limit = config.collection.max_file_bytes
        for source in config.sources.files:
            root = config.resolve(source.path)
            if not root.exists() and not root.is_symlink():
                plan.problems.append(
                    Problem(
                        str(source.path),
                        "evidence path does not exist",
                        hint="fix sources.files in the config",
                    )
                )
                continue
            for item in walk(root, lambda p: _shown(p, config), source.ignore):
                if isinstance(item, Problem):
                    plan.problems.append(item)
                    continue
                found = self._classify(item, config, limit, plan)
                if found is None:
                    continue
                path = item.path
                classified, extra = found
                if classified.format == CAPTURES_FORMAT:
                    self._plan_exported(path, config, specs, groups, plan)
                    continue
                spec, fmt, meta, problem = self._target_for(
                    path, classified.format, classified.hostname, source, config, classified.candidates
                )
                if problem is not None:
                    plan.problems.append(problem)
                    continue
                assert spec is not None
                key = (spec.kind, spec.name)
                if key not in specs or (_primary(fmt) and not any(_primary(f) for _, f, _ in groups[key])):
                    specs[key] = spec  # a device is of the platform of its own config, not of a side file
                groups[key].append((path, fmt, {**meta, **extra}))
        for key, spec in specs.items():
            files = [(str(p), fmt, meta, _rel(p, config)) for p, fmt, meta in groups[key]]
            plan.targets.append(
                TargetSpec(
                    spec.kind,
                    spec.name,
                    self.name,
                    spec.platform,
                    spec.tier,
                    spec.role,
                    payload=OfflinePayload(files, limit),
                )
            )
        return plan

    @staticmethod
    def _classify(
        item: Found, config: AuditConfig, limit: int, plan: Plan
    ) -> tuple[Classified, dict[str, str]] | None:
        """What one file is, with extra meta, or None with the reason added to the plan's
        problems: too large, unreadable, a damaged gzip, or not any evidence format this auditor reads."""
        rel = _rel(item.path, config)
        if item.size > limit:
            plan.problems.append(
                Problem(
                    rel,
                    f"file is {item.size} bytes, over collection.max_file_bytes ({limit}): not read",
                    hint="raise collection.max_file_bytes in the config, or split the file",
                )
            )
            return None
        try:
            head = read_head(item.path, HEAD_BYTES)
        except OSError as exc:
            plan.problems.append(Problem(rel, f"cannot read: {exc.strerror or exc}", hint=CHECK_PERMISSIONS))
            return None
        except GzipDamaged as exc:
            plan.problems.append(Problem(rel, f"{exc}: not read", hint="re-copy the file from its source"))
            return None
        aws = detect_aws(item.path, head, rel)
        if isinstance(aws, Problem):
            plan.problems.append(aws)
            return None
        if aws is not None:
            return Classified("aws.describe"), aws.meta()
        if head.startswith(PARQUET_MAGIC):  # AWS delivers flow logs as Parquet when asked to
            return Classified("aws.flowlog"), {}
        found = classify(item.path, head)
        if found is None or found.format == "unknown":
            damage = _gzip_file_damage(item.path, limit)
            if damage is not None:  # a damaged stream, rather than an unknown format
                plan.problems.append(
                    Problem(rel, f"{damage}: not read", hint="re-copy the file from its source")
                )
                return None
            plan.problems.append(
                Problem(
                    rel,
                    f"not recognised as any evidence format: {rel}; supported formats: {SUPPORTED}",
                    hint="remove it, list it in this source's `ignore`, or hide it (a name starting with .)",
                )
            )
            return None
        return found, {}

    def _target_for(
        self,
        path: Path,
        fmt: str,
        hostname: str | None,
        source: FileSource,
        config: AuditConfig,
        candidates: tuple[str, ...] = (),
    ) -> tuple[TargetSpec | None, str, dict[str, str], Problem | None]:
        if fmt == UNKNOWN_CONFIG or platform_of_format(fmt) is not None:
            name = hostname or device_name(path)
            # The hint decides only what detection cannot: a file whose content names its platform is
            # read as that platform whatever the hint says (a hint applied to it would mis-read it).
            if fmt == UNKNOWN_CONFIG and source.platform is not None:
                hinted = get_platform(source.platform)
                if (not candidates or hinted.name in candidates) and hinted.offline_format:
                    fmt = hinted.offline_format
            if fmt == UNKNOWN_CONFIG:
                among = f" (it could be {' or '.join(candidates)})" if candidates else ""
                problem = Problem(
                    _rel(path, config),
                    f"cannot tell the platform of device {name}'s config{among}",
                    hint="set `platform` on this sources.files entry to one of "
                    + ", ".join(n for n, _ in platforms().items()),
                )
                return None, fmt, {}, problem
            platform = platform_of_format(fmt) or fmt.split(".")[0]
            tier = config.intent.tier_of_device(name)
            role = _role(config, tier, name)
            meta = {"device": name, "platform": platform}
            if tier:
                meta["tier"] = tier.value
            if role:
                meta["role"] = role
            return TargetSpec(TargetKind.DEVICE, name, self.name, platform, tier, role), fmt, meta, None
        if fmt == "k8s.manifest":
            cluster = source.cluster or "offline"
            return (
                TargetSpec(TargetKind.KUBERNETES, cluster, self.name, "kubernetes"),
                fmt,
                {"cluster": cluster},
                None,
            )
        if fmt == "aws.describe":
            account = source.account or "offline"
            region = source.region or (path.parent.name if _REGION.match(path.parent.name) else "unknown")
            meta = {"account": account, "region": region}
            return TargetSpec(TargetKind.AWS, f"{account}/{region}", self.name, "aws"), fmt, meta, None
        if fmt == "opensm.partitions":  # one InfiniBand fabric per directory holding a partitions.conf
            fabric = hostname or "infiniband"
            spec = TargetSpec(TargetKind.IB_FABRIC, fabric, self.name, "opensm", Tier.BACKEND)
            return spec, fmt, {"fabric": fabric}, None
        if fmt != "aws.flowlog":  # a format classify() knows but no target kind here reads: say so
            problem = Problem(
                _rel(path, config),
                f"recognised as {fmt}, which offline files cannot be audited as",
                hint="report this as a bug with the file attached",
            )
            return None, fmt, {}, problem
        rel_root = _rel(config.resolve(source.path), config)
        meta = {"source": _rel(path, config)}
        return TargetSpec(TargetKind.FLOW_LOGS, f"flowlogs:{rel_root}", self.name, "aws"), fmt, meta, None

    def _plan_exported(
        self,
        path: Path,
        config: AuditConfig,
        specs: dict[tuple[TargetKind, str], TargetSpec],
        groups: dict[tuple[TargetKind, str], list[tuple[Path, str, dict[str, str]]]],
        plan: Plan,
    ) -> None:
        """A captures file (collectors/export.py) names its targets on every line; each becomes a target
        of its own kind, so a re-audit of exported evidence plans the same targets as the audit did."""
        rel = _rel(path, config)
        seen: set[tuple[TargetKind, str]] = set()
        try:
            for item in read_lines(path, rel):
                if isinstance(item, Problem):
                    plan.problems.append(item)
                    continue
                key = (item.target_kind, item.target)
                if key in seen:
                    continue
                seen.add(key)
                specs.setdefault(key, _exported_spec(item, config, self.name))
                groups[key].append((path, CAPTURES_FORMAT, {}))
        except OSError as exc:
            plan.problems.append(Problem(rel, f"cannot read: {exc.strerror}"))

    def collect(self, target: TargetSpec) -> Iterator[RawCapture | Problem]:
        payload = target.payload
        files, limit = (payload.files, payload.limit) if isinstance(payload, OfflinePayload) else (payload, 0)
        for path_s, fmt, meta, rel in files:
            path = Path(path_s)
            if fmt == CAPTURES_FORMAT:
                yield from _exported_captures(path, rel, target)
                continue
            try:
                content = path.read_bytes()
                mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
            except OSError as exc:
                yield Problem(rel, f"cannot read: {exc.strerror}", hint="check the file and its permissions")
                continue
            if limit and len(content) > limit:  # grew since it was planned
                yield Problem(rel, f"file is {len(content)} bytes, over collection.max_file_bytes ({limit})")
                continue
            if limit and content.startswith(GZIP_MAGIC) and fmt not in SELF_CHECKED_GZIP:
                damage = gzip_damage(content, limit)
                if damage is not None:
                    yield Problem(rel, f"{damage}: not read", hint="re-copy the file from its source")
                    continue
            yield RawCapture(
                target=target.name,
                format=fmt,
                source=f"{_source_of(fmt, meta)} (offline file)",
                origin=rel,
                collected_at=datetime.now(UTC),
                content=content,
                meta={**meta, "file_mtime": mtime.strftime("%Y-%m-%dT%H:%M:%SZ")},
            )


def _gzip_file_damage(path: Path, limit: int) -> str | None:
    try:
        with path.open("rb") as fh:
            if fh.read(2) != GZIP_MAGIC:
                return None
        return gzip_damage(path.read_bytes(), limit)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"


@dataclass(frozen=True)
class OfflinePayload:
    """A target's files (path, format, meta, shown path) and the size cap they are read under."""

    files: list[tuple[str, str, dict[str, str], str]]
    limit: int


# Files that every device of an OS has under the same name: a per-device directory names the device
# (batfish's snapshot layout: sonic_configs/leaf01/{config_db.json,frr.conf})
GENERIC_STEMS = frozenset(
    {"config_db", "frr", "bgpd", "staticd", "zebra", "startup", "nvue", "running-config", "running_config"}
)


def _primary(fmt: str) -> bool:
    """Is `fmt` a platform's own offline config (config_db.json, startup.yaml, a running-config), rather
    than a side file another OS writes too (FRR's frr.conf: SONiC's and Cumulus Linux's)?"""
    return any(p.offline_format == fmt for _, p in platforms().items())


def device_name(path: Path) -> str:
    """The device a config file without a hostname describes: its file name, or for a name every device's
    file has (config_db.json, frr.conf, startup.yaml) the directory holding it."""
    stem = path.name.split(".")[0]
    return path.parent.name if stem.lower() in GENERIC_STEMS and path.parent.name else path.stem


def _source_of(fmt: str, meta: dict[str, str]) -> str:
    """What produced the file: the CLI command for the AWS CLI files that need their resource's name."""
    cli = BY_KIND.get(meta.get("aws_file", ""))
    if cli is not None:
        resource = meta.get("aws_resource", "")
        return str(cli.command.split(" >")[0].format(resource))
    return SOURCE_OF.get(fmt, fmt)


_PLATFORM_OF_KIND = {TargetKind.AWS: "aws", TargetKind.KUBERNETES: "kubernetes", TargetKind.FLOW_LOGS: "aws"}


def _exported_spec(item: ExportedCapture | ExportedGap, config: AuditConfig, collector: str) -> TargetSpec:
    """The target as the export recorded it; a device's tier and role follow this config's intent."""
    info = item.target_info
    platform = info.get("platform") or item.meta.get("platform") or _PLATFORM_OF_KIND.get(item.target_kind)
    tier = Tier(info["tier"]) if info.get("tier") in {t.value for t in Tier} else None
    role = info.get("role")
    if item.target_kind == TargetKind.DEVICE:
        tier = config.intent.tier_of_device(item.target) or tier
        role = _role(config, tier, item.target) or role
    return TargetSpec(item.target_kind, item.target, collector, platform, tier, role)


def _exported_captures(path: Path, rel: str, target: TargetSpec) -> Iterator[RawCapture | Problem]:
    """This target's lines of a captures file: its captures, problems and status as the exported run had
    them (collectors/export.py `replay`). Lines that cannot be read were reported when the run was planned."""
    yield from replay(path, rel, target.kind, target.name)


def _shown(path: Path, config: AuditConfig) -> str:
    """The path as the user placed it (a symbolic link by its own name, not its target's)."""
    placed = path.parent.resolve() / path.name
    try:
        return str(placed.relative_to(config.base_dir.resolve()))
    except ValueError:
        return str(placed)


def _rel(path: Path, config: AuditConfig) -> str:
    try:
        return str(path.resolve().relative_to(config.base_dir.resolve()))
    except ValueError:
        return str(path)


def _role(config: AuditConfig, tier: Tier | None, hostname: str) -> str | None:
    if tier is None:
        return None
    intent = config.intent.tiers.get(tier)
    return intent.role_of(hostname) if intent else None
