"""A boto3 session per configured AWS source (a profile, the default chain, or an assumed role with an
external id), with the read-only guard (`collectors.aws.guard`: exactly the declared operations)
installed before any client exists, and clients that retry in botocore's adaptive mode (client-side rate
limiting on throttling)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import boto3
from botocore.config import Config

from auditor.config.models import AwsSource, CollectionSettings
from auditor.errors import ConfigError
from collectors.aws.guard import install_guard

SessionFactory = Callable[[AwsSource], boto3.Session]
ROLE_SESSION_NAME = "segmentation-auditor"
ASSUME_ROLE_SECONDS = 3600


def client_config(settings: CollectionSettings) -> Config:
    return Config(
        retries={"mode": "adaptive", "max_attempts": settings.retries + 3},
        connect_timeout=settings.connect_timeout,
        read_timeout=settings.command_timeout,
        user_agent_extra="segmentation-auditor",
    )


def open_session(source: AwsSource, settings: CollectionSettings | None = None) -> boto3.Session:
    """The session the collector reads through. Credentials come from the profile, the environment or
    STS; they are never stored or logged."""
    if source.role_arn:
        session = _assume_role(source, settings or CollectionSettings())
    elif source.profile:
        session = boto3.Session(profile_name=source.profile)
    else:
        session = boto3.Session()
    install_guard(session.events)
    return session


def _assume_role(source: AwsSource, settings: CollectionSettings) -> boto3.Session:
    assert source.role_arn is not None
    base = boto3.Session()
    region = source.regions[0]
    sts = base.client(
        "sts", region_name=region, endpoint_url=source.endpoint_url, config=client_config(settings)
    )
    install_guard(sts.meta.events, also_allow={("sts", "AssumeRole")})
    params: dict[str, Any] = {
        "RoleArn": source.role_arn,
        "RoleSessionName": ROLE_SESSION_NAME,
        "DurationSeconds": ASSUME_ROLE_SECONDS,
    }
    if source.external_id_env:
        external_id = os.environ.get(source.external_id_env)
        if not external_id:
            raise ConfigError(
                f"environment variable {source.external_id_env} (external_id_env) is not set",
                field="sources.aws.external_id_env",
                hint=f"export {source.external_id_env} with the role's external id",
            )
        params["ExternalId"] = external_id
    credentials = sts.assume_role(**params)["Credentials"]
    return boto3.Session(
        aws_access_key_id=credentials["AccessKeyId"],
        aws_secret_access_key=credentials["SecretAccessKey"],
        aws_session_token=credentials["SessionToken"],
    )


@dataclass
class Clients:
    """The clients of one target (account and region), made on first use from one session."""

    session: boto3.Session
    region: str
    endpoint_url: str | None
    config: Config
    _made: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Whoever made the session (open_session, or a factory injected for tests), its clients are
        # guarded: registering again is harmless (one handler per unique id).
        install_guard(self.session.events)

    def __call__(self, service: str) -> Any:
        if service not in self._made:
            self._made[service] = self.session.client(
                service, region_name=self.region, endpoint_url=self.endpoint_url, config=self.config
            )
        return self._made[service]
