"""Live Kubernetes collection: every declared list of every configured cluster, read-only.

Each response page is one capture in the `k8s.manifest` format (the same normalizer reads offline
`kubectl get -o json` dumps), with the exact request as its source. A fact kind counts as looked at
(`meta.covers`) only when every list behind it was read to the end or is not served at all (a CRD that
is not installed); a forbidden list leaves it uncovered and becomes a Problem naming verb and resource.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import ClassVar

from kubernetes import config as kube_config
from kubernetes.config.config_exception import ConfigException

from auditor.capture import RawCapture
from auditor.config.models import AuditConfig, KubernetesSource
from auditor.enums import TargetKind
from auditor.errors import CollectionError
from auditor.normalize import Problem
from collectors.base import Plan, TargetSpec
from collectors.kubernetes.catalog import GROUPS, ResourceGroup, discovered_group_versions
from collectors.kubernetes.listing import Discovery, Page, discover, list_choice
from collectors.kubernetes.rbac import required_permissions
from collectors.kubernetes.session import ClusterSettings, KubeSession

FORMAT = "k8s.manifest"
DEFAULT_PAGE_LIMIT = 500


class KubernetesCollector:
    """Reads namespaces, pods, services, ingresses and routes, network policies of every flavor (with
    Calico's network sets, profiles and tiers), and the CoreDNS Corefile ConfigMap by name."""

    name: ClassVar[str] = "kubernetes"
    permissions: ClassVar[dict[str, list[str]]] = {"kubernetes": required_permissions()}

    def __init__(self, page_limit: int = DEFAULT_PAGE_LIMIT) -> None:
        if page_limit < 1:
            raise ValueError("page_limit must be at least 1")
        self.page_limit = page_limit

    def plan(self, config: AuditConfig) -> Plan:
        plan = Plan()
        seen: set[str] = set()
        for index, source in enumerate(config.sources.kubernetes):
            settings = self._settings(config, source)
            if settings.cluster in seen:
                plan.problems.append(
                    Problem(
                        f"sources.kubernetes[{index}]",
                        f"cluster {settings.cluster!r} is configured twice",
                        hint="give each sources.kubernetes entry a distinct `name`",
                    )
                )
                continue
            seen.add(settings.cluster)
            plan.targets.append(
                TargetSpec(TargetKind.KUBERNETES, settings.cluster, self.name, "kubernetes", payload=settings)
            )
        return plan

    def _settings(self, config: AuditConfig, source: KubernetesSource) -> ClusterSettings:
        kubeconfig = str(config.resolve(source.kubeconfig)) if source.kubeconfig is not None else None
        collection = config.collection
        return ClusterSettings(
            cluster=source.name or source.context or _current_context(kubeconfig) or "kubernetes",
            kubeconfig=kubeconfig,
            context=source.context,
            connect_timeout=collection.connect_timeout,
            read_timeout=collection.command_timeout,
            retries=collection.retries,
            retry_backoff=collection.retry_backoff,
            page_limit=self.page_limit,
        )

    def collect(self, target: TargetSpec) -> Iterator[RawCapture | Problem]:
        settings = target.payload
        if not isinstance(settings, ClusterSettings):
            raise CollectionError("not a target planned by the kubernetes collector", target=target.name)
        settings = replace(settings, page_limit=self.page_limit)
        with KubeSession(settings) as session:
            yield from _Harvest(session).run()


def _current_context(kubeconfig: str | None) -> str | None:
    """The kubeconfig's current-context, to name the cluster when the config does not."""
    try:
        _, active = kube_config.list_kube_config_contexts(config_file=kubeconfig)
    except (ConfigException, OSError, ValueError, TypeError, KeyError):
        return None  # collect() reports the unreadable kubeconfig, with the reason
    name = active.get("name") if isinstance(active, dict) else None
    return name if isinstance(name, str) and name else None


class _Harvest:
    """One collection of one cluster: discovery, then each resource group, pages buffered per group so
    that its coverage is known before its captures are handed over."""

    def __init__(self, session: KubeSession) -> None:
        self.session = session
        self.settings = session.settings

    def run(self) -> Iterator[RawCapture | Problem]:
        pages: list[Page] = []
        discovery = Discovery()
        try:
            discovery, problems = discover(self.session, discovered_group_versions(), pages)
        finally:
            yield from (self._capture(p, "") for p in pages)
        yield from problems
        for group in GROUPS:
            yield from self._group(group, discovery)

    def _group(self, group: ResourceGroup, discovery: Discovery) -> Iterator[RawCapture | Problem]:
        pages: list[Page] = []
        problems: list[Problem] = []
        complete = False
        try:
            for choice in group.choices:
                listed = list_choice(self.session, choice, discovery, pages, self.settings.page_limit)
                if listed.problem is not None:
                    problems.append(listed.problem)
            complete = not problems
        finally:  # a fatal error (401, unreachable) still hands over what was read, uncovered
            covers = group.covers.value if complete else ""
            yield from (self._capture(p, covers) for p in pages)
        yield from problems

    def _capture(self, page: Page, covers: str) -> RawCapture:
        meta = {
            "cluster": self.settings.cluster,
            "resource": page.resource,
            "page": str(page.number),
            "covers": covers,
        }
        if self.settings.context:
            meta["context"] = self.settings.context
        return RawCapture(
            target=self.settings.cluster,
            format=FORMAT,
            source=page.request,
            origin=self.session.origin,
            collected_at=page.received_at,
            content=page.content,
            meta=meta,
        )
