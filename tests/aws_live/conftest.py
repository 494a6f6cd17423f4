"""moto's server on loopback (an ephemeral port), reached by boto3 over HTTP through endpoint_url."""

from __future__ import annotations

import json
import logging
import urllib.request
from collections.abc import Iterator

import pytest
from moto.server import ThreadedMotoServer

from tests.aws_live.scenario import Estate, build


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def moto_api(endpoint: str, path: str, body: bytes = b"") -> dict[str, object]:
    request = urllib.request.Request(
        f"{endpoint}/moto-api/{path}", data=body, method="POST", headers={"Content-Type": "text/plain"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # loopback only
        return dict(json.loads(response.read() or b"{}"))


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Test credentials in the environment, and no ~/.aws files from the machine."""
    home = tmp_path_factory.mktemp("aws-home")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(home / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / "credentials"))
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ROLE_ARN"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def estate(moto_endpoint: str, aws_env: None) -> Iterator[Estate]:
    """A fresh estate per test: moto is reset before it is built and after the test."""
    moto_api(moto_endpoint, "reset")
    yield build(moto_endpoint)
    moto_api(moto_endpoint, "reset-auth", b"inf")
    moto_api(moto_endpoint, "reset")
