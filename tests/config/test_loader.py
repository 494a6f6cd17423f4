"""The audit config: validated with line-numbered errors; secrets refused; paths relative to the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.config.loader import load_config, parse_config
from auditor.enums import Tier
from auditor.errors import ConfigError


def _err(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_config(text, source="a.yaml")
    return info.value


def test_minimal_config_defaults() -> None:
    cfg = parse_config("sources: {}", source="a.yaml", base_dir=Path("/srv/audit"))
    assert cfg.store_url() == "sqlite:////srv/audit/auditor.db"
    assert cfg.intent.tiers.declared() == []


def test_full_intent_parses() -> None:
    cfg = parse_config(
        """
intent:
  tiers:
    oob: {cidrs: [10.250.0.1/16], jump_hosts: [10.250.200.10], devices: ["oob-*"]}
    frontend: {namespaces: {labels: {tier: frontend}}, egress_proxy: ["10.20.5.10:3128"], dns_resolvers: [10.20.0.53]}
    backend: {vlans: "3000-3099,3100", vrfs: [RDMA-A], device_roles: {leaf: ["be-leaf*"]}, min_mtu: 9216}
  shared_responsibility: {physical-network: provider}
""",
        source="a.yaml",
    )
    tiers = cfg.intent.tiers
    assert tiers.oob is not None and tiers.oob.cidrs == ["10.250.0.0/16"]
    assert tiers.oob.jump_hosts == ["10.250.200.10/32"]
    assert tiers.backend is not None and tiers.backend.vlans == [(3000, 3099), (3100, 3100)]
    assert cfg.intent.tier_of_device("be-leaf7") == Tier.BACKEND
    assert tiers.backend.role_of("be-leaf7") == "leaf"
    assert cfg.intent.tier_of_device("oob-sw1") == Tier.OOB
    assert tiers.frontend is not None and tiers.frontend.namespaces is not None
    assert tiers.frontend.namespaces.selects("team-a", {"tier": "frontend"})
    assert not tiers.frontend.namespaces.selects("kube-system", {"tier": "frontend"})


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        (
            "intent:\n  tiers:\n    backend:\n      min_mtu: 100\n",
            4,
            "intent.tiers.backend.min_mtu",
            "greater than",
        ),
        (
            "intent:\n  tiers:\n    oob:\n      cidrs: [10.250.0.0/33]\n",
            4,
            "intent.tiers.oob.cidrs[0]",
            "CIDR",
        ),
        (
            "intent:\n  tierz: {}\n",
            2,
            "intent.tierz",
            "expected one of: tiers, ",  # other intent sections follow
        ),
        ("sources:\n  devices:\n    - {host: a, platform: vyos}\n", 3, "sources.devices[0].platform", "eos"),
        ("sources:\n  devices:\n    - {host: a}\n", 3, "sources.devices[0].platform", "missing"),
        ("intent:\n  tiers:\n    backend: {vlans: '10-5000'}\n", 3, "intent.tiers.backend.vlans", "1-4094"),
        ("sources:\n  aws:\n    - {regions: []}\n", 3, "sources.aws[0].regions", "at least 1"),
    ],
)
def test_errors_name_line_and_field(text: str, line: int, field: str, words: str) -> None:
    err = _err(text)
    assert (err.file, err.line, err.field) == ("a.yaml", line, field)
    assert words in str(err)
    assert "\n" not in str(err)  # one line


def test_duplicate_key_is_an_error() -> None:
    err = _err("store: sqlite:///a.db\nstore: sqlite:///b.db\n")
    assert (err.line, err.field) == (2, "store")


@pytest.mark.parametrize("key", ["password", "secret", "token"])
def test_inline_secrets_are_refused(key: str) -> None:
    err = _err(
        f"sources:\n  devices:\n    - host: a\n      platform: eos\n      credentials: {{{key}: hunter2}}\n"
    )
    assert err.line == 5 and "secrets never go in this file" in str(err)
    assert "hunter2" not in str(err)


def test_yaml_syntax_error_has_a_line() -> None:
    err = _err("intent:\n  tiers: [oops\n")
    assert err.line is not None and "not valid YAML" in str(err)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "nope.yaml")


def test_all_errors_are_reported(tmp_path: Path) -> None:
    cfg = tmp_path / "auditor.yaml"
    cfg.write_text("intent:\n  tiers:\n    backend: {min_mtu: x}\n    oob: {jump_host: []}\n")
    with pytest.raises(ConfigError) as info:
        load_config(cfg)
    lines = [e.line for e in info.value.all_errors]  # type: ignore[attr-defined]
    assert lines == [3, 4]


@pytest.mark.parametrize("text", ["", "\n# only a comment\n", "{}", "---\n"])
def test_empty_config_is_an_error(text: str) -> None:
    err = _err(text)
    assert "empty" in str(err) and "a.yaml:1" in str(err)


def test_alias_bomb_refused_before_expansion() -> None:
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    err = _err("\n".join(lines) + "\n")
    assert "aliases are expanded" in str(err)
    assert err.line is not None and err.line > 1


def test_deep_nesting_refused_with_its_line() -> None:
    err = _err("intent:\n  x: " + "[" * 3000 + "]" * 3000 + "\n")
    assert "nested deeper" in str(err) and err.line == 2


def test_ordinary_anchors_still_work() -> None:
    cfg = parse_config(
        """
sources:
  devices:
    - {host: a.example, platform: eos, credentials: &creds {username_env: U, password_env: P}}
    - {host: b.example, platform: eos, credentials: *creds}
""",
        source="a.yaml",
    )
    assert cfg.sources.devices[1].credentials.password_env == "P"


def test_config_errors_exit_2_without_traceback(tmp_path: Path) -> None:
    import subprocess
    import sys

    cases = {"empty.yaml": "", "bomb.yaml": "a: " + "[" * 500 + "]" * 500 + "\n", "bad.yaml": "a: [\n"}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        proc = subprocess.run(
            [sys.executable, "-m", "auditor", "audit", "-c", str(tmp_path / name)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )
        assert proc.returncode == 2, (name, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stdout + proc.stderr
        assert name in proc.stdout + proc.stderr
