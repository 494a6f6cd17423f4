"""Build audit configs that point at emulated devices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from auditor.config.models import AuditConfig
from tests.devsim.device import Device
from tests.devsim.sim import DevSim
from tests.network.conftest import PASSWORD_ENV


def entry(sim: DevSim, dev: Device, **over: Any) -> dict[str, Any]:
    e: dict[str, Any] = {
        "host": "127.0.0.1",
        "name": dev.name,
        "port": dev.port,
        "platform": dev.platform,
        "known_hosts": str(sim.known_hosts()),
        "ca_file": str(sim.ca_file),
        "credentials": {"username": dev.username, "password_env": PASSWORD_ENV},
    }
    e.update(over)
    return e


FAST = {"connect_timeout": 2, "command_timeout": 3, "retries": 0, "retry_backoff": 0.05}


def config(entries: list[dict[str, Any]], tmp: Path, **extra: Any) -> AuditConfig:
    data: dict[str, Any] = {
        "sources": {"devices": entries},
        "collection": dict(FAST),
        "store": f"sqlite:///{tmp / 'audit.db'}",
        "output": str(tmp / "out"),
        "reports": ["json"],
    }
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(data.get(k), dict):
            data[k] = {**data[k], **v}
        else:
            data[k] = v
    return AuditConfig.model_validate({**data, "base_dir": tmp})


def write_config(cfg_data: dict[str, Any], tmp: Path) -> Path:
    path = tmp / "auditor.yaml"
    path.write_text(yaml.safe_dump(cfg_data, sort_keys=False))
    return path


def cli(*args: str) -> int:
    """Run the console script's main() in this process (same code path as `auditor ...`, without paying
    a fresh interpreter's start-up); returns its exit code."""
    import sys

    from auditor.cli.app import main

    argv = sys.argv
    sys.argv = ["auditor", *args]
    try:
        main()
    except SystemExit as exc:
        return int(exc.code or 0)
    finally:
        sys.argv = argv
    return 0
