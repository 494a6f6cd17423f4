"""Fixtures: the PKI, API servers started on loopback for one test, kubeconfigs and audit configs."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.k8s_live.apiserver import ApiServer, Served
from tests.k8s_live.certs import Pki, make_pki
from tests.k8s_live.cluster import build

TOKEN = "good-token-4f1c2a"


@pytest.fixture(scope="session")
def pki() -> Pki:
    return make_pki()


@pytest.fixture
def start_server(pki: Pki) -> Iterator[Callable[..., ApiServer]]:
    """Start an API server serving `build(**layout)` (or the given resources); stopped after the test."""
    started: list[ApiServer] = []

    def start(resources: list[Served] | None = None, **layout: Any) -> ApiServer:
        server = ApiServer(
            resources if resources is not None else build(**layout),
            token=TOKEN,
            cert_pem=pki.server_cert_pem,
            key_pem=pki.server_key_pem,
        ).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def server(start_server: Callable[..., ApiServer]) -> ApiServer:
    return start_server()


@dataclass(frozen=True)
class Context:
    name: str
    server: ApiServer
    token: str = TOKEN
    ca_pem: bytes | None = None  # default: the test CA


def write_kubeconfig(path: Path, pki: Pki, contexts: list[Context], current: str | None = None) -> Path:
    """A kubeconfig as `kubectl config view --raw` shows one: CA inline, a bearer token per user."""
    doc: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "preferences": {},
        "clusters": [],
        "users": [],
        "contexts": [],
        "current-context": current or contexts[0].name,
    }
    for c in contexts:
        ca = base64.b64encode(c.ca_pem or pki.ca_pem).decode()
        doc["clusters"].append(
            {"name": c.name, "cluster": {"server": c.server.url, "certificate-authority-data": ca}}
        )
        doc["users"].append({"name": f"{c.name}-auditor", "user": {"token": c.token}})
        doc["contexts"].append({"name": c.name, "context": {"cluster": c.name, "user": f"{c.name}-auditor"}})
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.fixture
def kubeconfig(tmp_path: Path, pki: Pki, server: ApiServer) -> Path:
    return write_kubeconfig(tmp_path / "kubeconfig", pki, [Context("prod", server)])


def audit_config(directory: Path, body: dict[str, Any]) -> Path:
    """Write an auditor.yaml declaring a frontend tier with tenant namespaces; returns its path."""
    config = {
        "intent": {"tiers": {"frontend": {"cidrs": ["10.0.0.0/8"], "namespaces": {"names": ["*"]}}}},
        "store": "sqlite:///auditor.db",
        "reports": ["json"],
        "collection": {"retries": 1, "retry_backoff": 0, "connect_timeout": 5, "command_timeout": 10},
        **body,
    }
    path = directory / "auditor.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path
