"""A Kubernetes API server for tests: HTTPS on loopback with its own CA, bearer-token authentication,
API discovery, and list responses in the real shape, paged with `limit`/`continue`.

It answers like kube-apiserver does: `XList` objects with `metadata.resourceVersion`, `continue` and
`remainingItemCount`; items of built-in types without `kind`/`apiVersion` (typed lists), items of custom
resources with them; errors as `Status` objects (401 Unauthorized, 403 Forbidden with the RBAC wording,
404 NotFound, 405 MethodNotAllowed, 410 Expired with an inconsistent-continue token, 503), and lists that
answer late (`delay`, to time a client out). Every request
is logged (method, path, query) so tests can see exactly what a client sent.
"""

from __future__ import annotations

import base64
import io
import json
import ssl
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

BUILTIN_GROUPS = ("", "networking.k8s.io")  # typed lists: their items carry no kind/apiVersion
USER = "system:serviceaccount:audit:auditor"


@dataclass
class Served:
    """One resource the server serves, and its objects."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    objects: list[dict[str, Any]] = field(default_factory=list)

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def path(self) -> str:
        base = f"/api/{self.version}" if not self.group else f"/apis/{self.group}/{self.version}"
        return f"{base}/{self.plural}"

    @property
    def qualified(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural


@dataclass(frozen=True)
class Logged:
    method: str
    path: str
    query: dict[str, list[str]]
    status: int
    user_agent: str = ""


def _status(code: int, reason: str, message: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": extra.pop("metadata", {}),
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    body.update(extra)
    return body


class ApiServer:
    """Start with `start()`, stop with `stop()`; `url` is https://127.0.0.1:<port>."""

    def __init__(self, resources: list[Served], *, token: str, cert_pem: bytes, key_pem: bytes) -> None:
        self.resources = {r.path: r for r in resources}
        self.token = token
        self.forbidden: set[str] = set()  # qualified resources this identity may not list
        self.expire: dict[str, int] = {}  # qualified -> continue tokens to refuse with 410 (-1: all)
        self.unavailable: dict[str, int] = {}  # qualified -> requests to answer 503
        self.forbidden_discovery = False  # an identity without the system:discovery binding
        self.delay: dict[str, float] = {}  # qualified resource -> seconds before each list answer
        self.resource_version = 1000
        self.log: list[Logged] = []
        self._lock = threading.Lock()
        self._tls = tempfile.TemporaryDirectory()
        cert, key = Path(self._tls.name, "tls.crt"), Path(self._tls.name, "tls.key")
        cert.write_bytes(cert_pem)
        key.write_bytes(key_pem)
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.load_cert_chain(cert, key)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> ApiServer:
        server = self

        class Handler(_Handler):
            api = server

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        httpd.socket = self._context.wrap_socket(
            httpd.socket, server_side=True, do_handshake_on_connect=False
        )
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._tls.cleanup()

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"https://127.0.0.1:{self._httpd.server_address[1]}"

    # --- API ---------------------------------------------------------------------------------------

    def answer(
        self, method: str, raw_path: str, authorization: str | None, user_agent: str = ""
    ) -> tuple[int, dict[str, Any]]:
        parts = urlsplit(raw_path)
        path = parts.path.rstrip("/") or "/"
        query = parse_qs(parts.query)
        served = self.resources.get(path)
        if served is not None and self.delay.get(served.qualified):
            time.sleep(self.delay[served.qualified])  # a slow (or stuck) list; other requests go on
        with self._lock:
            code, body = self._answer(method, path, query, authorization)
            self.log.append(Logged(method, path, query, code, user_agent))
        return code, body

    def _answer(
        self, method: str, path: str, query: dict[str, list[str]], authorization: str | None
    ) -> tuple[int, dict[str, Any]]:
        if authorization != f"Bearer {self.token}":
            return 401, _status(401, "Unauthorized", "Unauthorized")
        if method != "GET":
            return 405, _status(405, "MethodNotAllowed", f"the server does not allow this method on {path}")
        if path == "/api":
            return 200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        if path.startswith("/apis") and path.count("/") <= 3 and self.forbidden_discovery:
            return 403, _status(403, "Forbidden", f'forbidden: User "{USER}" cannot get path "{path}"')
        if path == "/apis":
            return 200, self._groups()
        if path == "/api/v1" or (path.startswith("/apis/") and path.count("/") == 3):
            group_version = "v1" if path == "/api/v1" else path[len("/apis/") :]
            listing = self._resource_list(group_version)
            if listing is None:
                return 404, _status(404, "NotFound", "the server could not find the requested resource")
            return 200, listing
        served = self.resources.get(path)
        if served is None:
            return self._get_one(path)
        return self._list(served, query)

    def _get_one(self, path: str) -> tuple[int, dict[str, Any]]:
        """GET <collection base>/namespaces/<ns>/<plural>/<name>: one object, with its kind and
        apiVersion as the API server returns it (403 when its resource is forbidden, like RBAC)."""
        head, _, name = path.rpartition("/")
        head, _, plural = head.rpartition("/")
        base, _, namespace = head.rpartition("/namespaces/")
        served = self.resources.get(f"{base}/{plural}") if base and namespace and name else None
        if served is None or not served.namespaced:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        if served.qualified in self.forbidden:
            message = (
                f'{served.qualified} "{name}" is forbidden: User "{USER}" cannot get resource '
                f'"{served.plural}" in API group "{served.group}" in the namespace "{namespace}"'
            )
            return 403, _status(403, "Forbidden", message)
        for obj in served.objects:
            metadata = obj.get("metadata", {})
            if (metadata.get("namespace"), metadata.get("name")) == (namespace, name):
                return 200, {"kind": served.kind, "apiVersion": served.group_version, **obj}
        message = f'{served.qualified} "{name}" not found'
        return 404, _status(404, "NotFound", message, details={"name": name, "kind": served.plural})

    def _groups(self) -> dict[str, Any]:
        versions: dict[str, list[str]] = {}
        for r in self.resources.values():
            if r.group and r.version not in versions.setdefault(r.group, []):
                versions[r.group].append(r.version)
        groups = []
        for group, names in versions.items():
            listed = [{"groupVersion": f"{group}/{v}", "version": v} for v in names]
            groups.append({"name": group, "versions": listed, "preferredVersion": listed[0]})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def _resource_list(self, group_version: str) -> dict[str, Any] | None:
        mine = [r for r in self.resources.values() if r.group_version == group_version]
        if not mine:
            return None
        verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
        return {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": group_version,
            "resources": [
                {
                    "name": r.plural,
                    "singularName": r.kind.lower(),
                    "namespaced": r.namespaced,
                    "kind": r.kind,
                    "verbs": verbs,
                }
                for r in mine
            ],
        }

    def _list(self, served: Served, query: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
        if served.qualified in self.forbidden:
            message = (
                f'{served.qualified} is forbidden: User "{USER}" cannot list resource "{served.plural}" '
                f'in API group "{served.group}" at the cluster scope'
            )
            return 403, _status(
                403, "Forbidden", message, details={"group": served.group, "kind": served.plural}
            )
        if self.unavailable.get(served.qualified, 0) > 0:
            self.unavailable[served.qualified] -= 1
            return 503, _status(
                503, "ServiceUnavailable", "the server is currently unable to handle the request"
            )
        start, resource_version = 0, str(self.resource_version)
        token = (query.get("continue") or [""])[0]
        if token:
            try:
                state = json.loads(base64.urlsafe_b64decode(token.encode()))
                start, resource_version = int(state["start"]), str(state["rv"])
            except (ValueError, KeyError, TypeError):
                return 400, _status(400, "BadRequest", "continue key is not valid")
            left = self.expire.get(served.qualified, 0)
            if left != 0:
                self.expire[served.qualified] = left - 1 if left > 0 else left
                self.resource_version += 1
                return 410, _status(
                    410,
                    "Expired",
                    "The provided continue parameter is too old to display a consistent list result. You can "
                    "start a new list without the continue parameter, or use the continue token in this "
                    "response to retrieve the remainder of the results. Continuing with the provided token "
                    "results in an inconsistent list - objects that were created, modified, or deleted "
                    "between the time the first chunk was returned and now may show up in the list.",
                    metadata={"continue": _token(start, self.resource_version)},
                )
        items = served.objects
        limit = int((query.get("limit") or ["0"])[0] or 0)
        end = len(items) if limit <= 0 else min(len(items), start + limit)
        metadata: dict[str, Any] = {"resourceVersion": resource_version}
        if end < len(items):
            metadata["continue"] = _token(end, resource_version)
            metadata["remainingItemCount"] = len(items) - end
        typed = served.group in BUILTIN_GROUPS
        page = [_without_type(o) if typed else o for o in items[start:end]]
        return 200, {
            "kind": f"{served.kind}List",
            "apiVersion": served.group_version,
            "metadata": metadata,
            "items": page,
        }

    # --- what an offline audit of the same cluster reads -----------------------------------------

    def dump(self, directory: Path) -> list[Path]:
        """One `kubectl get <resource> -A -o json` file per resource (a `List` whose items carry kind and
        apiVersion, as kubectl prints it)."""
        directory.mkdir(parents=True, exist_ok=True)
        written = []
        for served in self.resources.values():
            document = {
                "apiVersion": "v1",
                "items": served.objects,
                "kind": "List",
                "metadata": {"resourceVersion": ""},
            }
            path = directory / f"{served.qualified}.json"
            path.write_text(json.dumps(document, indent=4))
            written.append(path)
        return written


def _token(start: int, resource_version: int | str) -> str:
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": str(resource_version), "start": start})
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _without_type(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}


class _Handler(BaseHTTPRequestHandler):
    api: ApiServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall

    def setup(self) -> None:
        super().setup()
        try:
            self.connection.do_handshake()
        except (ssl.SSLError, OSError):
            self.close_connection = True
            self.rfile = io.BytesIO()  # nothing to read: the client refused our certificate

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        code, body = self.api.answer(
            self.command, self.path, self.headers.get("Authorization"), self.headers.get("User-Agent", "")
        )
        data = json.dumps(body).encode()
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up waiting (a delayed list): nothing to answer
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:
        return
