"""One generic registry for checks, collectors, normalizers and report formats.

Built-ins and third-party plugins arrive the same way: through entry-point groups."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from auditor.errors import PluginError

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries held on the instance (no module-level mutable state shared between registries)."""

    def __init__(
        self,
        group: str,
        *,
        validate: Callable[[str, object], T] | None = None,
        key: Callable[[object], str] | None = None,
    ) -> None:
        self.group = group
        self._entries: dict[str, T] = {}
        self._validate = validate
        self._key = key  # names the members of an entry point that provides several entries

    def register(self, name: str, entry: object) -> T:
        if name in self._entries:
            raise PluginError(f"{self.group}: {name!r} is registered twice")
        try:
            value = self._validate(name, entry) if self._validate else entry
        except (TypeError, ValueError) as exc:
            raise PluginError(f"{self.group}: {name!r} is not usable: {exc}") from exc
        self._entries[name] = value  # type: ignore[assignment]
        return value  # type: ignore[return-value]

    def load_entry_points(self) -> Registry[T]:
        """Load every entry point of the group; a broken plugin is an error naming it.

        An entry point may name one entry, or a list/tuple of entries (a package of checks, say) when
        the registry knows how to name them."""
        for ep in sorted(entry_points(group=self.group), key=lambda e: e.name):
            if ep.name in self._entries:
                continue
            try:
                obj = ep.load()
            except Exception as exc:
                raise PluginError(f"{self.group}: cannot load {ep.name!r} from {ep.value}: {exc}") from exc
            if isinstance(obj, list | tuple) and self._key is not None:
                for member in obj:
                    self.register(self._key(member), member)
            else:
                self.register(ep.name, obj)
        return self

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(sorted(self._entries)) or "none"
            raise PluginError(f"{self.group}: no entry named {name!r} (known: {known})") from None

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def items(self) -> list[tuple[str, T]]:
        return sorted(self._entries.items())
