"""The `declared` collector: manifests kept in git (`sources.declared`), one target per cluster.

Each source's directory is read like offline Kubernetes evidence (YAML/JSON manifests, the
`k8s.manifest` format and normalizer), but into a target of kind `declared` named
`declared:<cluster>`. Checks that judge the cluster read only `kubernetes` targets, so declared
policies never count as in force; X-DECLARED-VS-LIVE compares the two. The git commit of the checkout
is recorded in each capture's meta and in the target's notes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from auditor.capture import RawCapture
from auditor.config.models import AuditConfig
from auditor.enums import TargetKind
from auditor.errors import CollectionError
from auditor.normalize import Problem
from collectors.base import Plan, TargetSpec
from collectors.declared.gitref import git_ref
from collectors.offline.classify import classify, read_head

FORMAT = "k8s.manifest"
PREFIX = "declared:"
DEFAULT_CLUSTER = "offline"  # as the Kubernetes normalizer names a cluster no source names
_SUFFIXES = (".yaml", ".yml", ".json")


def target_name(cluster: str) -> str:
    return f"{PREFIX}{cluster}"


class DeclaredPoliciesCollector:
    """Reads declared network policies from directories; never writes, never runs git."""

    name: ClassVar[str] = "declared"
    permissions: ClassVar[dict[str, list[str]]] = {
        "filesystem": ["read the declared-policy directories (sources.declared) and their .git HEAD"]
    }

    def plan(self, config: AuditConfig) -> Plan:
        plan = Plan()
        paths: dict[str, list[tuple[Path, str]]] = defaultdict(list)
        for index, source in enumerate(config.sources.declared):
            cluster = source.cluster or DEFAULT_CLUSTER
            paths[cluster].append((config.resolve(source.path), f"sources.declared[{index}] ({source.path})"))
        for cluster, entries in sorted(paths.items()):
            notes = tuple(
                f"{label}: {ref.text()}" for path, label in entries if (ref := git_ref(path)) is not None
            )
            plan.targets.append(
                TargetSpec(
                    TargetKind.DECLARED,
                    target_name(cluster),
                    self.name,
                    "kubernetes",
                    payload=(cluster, [str(p) for p, _ in entries], str(config.base_dir)),
                    notes=notes,
                )
            )
        return plan

    def collect(self, target: TargetSpec) -> Iterator[RawCapture | Problem]:
        cluster, roots, base = target.payload
        found = 0
        missing: list[str] = []
        for root_s in roots:
            root = Path(root_s)
            if not root.exists():
                missing.append(root_s)
                continue
            ref = git_ref(root)
            for path in _manifests(root):
                rel = _rel(path, Path(base))
                try:
                    head = read_head(path)
                    if classify(path, head) is None:
                        continue
                    content = path.read_bytes()
                except OSError as exc:
                    yield Problem(
                        rel, f"cannot read: {exc.strerror}", hint="check the file and its permissions"
                    )
                    continue
                found += 1
                meta = {"cluster": cluster, "declared": "true"}
                if ref is not None:
                    meta.update(git_commit=ref.commit, git_branch=ref.branch or "")
                yield RawCapture(
                    target=target.name,
                    format=FORMAT,
                    source="declared policy manifest (git checkout)",
                    origin=rel,
                    collected_at=datetime.now(UTC),
                    content=content,
                    meta=meta,
                )
        if missing and not found:
            raise CollectionError(
                f"declared-policy path(s) {', '.join(missing)} do not exist",
                target=target.name,
                hint="fix sources.declared or check out the policy repository there",
            )
        for root_s in missing:
            yield Problem(root_s, "declared-policy path does not exist", hint="fix sources.declared")
        if not found:
            raise CollectionError(
                "no Kubernetes manifest (YAML/JSON with apiVersion and kind) found",
                target=target.name,
                hint="point sources.declared at the directory holding the policy manifests",
            )


def _manifests(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for path in sorted(root.rglob("*")):
        hidden = any(p.startswith(".") for p in path.relative_to(root).parts)
        if path.is_file() and not hidden and path.suffix.lower() in _SUFFIXES:
            yield path


def _rel(path: Path, base: Path) -> str:
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)
