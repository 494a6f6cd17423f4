"""Pausing the cyclic garbage collector while many long-lived objects are made at once."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """No automatic collection meanwhile. Building a run's facts (or a day of flow conversations, or a
    report's sections) allocates hundreds of thousands of acyclic objects that all stay alive; CPython
    would run a full collection every few tens of thousands of them and walk every live object each time
    (a quarter to a half of such a load). Reference counting still frees what dies."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
