"""Pure parts of the device collector: retries, failure wording, credentials and trust settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.config.models import Credentials, DeviceSource
from auditor.errors import CollectionError, ReadOnlyViolation
from collectors.network.credentials import resolve
from collectors.network.hostkeys import trust_for
from collectors.network.retry import classify, with_retries


class FakeNetmikoAuth(Exception):
    pass


FakeNetmikoAuth.__name__ = "NetmikoAuthenticationException"


def test_transient_errors_are_retried_with_doubling_backoff() -> None:
    calls: list[int] = []
    sleeps: list[float] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionRefusedError(111, "Connection refused")
        return "ok"

    assert with_retries(flaky, target="sw1", retries=3, backoff=0.5, sleep=sleeps.append) == "ok"
    assert sleeps == [0.5, 1.0]


def test_retries_give_up_and_say_how_often() -> None:
    sleeps: list[float] = []

    def down() -> None:
        raise TimeoutError("timed out")

    with pytest.raises(CollectionError) as err:
        with_retries(down, target="sw1", retries=2, backoff=1, sleep=sleeps.append)
    assert "timed out" in str(err.value) and "after 3 attempts" in str(err.value)
    assert sleeps == [1, 2]
    assert err.value.transient


@pytest.mark.parametrize(
    "exc",
    [
        FakeNetmikoAuth("Authentication to device failed."),
        Exception("Server '[127.0.0.1]:2222' not found in known_hosts"),
        ReadOnlyViolation("sw1: refused to send 'conf t'"),
        Exception("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate"),
    ],
)
def test_permanent_errors_are_not_retried(exc: Exception) -> None:
    sleeps: list[float] = []

    def fails() -> None:
        raise exc

    with pytest.raises(CollectionError) as err:
        with_retries(fails, target="sw1", retries=5, backoff=1, sleep=sleeps.append)
    assert sleeps == []
    assert not err.value.transient


def test_unknown_errors_do_not_leak_their_text() -> None:
    f = classify(RuntimeError("password=hunter2 rejected"))
    assert "hunter2" not in f.reason + f.hint


def test_credentials_from_env_file_key_and_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SW_USER", "auditor")
    monkeypatch.setenv("SW_PASS", "s3cret")
    login = resolve(Credentials(username_env="SW_USER", password_env="SW_PASS"), target="sw1")
    assert (login.username, login.password) == ("auditor", "s3cret")
    assert "s3cret" not in repr(login)
    (tmp_path / "pw").write_text("from-file\n")
    login = resolve(Credentials(username="a", password_file=Path("pw")), target="sw1", base_dir=tmp_path)
    assert login.password == "from-file"
    login = resolve(Credentials(username="a", key_file=Path("id_ed25519")), target="sw1", base_dir=tmp_path)
    assert login.netmiko_args()["key_file"] == str(tmp_path / "id_ed25519")
    assert login.netmiko_args()["use_keys"] is True
    login = resolve(Credentials(username="a", use_ssh_agent=True), target="sw1")
    assert login.netmiko_args()["allow_agent"] is True


@pytest.mark.parametrize(
    ("creds", "message"),
    [
        (Credentials(username_env="NOPE_USER_1", password_env="X"), "NOPE_USER_1"),
        (Credentials(username="a", password_env="NOPE_PASS_1"), "NOPE_PASS_1"),
        (Credentials(username="a", password_file=Path("/nonexistent/pw")), "cannot read password file"),
        (Credentials(username="a"), "no password, key file or SSH agent"),
        (Credentials(password_env="X"), "no username"),
    ],
)
def test_missing_credentials_are_clear_errors(creds: Credentials, message: str) -> None:
    with pytest.raises(CollectionError) as err:
        resolve(creds, target="sw1")
    assert message in str(err.value)
    assert not err.value.transient


def test_trust_defaults_to_strict_host_keys_and_verified_tls(tmp_path: Path) -> None:
    dev = DeviceSource(host="h", platform="eos", known_hosts=Path("kh"))
    trust = trust_for(dev, base_dir=tmp_path)
    assert trust.netmiko == {"ssh_strict": True, "alt_host_keys": True, "alt_key_file": str(tmp_path / "kh")}
    assert trust.verify_tls and trust.notes == ()
    inv = trust_for(DeviceSource(host="h", platform="sonic"), base_dir=tmp_path, known_hosts=Path("/inv/kh"))
    assert inv.netmiko["alt_key_file"] == "/inv/kh"
    home = trust_for(DeviceSource(host="h", platform="sonic"), base_dir=tmp_path)
    assert home.netmiko["alt_key_file"] == str(Path("~/.ssh/known_hosts").expanduser())


def test_opt_outs_are_explicit_and_noted(tmp_path: Path) -> None:
    dev = DeviceSource(host="h", platform="eos", accept_unknown_host_key=True, verify_tls=False)
    trust = trust_for(dev, base_dir=tmp_path)
    assert trust.netmiko["ssh_strict"] is False
    assert "alt_key_file" not in trust.netmiko  # paramiko would append new keys to it
    assert len(trust.notes) == 2 and all("NOT verified" in n for n in trust.notes)
