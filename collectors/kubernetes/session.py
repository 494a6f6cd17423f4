"""A connection to one cluster through the official client: kubeconfig in, raw JSON bytes out.

Credentials come from the kubeconfig (token, client certificate, exec plugin) at collection time and
stay inside the client; nothing here stores, logs or prints them. TLS is verified with the kubeconfig's
CA; a context that turns verification off is refused. Transient failures (connection, timeouts, 429,
5xx) are retried with backoff; an authentication failure never is. A request that still fails is that
request's failure (ApiStatusError: forbidden, timed out, dropped), so the caller goes on with the next
list; only a cluster that cannot be talked to at all (unreachable, TLS, credentials) ends the target.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import urllib3
from kubernetes import config as kube_config
from kubernetes.client import Configuration
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

from auditor.errors import CollectionError
from collectors.kubernetes.readonly import ReadOnlyApiClient, TlsFailure

log = logging.getLogger(__name__)
_TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})
_MAX_RETRY_AFTER = 30.0
PERMISSIONS_HINT = "grant the ClusterRole from `auditor permissions k8s`"
USER_AGENT = "segmentation-auditor/read-only"


@dataclass(frozen=True)
class ClusterSettings:
    """Everything the collector needs about one `sources.kubernetes` entry (no secrets: only where
    the kubeconfig is)."""

    cluster: str  # the target name and the `cluster` of every fact
    kubeconfig: str | None  # None: $KUBECONFIG or ~/.kube/config, as kubectl does
    context: str | None  # None: the kubeconfig's current-context
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    retries: int = 2
    retry_backoff: float = 1.0
    page_limit: int = 500


@dataclass(frozen=True)
class ApiStatus:
    """A non-2xx answer, with the fields of the Kubernetes `Status` object it carried (when it did)."""

    code: int
    reason: str  # Status.reason (Forbidden, NotFound, Expired, ...) or the HTTP reason
    message: str
    continue_token: str | None = None  # a 410 may offer one (an inconsistent continuation)


class ApiStatusError(Exception):
    def __init__(self, request: str, status: ApiStatus) -> None:
        super().__init__(f"{request}: {status.code} {status.reason}: {status.message}")
        self.request = request
        self.status = status


def request_line(path: str, query: list[tuple[str, str]]) -> str:
    """`GET /api/v1/pods?limit=500`, the exact call as stored in a capture's `source`."""
    return f"GET {path}?{urlencode(query)}" if query else f"GET {path}"


class KubeSession:
    """One authenticated, read-only client for one cluster. Use as a context manager."""

    def __init__(self, settings: ClusterSettings) -> None:
        self.settings = settings
        configuration = _load(settings)
        self.server: str = str(configuration.host)
        self.requests = 0
        self._client = ReadOnlyApiClient(configuration)
        self._client.user_agent = USER_AGENT  # so the cluster's audit log tells these reads apart

    def __enter__(self) -> KubeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()
        self._client.rest_client.pool_manager.clear()  # close the kept-alive connections now

    @property
    def origin(self) -> str:
        """host:port of the API server, for captures and problems."""
        return urlsplit(self.server).netloc or self.server

    def get(self, path: str, query: list[tuple[str, str]] | None = None) -> bytes:
        """The body of a GET, retried on transient failures. Raises ApiStatusError for an HTTP error
        answer, CollectionError when the cluster cannot be talked to at all (TLS, auth, unreachable)."""
        query = query or []
        line = request_line(path, query)
        attempt = 0
        while True:
            try:
                return self._once(path, query)
            except TlsFailure as exc:
                raise self._tls_failure(str(exc)) from None
            except ApiException as exc:
                status = _status(exc)
                if status.code == 401:
                    raise self._unauthorized(status) from None
                if status.code not in _TRANSIENT_STATUS or attempt >= self.settings.retries:
                    raise ApiStatusError(line, status) from None
                delay = _retry_after(exc) if status.code == 429 else None
            except urllib3.exceptions.SSLError as exc:
                raise self._tls_failure(str(exc)) from None
            except urllib3.exceptions.HTTPError as exc:
                cut = _cut_short(exc, self.settings.read_timeout)
                if cut is not None and attempt >= self.settings.retries:
                    # The server took the request and then did not answer in time (or dropped the
                    # answer): this request failed, not the cluster. The caller names the resource.
                    raise ApiStatusError(line, cut) from None
                if cut is None and attempt >= self.settings.retries:
                    raise CollectionError(
                        f"cannot reach the API server {self.server} ({type(exc).__name__}: {_short(exc)})",
                        target=self.settings.cluster,
                        hint="check that the cluster is up and reachable from here; this is retried next run",
                        transient=True,
                    ) from None
                delay = None
            attempt += 1
            pause = delay if delay is not None else self.settings.retry_backoff * 2 ** (attempt - 1)
            log.info("%s: %s failed, retry %d in %.1fs", self.settings.cluster, line, attempt, pause)
            time.sleep(pause)

    def _once(self, path: str, query: list[tuple[str, str]]) -> bytes:
        self.requests += 1
        response = self._client.call_api(
            path,
            "GET",
            query_params=query,
            header_params={"Accept": "application/json"},
            auth_settings=["BearerToken"],
            _preload_content=False,
            _return_http_data_only=True,
            _request_timeout=(self.settings.connect_timeout, self.settings.read_timeout),
        )
        try:
            return bytes(response.data)
        finally:
            response.release_conn()

    def _unauthorized(self, status: ApiStatus) -> CollectionError:
        context = self.settings.context or "the current context"
        return CollectionError(
            f"the API server {self.server} rejected the credentials of {context} "
            f"(401 {status.reason}: {status.message})",
            target=self.settings.cluster,
            hint="the token is expired or invalid: refresh the kubeconfig's credentials and run again",
        )

    def _tls_failure(self, detail: str) -> CollectionError:
        return CollectionError(
            f"TLS verification of the API server {self.server} failed: {_first_line(detail)}",
            target=self.settings.cluster,
            hint="the kubeconfig's certificate-authority for this cluster must sign the server's "
            "certificate; verification is never turned off",
        )


def _load(settings: ClusterSettings) -> Configuration:
    configuration = Configuration()
    where = settings.kubeconfig or "the default kubeconfig"
    try:
        kube_config.load_kube_config(
            config_file=settings.kubeconfig,
            context=settings.context,
            client_configuration=configuration,
            persist_config=False,  # never write refreshed tokens back into the user's file
        )
    except (ConfigException, OSError, ValueError, TypeError, KeyError) as exc:
        raise CollectionError(
            f"cannot use {where} (context {settings.context or 'current'}): {_first_line(str(exc))}",
            target=settings.cluster,
            hint="fix sources.kubernetes (kubeconfig, context) or the kubeconfig file",
        ) from None
    if not configuration.verify_ssl:
        raise CollectionError(
            f"{where} sets insecure-skip-tls-verify for context {settings.context or 'current'}: "
            "the auditor does not collect evidence from a server it cannot authenticate",
            target=settings.cluster,
            hint="give the cluster's CA (certificate-authority-data) in the kubeconfig instead",
        )
    configuration.retries = False  # retries are ours: counted, backed off, never on auth failures
    return configuration


def _status(exc: ApiException) -> ApiStatus:
    """Read the `Status` object of an error answer; fall back to the HTTP status line."""
    code = int(exc.status or 0)
    body: Any = exc.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(body) if isinstance(body, str) and body else None
    except ValueError:
        data = None
    if isinstance(data, dict) and data.get("kind") == "Status":
        metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        token = metadata.get("continue") if isinstance(metadata, dict) else None
        return ApiStatus(
            code=int(data.get("code") or code),
            reason=str(data.get("reason") or exc.reason or ""),
            message=str(data.get("message") or ""),
            continue_token=token if isinstance(token, str) and token else None,
        )
    text = body.strip()[:200] if isinstance(body, str) else ""
    return ApiStatus(code=code, reason=str(exc.reason or ""), message=text)


TIMEOUT = "Timeout"
DROPPED = "ConnectionDropped"


def _cut_short(exc: urllib3.exceptions.HTTPError, read_timeout: float) -> ApiStatus | None:
    """An ApiStatus (code 0) when a request reached the server but got no (whole) answer: a read timeout
    or a connection dropped mid-answer. None when the server could not be reached at all."""
    reason = exc.reason if isinstance(exc, urllib3.exceptions.MaxRetryError) else exc
    if isinstance(reason, urllib3.exceptions.ReadTimeoutError):
        return ApiStatus(0, TIMEOUT, f"no answer within {read_timeout:g}s (collection.command_timeout)")
    if isinstance(reason, urllib3.exceptions.ProtocolError):
        return ApiStatus(
            0, DROPPED, f"the connection was dropped before the answer was complete ({_short(reason)})"
        )
    return None


def _retry_after(exc: ApiException) -> float | None:
    headers = exc.headers or {}
    try:
        return min(float(headers.get("Retry-After", "")), _MAX_RETRY_AFTER)
    except ValueError:
        return None


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines[:2]) if lines else text


def _short(exc: Exception) -> str:
    reason = getattr(exc, "reason", None)
    return _first_line(str(reason if reason is not None else exc))
