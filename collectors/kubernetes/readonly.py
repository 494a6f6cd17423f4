"""The one place every Kubernetes API request passes: it lets through GET of a declared list or of a
discovery document, and refuses anything else before it leaves the process.

The official client funnels every call (typed APIs, dynamic client, raw `call_api`) through
`ApiClient.request`; `ReadOnlyApiClient` checks there. A refused request raises `ReadOnlyViolation`
and is never sent: no other HTTP method, no single-object GET but the few the catalog names (the CoreDNS
ConfigMap, with no query at all), no subresource (`pods/exec`, `/log`, `/proxy`), no `watch`, no query
parameter other than paging.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from kubernetes.client import ApiClient, Configuration
from kubernetes.client.exceptions import ApiException

from auditor.errors import ReadOnlyViolation
from collectors.kubernetes.catalog import DISCOVERY_VERB, ApiResource, all_resources

ALLOWED_METHOD = "GET"
LIST_PARAMETERS = frozenset({"limit", "continue"})
_DISCOVERY = re.compile(r"^/apis(/[a-z0-9.-]+/[a-z0-9]+)?/?$")


@dataclass(frozen=True)
class Access:
    """What a request amounts to in RBAC terms: `list pods`, `get /apis`."""

    verb: str
    resource: str  # qualified resource, or the non-resource URL

    def __str__(self) -> str:
        return f"{self.verb} {self.resource}"


class ReadOnlyGuard:
    """Maps a request to the declared read it is, or refuses it."""

    def __init__(self, resources: Iterable[ApiResource] | None = None) -> None:
        declared = all_resources() if resources is None else list(resources)
        self._lists = {r.path: r for r in declared}

    def check(self, method: str, url: str, query: Sequence[tuple[str, Any]] | None = None) -> Access:
        parts = urlsplit(url)
        path = unquote(parts.path)
        if method.upper() != ALLOWED_METHOD:
            raise ReadOnlyViolation(f"refused {method} {path}: the Kubernetes collector only reads (GET)")
        names = {name for name, _ in query or ()}
        if parts.query:
            names |= {pair.split("=", 1)[0] for pair in parts.query.split("&") if pair}
        if path in self._lists:
            resource = self._lists[path]
            allowed = LIST_PARAMETERS if resource.single is None else frozenset()
            unexpected = names - allowed
            if unexpected:
                sent = "only limit/continue are sent" if resource.single is None else "a single GET has none"
                raise ReadOnlyViolation(f"refused GET {path} with {', '.join(sorted(unexpected))}: {sent}")
            return Access(resource.verb, resource.permission.split(" ", 1)[1])
        if _DISCOVERY.match(path) and not names:
            return Access(DISCOVERY_VERB, path)
        raise ReadOnlyViolation(f"refused GET {path}: not a list or discovery read the collector declares")


class TlsFailure(Exception):
    """The TLS handshake failed (the client reports it as an ApiException with status 0 and no body,
    which its own error handling then trips over)."""


class ReadOnlyApiClient(ApiClient):  # type: ignore[misc]  # the client ships no type hints
    """The official ApiClient, with every request checked by the guard before it is sent."""

    def __init__(self, configuration: Configuration, guard: ReadOnlyGuard | None = None) -> None:
        super().__init__(configuration=configuration)
        self.guard = guard or ReadOnlyGuard()

    def request(self, method: str, url: str, query_params: Any = None, *args: Any, **kwargs: Any) -> Any:
        self.guard.check(method, url, query_params)
        try:
            return super().request(method, url, query_params, *args, **kwargs)
        except ApiException as exc:
            if exc.status == 0:
                raise TlsFailure(str(exc.reason)) from None
            raise
