"""Config of unattended operation: `schedules:` (when `auditor scheduler` audits each scope) and `metrics:`
(the Prometheus textfile written after each run). Operational settings, not audit intent: they are left
out of the config snapshot stored with a run, so changing a schedule never changes a run's config hash."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import croniter  # type: ignore[import-untyped]
from pydantic import BaseModel, ConfigDict, Field, field_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Schedule(_Strict):
    """One scope's schedule: a cron expression, and the config of the scope it audits (default: the config
    that holds the schedule). Standard five fields (minute hour day month weekday); a sixth field is
    seconds (croniter's reading), meant for tests and demos."""

    cron: str = Field(description="cron expression, e.g. '0 2 * * *' (02:00 every day)")
    config: Path | None = Field(
        default=None, description="another scope's config, relative to this file; default: this config"
    )
    timezone: str = Field(default="UTC", description="IANA time zone the cron fields are read in")

    @field_validator("cron")
    @classmethod
    def _cron(cls, value: str) -> str:
        fields = value.split()
        if len(fields) not in (5, 6) or not croniter.is_valid(value):
            raise ValueError(
                f"not a cron expression: {value!r}; expected five fields (minute hour day month weekday), "
                "e.g. '0 2 * * *'"
            )
        return " ".join(fields)

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"unknown time zone {value!r}; use an IANA name such as UTC or Europe/Paris"
            ) from None
        return value

    def next_after(self, moment: datetime) -> datetime:
        """The first trigger strictly after `moment` (an aware datetime), in this schedule's zone."""
        local = moment.astimezone(ZoneInfo(self.timezone))
        nxt: datetime = croniter(self.cron, local).get_next(datetime)
        return nxt


class MetricsSettings(_Strict):
    """Prometheus metrics of each run, written after the run for node-exporter's textfile collector
    (`--collector.textfile.directory`). Give each scope its own file: node-exporter reads every *.prom."""

    textfile: Path | None = Field(default=None, description="the .prom file, relative to the config")
    scope_label: str | None = Field(
        default=None,
        max_length=64,
        description="the `scope` label of this config's metrics and scheduler logs; default: the "
        "config file's directory name",
    )

    @field_validator("textfile")
    @classmethod
    def _prom(cls, value: Path | None) -> Path | None:
        if value is not None and value.suffix != ".prom":
            raise ValueError(f"{value}: node-exporter's textfile collector reads only files ending in .prom")
        return value


def unique_configs(schedules: list[Schedule]) -> list[Schedule]:
    """One schedule per scope: two entries for the same config would audit one scope twice."""
    seen: set[str] = set()
    for s in schedules:
        key = str(s.config or "")
        if key in seen:
            where = f"config {s.config}" if s.config else "this config"
            raise ValueError(
                f"two schedules for {where}: give one cron expression per scope (cron lists work)"
            )
        seen.add(key)
    return schedules
