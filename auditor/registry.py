"""One generic registry for checks, collectors, normalizers and report formats.

Built-ins and third-party plugins arrive the same way: through entry-point groups."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar

from auditor.errors import PluginError

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries held on the instance (no module-level mutable state shared between registries).

    Entry points are noted when the group is read and imported when first needed: `get(name)` imports
    only the entry point of that name (a JSON report need not import the PDF renderer and reportlab),
    listing imports them all. A registry whose entry points provide several entries each (`key`) imports
    them all at its first use, since any of them may hold the name asked for."""

    def __init__(
        self,
        group: str,
        *,
        validate: Callable[[str, object], T] | None = None,
        key: Callable[[object], str] | None = None,
    ) -> None:
        self.group = group
        self._entries: dict[str, T] = {}
        self._pending: dict[str, EntryPoint] = {}
        self._loading = threading.RLock()
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
        """Note every entry point of the group; each is imported when first needed (see the class), and
        a broken plugin is then an error naming it.

        An entry point may name one entry, or a list/tuple of entries (a package of checks, say) when
        the registry knows how to name them."""
        for ep in sorted(entry_points(group=self.group), key=lambda e: e.name):
            if ep.name not in self._entries and ep.name not in self._pending:
                self._pending[ep.name] = ep
        return self

    def _load(self, ep: EntryPoint) -> None:
        try:
            obj = ep.load()
        except Exception as exc:
            raise PluginError(f"{self.group}: cannot load {ep.name!r} from {ep.value}: {exc}") from exc
        if isinstance(obj, list | tuple) and self._key is not None:
            for member in obj:
                self.register(self._key(member), member)
        else:
            self.register(ep.name, obj)

    def _load_pending(self, name: str | None = None) -> None:
        """Import the entry point `name` (when entries are named by their entry point), else all."""
        if not self._pending:
            return
        with self._loading:
            if name is not None and self._key is None:
                names = [name] if name in self._pending else []
            else:
                names = sorted(self._pending)
            for pending in names:
                ep = self._pending.pop(pending, None)
                if ep is not None and ep.name not in self._entries:
                    self._load(ep)

    def get(self, name: str) -> T:
        if name not in self._entries:
            self._load_pending(name)
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(sorted({*self._entries, *self._pending})) or "none"
            raise PluginError(f"{self.group}: no entry named {name!r} (known: {known})") from None

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str) and name not in self._entries:
            self._load_pending(name)
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        self._load_pending()
        return iter(sorted(self._entries))

    def __len__(self) -> int:
        self._load_pending()
        return len(self._entries)

    def items(self) -> list[tuple[str, T]]:
        self._load_pending()
        return sorted(self._entries.items())
