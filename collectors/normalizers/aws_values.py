"""Small typed readers for EC2 describe_* items: required ids, optional strings, tags, CIDR sets.

A missing id or a field of the wrong type raises `ItemError`; the caller turns it into one Problem for
that item and keeps the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

UNKNOWN = "unknown"
# Association states that mean the CIDR or route-table association is no longer in force.
GONE_STATES = frozenset({"disassociated", "failed"})


class ItemError(ValueError):
    """One describe_* item cannot be read; the message names the field."""


def item_mapping(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ItemError(f"{where} is not an object")
    return cast(dict[str, Any], value)


def required(item: dict[str, Any], key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise ItemError(f"missing {key}")
    return value


def optional(item: dict[str, Any], key: str) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ItemError(f"{key} must be a string")
    return value


def optional_int(item: dict[str, Any], key: str) -> int | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ItemError(f"{key} must be an integer")
    return value


def flag(item: dict[str, Any], key: str) -> bool:
    value = item.get(key, False)
    if not isinstance(value, bool):
        raise ItemError(f"{key} must be true or false")
    return value


def objects(item: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """A list of objects (None or absent: empty)."""
    value = item.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ItemError(f"{key} must be a list")
    return [item_mapping(v, f"{key}[{i}]") for i, v in enumerate(value)]


def tags(item: dict[str, Any]) -> dict[str, str]:
    """EC2 Tags as a dict: [{"Key": k, "Value": v}] -> {k: v}."""
    result: dict[str, str] = {}
    for tag in objects(item, "Tags"):
        key = tag.get("Key")
        value = tag.get("Value", "")
        if not isinstance(key, str) or not isinstance(value, str):
            raise ItemError("Tags must hold string Key and Value")
        result[key] = value
    return result


def live_cidrs(item: dict[str, Any], set_key: str, cidr_key: str, state_key: str) -> list[str]:
    """CIDRs of an association set, leaving out those already disassociated or failed."""
    result: list[str] = []
    for assoc in objects(item, set_key):
        state = assoc.get(state_key)
        if isinstance(state, dict) and state.get("State") in GONE_STATES:
            continue
        cidr = optional(assoc, cidr_key)
        if cidr is not None and cidr not in result:
            result.append(cidr)
    return result


@dataclass
class AwsContext:
    """Where the facts belong: meta first, then the item's owner, then the owner of its VPC."""

    origin: str
    account: str | None
    region: str
    vpc_owner: dict[str, str] = field(default_factory=dict)

    def account_for(self, item: dict[str, Any], vpc_id: str | None = None) -> str:
        if self.account:
            return self.account
        owner = item.get("OwnerId")
        if isinstance(owner, str) and owner:
            return owner
        return self.vpc_owner.get(vpc_id or "", UNKNOWN)
