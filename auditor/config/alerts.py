"""The `alerts:` block: where to say what changed since the previous run of the scope (auditor/ops/alerts).

Secrets stay out of the config: a webhook URL that carries a token is given by `url_env`/`url_file`, an SMTP
password by `password_env`/`password_file`. The block is kept out of the run's config snapshot (a changed
sink never changes a run's hash).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from auditor.enums import Severity

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
EventKind = Literal["new_failure", "unauthorised_flow", "target_unreachable", "waiver_expired"]
EVENT_KINDS: tuple[EventKind, ...] = (
    "new_failure",
    "unauthorised_flow",
    "target_unreachable",
    "waiver_expired",
)
FACILITIES = {
    "kern": 0,
    "user": 1,
    "daemon": 3,
    "auth": 4,
    "syslog": 5,
    "authpriv": 10,
    **{f"local{i}": 16 + i for i in range(8)},
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _env_name(value: str | None) -> str | None:
    if value is not None and not _ENV_NAME.match(value):
        raise ValueError(f"expected an environment variable name, got {value!r}")
    return value


class WebhookSink(_Strict):
    """A JSON POST with a Slack-compatible body (`text`, `blocks`, `attachments`) plus the events as data."""

    type: Literal["webhook"]
    name: str = Field(default="webhook", description="for log lines")
    url: str | None = Field(default=None, description="only for URLs without a secret in them")
    url_env: str | None = Field(default=None, description="environment variable holding the URL")
    url_file: Path | None = Field(default=None, description="file holding the URL (relative to the config)")
    verify_tls: bool = True
    ca_file: Path | None = Field(default=None, description="CA bundle to trust for an https URL")
    timeout: float = Field(default=10.0, gt=0, description="seconds per attempt")
    structured: bool = Field(default=True, description="also send the events as data under `auditor`")

    @field_validator("url_env")
    @classmethod
    def _env(cls, v: str | None) -> str | None:
        return _env_name(v)

    @model_validator(mode="after")
    def _one_url(self) -> WebhookSink:
        given = [k for k in ("url", "url_env", "url_file") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a webhook needs exactly one of url, url_env, url_file")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"webhook url must start with http:// or https://, got {self.url!r}")
        return self


class SyslogSink(_Strict):
    """RFC 5424 messages, one per event, over UDP (RFC 5426) or TCP with octet counting (RFC 6587)."""

    type: Literal["syslog"]
    name: str = Field(default="syslog", description="for log lines")
    host: str
    port: int = Field(default=514, ge=1, le=65535)
    transport: Literal["udp", "tcp"] = "udp"
    facility: str = Field(
        default="local0", description="kern, user, daemon, auth, syslog, authpriv, local0-7"
    )
    app_name: str = Field(default="auditor", min_length=1, max_length=48)
    enterprise_id: int = Field(
        default=32473, ge=1, description="IANA enterprise number of the structured-data id auditor@N"
    )
    max_bytes: int = Field(default=2048, ge=480, le=65000, description="largest UDP message; longer is cut")
    timeout: float = Field(default=5.0, gt=0, description="seconds per attempt")

    @field_validator("facility")
    @classmethod
    def _facility(cls, v: str) -> str:
        if v not in FACILITIES:
            raise ValueError(f"unknown syslog facility {v!r}: expected one of {', '.join(FACILITIES)}")
        return v

    @field_validator("app_name")
    @classmethod
    def _printable(cls, v: str) -> str:
        if not all(33 <= ord(c) <= 126 for c in v):
            raise ValueError("app_name must be printable ASCII without spaces (RFC 5424 APP-NAME)")
        return v


class EmailSink(_Strict):
    """One e-mail per run with changes, over SMTP; STARTTLS is required unless `starttls: false`."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    type: Literal["email"]
    name: str = Field(default="email", description="for log lines")
    host: str
    port: int = Field(default=587, ge=1, le=65535)
    sender: str = Field(alias="from", min_length=3)
    to: list[str] = Field(min_length=1)
    subject_prefix: str = "[auditor]"
    starttls: bool = Field(default=True, description="refuse to send if the server does not offer it")
    verify_tls: bool = True
    ca_file: Path | None = Field(default=None, description="CA bundle to trust for the server's certificate")
    username: str | None = None
    username_env: str | None = None
    password_env: str | None = None
    password_file: Path | None = None
    timeout: float = Field(default=10.0, gt=0, description="seconds per attempt")

    @field_validator("username_env", "password_env")
    @classmethod
    def _envs(cls, v: str | None) -> str | None:
        return _env_name(v)

    @model_validator(mode="after")
    def _credentials(self) -> EmailSink:
        if self.username is not None and self.username_env is not None:
            raise ValueError("give username or username_env, not both")
        if self.password_env is not None and self.password_file is not None:
            raise ValueError("give password_env or password_file, not both")
        has_user = self.username is not None or self.username_env is not None
        has_password = self.password_env is not None or self.password_file is not None
        if has_user != has_password:
            raise ValueError("SMTP login needs a username and a password (password_env or _file)")
        if has_password and not self.starttls:
            raise ValueError("refusing to send an SMTP password without STARTTLS; set starttls: true")
        return self


Sink = Annotated[WebhookSink | SyslogSink | EmailSink, Field(discriminator="type")]


class AlertSettings(_Strict):
    """What to alert on and where. Sent once a run is sealed; a failing sink is retried (`retries` more
    times, waiting `backoff` seconds doubled each time), logged, and never fails the audit."""

    sinks: list[Sink] = Field(min_length=1)
    events: list[EventKind] = Field(default=list(EVENT_KINDS), description="which changes to alert on")
    min_severity: Severity = Field(default=Severity.LOW, description="findings below this are not alerted")
    retries: int = Field(default=3, ge=0, le=10)
    backoff: float = Field(default=1.0, ge=0, le=300, description="seconds before the first retry, doubled")
    max_events: int = Field(default=50, ge=1, description="events listed per message; the rest are counted")
    first_run: bool = Field(
        default=True, description="alert on a scope's first run (every failure is new); false: stay quiet"
    )
