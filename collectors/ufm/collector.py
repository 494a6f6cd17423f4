"""The `ufm` collector: one GET of UFM's P_Key resource per configured UFM server.

What it calls, and nothing else: `GET /ufmRest/resources/pkeys?guids_data=true` (UFM Enterprise REST API,
"PKey GUIDs Rest API": every partition with its port GUIDs and their membership), with HTTP basic
authentication from the `credentials` references. TLS is verified against the system trust store or
`ca_file`; `verify_tls: false` is an explicit opt-out, recorded in the capture's meta.
"""

from __future__ import annotations

import base64
import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

from auditor.capture import RawCapture
from auditor.config.models import AuditConfig, UfmSource
from auditor.enums import TargetKind, Tier
from auditor.errors import CollectionError
from auditor.normalize import Problem
from collectors.base import Plan, TargetSpec
from collectors.network.credentials import resolve

PKEYS_PATH = "/ufmRest/resources/pkeys?guids_data=true"
FORMAT = "ufm.pkeys"


@dataclass(frozen=True)
class UfmSettings:
    """What one collection needs, resolved from the config at plan time (no secret in here)."""

    name: str
    source: UfmSource
    base_dir: Path
    ca_file: Path | None
    timeout: float


class UfmCollector:
    name: ClassVar[str] = "ufm"
    permissions: ClassVar[dict[str, list[str]]] = {
        "ufm rest api": [f"GET {PKEYS_PATH} (a UFM account with read access, e.g. the Monitoring role)"]
    }

    def plan(self, config: AuditConfig) -> Plan:
        plan = Plan()
        seen: set[str] = set()
        for index, source in enumerate(config.sources.ufm):
            name = source.name or urlsplit(source.url).hostname or source.url
            if not source.url.lower().startswith(("https://", "http://")):
                plan.problems.append(
                    Problem(
                        f"sources.ufm[{index}]",
                        f"url {source.url!r} is not an http(s) URL",
                        hint="e.g. https://ufm.example",
                    )
                )
                continue
            if name in seen:
                plan.problems.append(
                    Problem(
                        f"sources.ufm[{index}]",
                        f"UFM {name!r} is configured twice",
                        hint="give each a distinct `name`",
                    )
                )
                continue
            seen.add(name)
            ca_file = config.resolve(source.ca_file) if source.ca_file else None
            settings = UfmSettings(name, source, config.base_dir, ca_file, config.collection.command_timeout)
            plan.targets.append(
                TargetSpec(TargetKind.IB_FABRIC, name, self.name, "ufm", Tier.BACKEND, payload=settings)
            )
        return plan

    def collect(self, target: TargetSpec) -> Iterator[RawCapture | Problem]:
        settings = target.payload
        if not isinstance(settings, UfmSettings):
            raise CollectionError("not a target planned by the ufm collector", target=target.name)
        url = settings.source.url.rstrip("/") + PKEYS_PATH
        body = fetch(url, settings, target.name)
        yield RawCapture(
            target=target.name,
            format=FORMAT,
            source=f"GET {PKEYS_PATH}",
            origin=url,
            collected_at=datetime.now(UTC),
            content=body,
            meta={"fabric": target.name, "tls_verified": str(settings.source.verify_tls).lower()},
        )


def tls_context(settings: UfmSettings) -> ssl.SSLContext:
    if not settings.source.verify_tls:
        return ssl._create_unverified_context()  # noqa: S323 (the user's explicit, recorded opt-out)
    return ssl.create_default_context(cafile=str(settings.ca_file) if settings.ca_file else None)


def fetch(url: str, settings: UfmSettings, target: str) -> bytes:
    """One authenticated GET; every failure becomes a CollectionError saying what to do."""
    login = resolve(settings.source.credentials, target=target, base_dir=settings.base_dir)
    if login.password is None:
        raise CollectionError(
            "UFM needs a password", target=target, hint="set credentials.password_env or password_file"
        )
    token = base64.b64encode(f"{login.username}:{login.password}".encode()).decode()
    request = urllib.request.Request(  # noqa: S310 (the scheme is checked at plan time)
        url, headers={"Authorization": f"Basic {token}", "Accept": "application/json"}, method="GET"
    )
    try:
        context = tls_context(settings)
    except (OSError, ssl.SSLError) as exc:
        raise CollectionError(
            f"cannot load the CA file {settings.ca_file}: {exc}",
            target=target,
            hint="fix sources.ufm ca_file",
        ) from None
    try:
        with urllib.request.urlopen(request, timeout=settings.timeout, context=context) as response:  # noqa: S310
            body: bytes = response.read()
            return body
    except urllib.error.HTTPError as exc:
        raise _http_error(exc.code, target) from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, ssl.SSLCertVerificationError):
            raise CollectionError(
                f"TLS certificate of {urlsplit(url).hostname} not trusted: {exc.reason.verify_message}",
                target=target,
                hint="set ca_file to the CA that signed UFM's certificate (or verify_tls: false, reported)",
            ) from None
        raise CollectionError(f"cannot reach UFM: {exc.reason}", target=target, transient=True) from None
    except (TimeoutError, ConnectionError) as exc:
        raise CollectionError(f"UFM did not answer: {exc}", target=target, transient=True) from None
    except (ssl.SSLError, OSError) as exc:
        raise CollectionError(f"TLS or network error talking to UFM: {exc}", target=target) from None


def _http_error(code: int, target: str) -> CollectionError:
    if code in (401, 403):
        return CollectionError(
            f"UFM refused the credentials (HTTP {code})",
            target=target,
            hint="check the UFM account and that it may read /ufmRest/resources/pkeys",
        )
    if code == 404:
        return CollectionError(
            "UFM has no P_Key resource at /ufmRest/resources/pkeys (HTTP 404)",
            target=target,
            hint="UFM Enterprise 6.x serves it; check the url (scheme, host, no path)",
        )
    return CollectionError(f"UFM answered HTTP {code}", target=target, transient=code >= 500)
