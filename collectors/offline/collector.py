"""Offline evidence: the same captures as live collection, read from files for air-gapped audits."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from auditor.capture import RawCapture
from auditor.config.models import AuditConfig, FileSource
from auditor.enums import TargetKind, Tier
from auditor.normalize import Problem
from collectors.base import Plan, TargetSpec
from collectors.export import ExportedCapture, ExportedGap, read_lines, replay
from collectors.offline.classify import CAPTURES_FORMAT, IGNORED_SUFFIXES, classify, read_head

_REGION = re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-\d$")
_PLATFORM_FORMAT = {
    "eos": "eos.running-config",
    "nxos": "nxos.running-config",
    "nxos_ssh": "nxos.running-config",
}
SOURCE_OF = {
    "eos.running-config": "show running-config",
    "nxos.running-config": "show running-config",
    "k8s.manifest": "kubernetes manifest",
    "aws.describe": "ec2 describe_* response",
    "aws.flowlog": "vpc flow log file",
    "opensm.partitions": "OpenSM partitions.conf",
}


class OfflineFilesCollector:
    """Reads evidence directories. Files are grouped into targets by what they describe."""

    name: ClassVar[str] = "files"
    permissions: ClassVar[dict[str, list[str]]] = {"filesystem": ["read the configured evidence paths"]}

    def plan(self, config: AuditConfig) -> Plan:
        plan = Plan()
        groups: dict[tuple[TargetKind, str], list[tuple[Path, str, dict[str, str]]]] = defaultdict(list)
        specs: dict[tuple[TargetKind, str], TargetSpec] = {}
        for source in config.sources.files:
            root = config.resolve(source.path)
            if not root.exists():
                plan.problems.append(
                    Problem(
                        str(source.path),
                        "evidence path does not exist",
                        hint="fix sources.files in the config",
                    )
                )
                continue
            for path in _walk(root):
                try:
                    head = read_head(path)
                except OSError as exc:
                    plan.problems.append(Problem(_rel(path, config), f"cannot read: {exc.strerror}"))
                    continue
                found = classify(path, head)
                if found is None:
                    continue
                if found.format == CAPTURES_FORMAT:
                    self._plan_exported(path, config, specs, groups, plan)
                    continue
                spec, fmt, meta, problem = self._target_for(
                    path, found.format, found.hostname, source, config
                )
                if problem is not None:
                    plan.problems.append(problem)
                    continue
                assert spec is not None
                key = (spec.kind, spec.name)
                specs.setdefault(key, spec)
                groups[key].append((path, fmt, meta))
        for key, spec in specs.items():
            files = [(str(p), fmt, meta, _rel(p, config)) for p, fmt, meta in groups[key]]
            plan.targets.append(
                TargetSpec(
                    spec.kind, spec.name, self.name, spec.platform, spec.tier, spec.role, payload=files
                )
            )
        return plan

    def _target_for(
        self,
        path: Path,
        fmt: str,
        hostname: str | None,
        source: FileSource,
        config: AuditConfig,
    ) -> tuple[TargetSpec | None, str, dict[str, str], Problem | None]:
        if fmt.endswith(".running-config"):
            name = hostname or path.stem
            if source.platform is not None:
                fmt = _PLATFORM_FORMAT[source.platform]
            if fmt.startswith("unknown."):
                problem = Problem(
                    _rel(path, config),
                    f"cannot tell the platform of device {name}'s config",
                    hint="set `platform` on this sources.files entry",
                )
                return None, fmt, {}, problem
            platform = fmt.split(".")[0]
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
        for path_s, fmt, meta, rel in target.payload:
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
            yield RawCapture(
                target=target.name,
                format=fmt,
                source=f"{SOURCE_OF.get(fmt, fmt)} (offline file)",
                origin=rel,
                collected_at=datetime.now(UTC),
                content=content,
                meta={**meta, "file_mtime": mtime.strftime("%Y-%m-%dT%H:%M:%SZ")},
            )


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


def _walk(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for path in sorted(root.rglob("*")):
        hidden = any(p.startswith(".") for p in path.relative_to(root).parts)
        if path.is_file() and not hidden and path.suffix.lower() not in IGNORED_SUFFIXES:
            yield path


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
