"""Paged lists and API discovery, as the API server defines them.

A list is read `limit` objects at a time, following `metadata.continue`. When a continue token expires
(410 Expired), the list is restarted from the beginning, so the pages kept are one consistent snapshot
and no object is counted twice; after `max_restarts` it is reported instead. Every page is kept as it
came back, for the evidence store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from auditor.normalize import Problem
from collectors.kubernetes.catalog import ApiResource, Choice
from collectors.kubernetes.session import (
    PERMISSIONS_HINT,
    TIMEOUT,
    ApiStatusError,
    KubeSession,
    request_line,
)

Outcome = Literal["complete", "absent", "forbidden", "failed"]
MAX_RESTARTS = 2


@dataclass(frozen=True)
class Page:
    """One response body, and the exact request it answers."""

    request: str
    content: bytes
    resource: str  # qualified resource, or "discovery"
    number: int
    received_at: datetime


@dataclass
class Listed:
    outcome: Outcome
    resource: ApiResource | None = None
    problem: Problem | None = None


@dataclass
class Discovery:
    """Which group/versions and resources the server serves. None: unknown (discovery failed), in which
    case every list is tried and a 404 tells absence."""

    group_versions: set[str] | None = None
    resources: dict[str, set[str]] = field(default_factory=dict)

    def serves(self, resource: ApiResource) -> bool | None:
        if not resource.group:
            return True  # the core group is always there
        if self.group_versions is None:
            return None
        if resource.group_version not in self.group_versions:
            return False
        plurals = self.resources.get(resource.group_version)
        return None if plurals is None else resource.plural in plurals


def _now() -> datetime:
    return datetime.now(UTC)


def discover(session: KubeSession, wanted: list[str], sink: list[Page]) -> tuple[Discovery, list[Problem]]:
    """GET /apis, then /apis/<group>/<version> for each wanted group/version the server has."""
    discovery = Discovery()
    problems: list[Problem] = []
    try:
        body = session.get("/apis")
    except ApiStatusError as exc:
        problems.append(_discovery_problem(session, exc))
        return discovery, problems
    sink.append(Page("GET /apis", body, "discovery", len(sink) + 1, _now()))
    groups = _json(body)
    if not isinstance(groups, dict) or not isinstance(groups.get("groups"), list):
        problems.append(Problem(session.origin, "GET /apis did not return an APIGroupList"))
        return discovery, problems
    served: set[str] = set()
    for group in groups["groups"]:
        versions = group.get("versions") if isinstance(group, dict) else None
        for version in versions if isinstance(versions, list) else []:
            if isinstance(version, dict) and isinstance(version.get("groupVersion"), str):
                served.add(version["groupVersion"])
    discovery.group_versions = served
    for group_version in wanted:
        if group_version not in served:
            continue
        path = f"/apis/{group_version}"
        try:
            body = session.get(path)
        except ApiStatusError as exc:
            if exc.status.code != 404:  # 404: the group went away since /apis; the lists will tell
                problems.append(_discovery_problem(session, exc))
            continue
        sink.append(Page(f"GET {path}", body, "discovery", len(sink) + 1, _now()))
        data = _json(body)
        items = data.get("resources") if isinstance(data, dict) else None
        if isinstance(items, list):
            discovery.resources[group_version] = {
                r["name"] for r in items if isinstance(r, dict) and isinstance(r.get("name"), str)
            }
    return discovery, problems


def _discovery_problem(session: KubeSession, exc: ApiStatusError) -> Problem:
    status = exc.status
    if status.code == 403:
        what = "forbidden"
    elif status.code == 0:
        what = f"{'timed out' if status.reason == TIMEOUT else 'cut off'}: {status.message}"
    else:
        what = f"{status.code} {status.reason}"
    return Problem(
        session.origin,
        f"API discovery failed ({what}: {exc.request}); every list is tried instead",
        hint=PERMISSIONS_HINT,
    )


def list_choice(
    session: KubeSession, choice: Choice, discovery: Discovery, sink: list[Page], limit: int
) -> Listed:
    """List the first alternative the server serves; absent when it serves none of them."""
    for resource in choice.alternatives:
        served = discovery.serves(resource)
        if served is False:
            continue
        if resource.single is not None:
            listed = get_single(session, resource, sink)
        else:
            listed = list_all(session, resource, sink, limit)
        if listed.outcome != "absent":
            return listed
    return Listed("absent")


def get_single(session: KubeSession, resource: ApiResource, sink: list[Page]) -> Listed:
    """The one named object (GET, no query). A 404 means the object does not exist: read, and absent."""
    try:
        body = session.get(resource.path)
    except ApiStatusError as exc:
        if exc.status.code == 404:
            return Listed("absent", resource)
        return _failed(session, resource, exc, 0)
    sink.append(Page(request_line(resource.path, []), body, resource.qualified, 1, _now()))
    data = _json(body)
    if not isinstance(data, dict) or data.get("kind") != resource.kind:
        message = (
            f"{request_line(resource.path, [])} did not return a {resource.kind}; the page is kept as is"
        )
        return Listed("failed", resource, Problem(session.origin, message))
    return Listed("complete", resource)


def list_all(
    session: KubeSession,
    resource: ApiResource,
    sink: list[Page],
    limit: int,
    max_restarts: int = MAX_RESTARTS,
) -> Listed:
    """Every page of one list, appended to `sink` as it arrives (so a fatal error later keeps them)."""
    start = len(sink)
    restarts = 0
    token: str | None = None
    number = 0
    while True:
        query = [("limit", str(limit))]
        if token:
            query.append(("continue", token))
        try:
            body = session.get(resource.path, query)
        except ApiStatusError as exc:
            code = exc.status.code
            if code == 410 and token is not None and restarts < max_restarts:
                restarts += 1
                del sink[start:]  # the restarted list supersedes these pages: no object twice
                token, number = None, 0
                continue
            return _failed(session, resource, exc, restarts)
        number += 1
        sink.append(Page(request_line(resource.path, query), body, resource.qualified, number, _now()))
        data = _json(body)
        if not isinstance(data, dict) or not isinstance(data.get("items", []), list):
            message = f"{request_line(resource.path, query)} did not return a list; the page is kept as is"
            return Listed("failed", resource, Problem(session.origin, message))
        metadata = data.get("metadata")
        token = metadata.get("continue") if isinstance(metadata, dict) else None
        if not token:
            return Listed("complete", resource)


def _failed(session: KubeSession, resource: ApiResource, exc: ApiStatusError, restarts: int) -> Listed:
    status = exc.status
    if resource.single is None:
        scope, grant = " at cluster scope", PERMISSIONS_HINT
    else:  # granted by the namespaced Role (resourceNames), not the ClusterRole
        scope, grant = "", f"grant the {resource.single[0]} Role from `auditor permissions k8s`"
    if status.code == 403:
        message = f"forbidden: {resource.permission}{scope}; {grant}"
        return Listed(
            "forbidden",
            resource,
            Problem(session.origin, message, hint=f"{grant}, then run again"),
        )
    if status.code == 404 and not resource.builtin:
        return Listed("absent", resource)
    if status.code == 410:
        message = (
            f"list {resource.qualified} did not finish: its continue token expired (410 {status.reason}) "
            f"{restarts + 1} time(s); the list changed faster than it could be paged"
        )
        hint = "re-run the audit; the pages read are kept but this kind is not counted as looked at"
        return Listed("failed", resource, Problem(session.origin, message, hint=hint))
    if status.code == 0:  # no (whole) answer: timed out or dropped; the API server itself was reachable
        attempts = f" ({session.settings.retries + 1} attempts)" if session.settings.retries else ""
        cause = "timed out" if status.reason == TIMEOUT else "was cut off"
        message = f"{resource.permission} {cause}: {status.message}{attempts}"
        hint = "the rest of the cluster was collected; re-run, or raise collection.command_timeout"
        return Listed("failed", resource, Problem(session.origin, message, hint=hint))
    message = f"{resource.permission} failed: {status.code} {status.reason}: {status.message}".rstrip(": ")
    return Listed("failed", resource, Problem(session.origin, message, hint="re-run the audit"))


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None
