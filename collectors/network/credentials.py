"""Resolve a `Credentials` reference into a login at connect time. The secret never leaves this object:
it is not logged, not put in errors, not stored, and its repr hides it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from auditor.config.models import Credentials
from auditor.errors import CollectionError


@dataclass(frozen=True)
class Login:
    username: str
    password: str | None = field(default=None, repr=False)
    key_file: str | None = None
    use_agent: bool = False

    def netmiko_args(self) -> dict[str, object]:
        """Netmiko's own options for password, key file and agent authentication."""
        args: dict[str, object] = {"username": self.username, "password": self.password or ""}
        if self.key_file:
            args.update(use_keys=True, key_file=self.key_file)
        args["allow_agent"] = self.use_agent
        if self.use_agent:
            args["use_keys"] = True
        return args


def resolve(creds: Credentials, *, target: str, base_dir: Path | None = None) -> Login:
    """Read the username and secret from the environment, a file, or the SSH agent/key.

    Raises CollectionError (not transient: retrying will not help) naming what is missing, never
    the value."""
    username = creds.username
    if creds.username_env:
        username = os.environ.get(creds.username_env) or None
        if username is None:
            raise CollectionError(
                f"environment variable {creds.username_env} (username) is not set",
                target=target,
                hint="export it before running the audit",
            )
    if not username:
        raise CollectionError(
            "no username configured", target=target, hint="set credentials.username or username_env"
        )
    password: str | None = None
    if creds.password_env:
        password = os.environ.get(creds.password_env)
        if password is None:
            raise CollectionError(
                f"environment variable {creds.password_env} (password) is not set",
                target=target,
                hint="export it before running the audit",
            )
    elif creds.password_file:
        path = _resolve_path(creds.password_file, base_dir)
        try:
            password = path.read_text().rstrip("\r\n")
        except OSError as exc:
            raise CollectionError(
                f"cannot read password file {path}: {exc.strerror}",
                target=target,
                hint="check credentials.password_file and its permissions",
            ) from None
    key_file = str(_resolve_path(creds.key_file, base_dir)) if creds.key_file else None
    if password is None and key_file is None and not creds.use_ssh_agent:
        raise CollectionError(
            "no password, key file or SSH agent configured",
            target=target,
            hint="set credentials.password_env, password_file, key_file or use_ssh_agent",
        )
    return Login(username, password, key_file, creds.use_ssh_agent)


def _resolve_path(path: Path, base_dir: Path | None) -> Path:
    path = path.expanduser()
    return path if path.is_absolute() or base_dir is None else base_dir / path
