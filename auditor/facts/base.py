"""The fact record base class and the kind -> model table."""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from auditor.enums import FactKind

_MODELS: dict[FactKind, type[FactRecord]] = {}


class FactRecord(BaseModel):
    """One normalized fact. Frozen and strict so facts from old evidence read back identically."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ClassVar[FactKind]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get("kind")
        if isinstance(kind, FactKind):
            if kind in _MODELS:
                raise TypeError(
                    f"fact kind {kind} registered twice ({_MODELS[kind].__name__}, {cls.__name__})"
                )
            _MODELS[kind] = cls

    def subject(self) -> str:
        """A short, stable, human-readable key: what a finding about this fact is about."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


_MODEL_MODULES = ("aws", "flows", "kubernetes", "network")


def fact_model(kind: FactKind) -> type[FactRecord]:
    model = _MODELS.get(kind)
    if model is None:  # the package loads its modules lazily: a kind is registered once its module is
        for name in _MODEL_MODULES:
            importlib.import_module(f"auditor.facts.{name}")
        model = _MODELS[kind]
    return model


def record_from_json(kind: FactKind | str, data: dict[str, Any]) -> FactRecord:
    return fact_model(FactKind(kind)).model_validate(data)


class Coverage(FactRecord):
    """Says that a capture was read for this kind of fact on this target, even when it yielded none.

    This is what lets a check tell 'no default route' (PASS) from 'never looked' (NOT_ASSESSED).
    """

    kind: ClassVar[FactKind] = FactKind.COVERAGE
    target: str
    covers: FactKind
    scope: str = ""
    # Non-empty: the opposite. This kind is NOT known on the target, for this reason (a command whose
    # answer nothing else can stand in for failed), whatever other captures cover it.
    gap: str = ""

    def subject(self) -> str:
        return f"{self.target}:{self.covers.value}"
