"""Bounded listings for finding texts: a count and the first few items, never thousands.

A finding that lists what it found (ports, VRFs, subnets, flow-log ids) would otherwise grow with the
fleet: one route-target shared by every leaf made a 34 KB text per finding. The full list is in the
finding's fact references; the text names how many and the first few. Short lists read as before."""

from __future__ import annotations

from collections.abc import Iterable

SHOWN = 3  # items named after a count ("7 VRF(s): a, b, c and 4 more")
LISTED = 10  # items named in a plain listing ("a, b, ..., j and 4 more")
SHOWN_CLAUSES = 10  # clauses named in a "; " listing (each clause is already a sentence)


def bounded(items: Iterable[str], noun: str = "VRF(s)", shown: int = SHOWN) -> str:
    """ "3 VRF(s): a, b, c" / "7 VRF(s): a, b, c and 4 more": the distinct items, sorted, counted."""
    unique = sorted(set(items))
    head = ", ".join(unique[:shown])
    more = len(unique) - shown
    return f"{len(unique)} {noun}: {head}" + (f" and {more} more" if more > 0 else "")


def listing(items: Iterable[str], shown: int = LISTED, sep: str = ", ", empty: str = "") -> str:
    """The items in their order, joined; past `shown`, the first few and "and N more".

    Identical to `sep.join(items)` for a list of at most `shown` items, so short texts do not change."""
    items = list(items)
    if not items:
        return empty
    text = sep.join(items[:shown])
    more = len(items) - shown
    return text + (f" and {more} more" if more > 0 else "")


def clauses(items: Iterable[str], shown: int = SHOWN_CLAUSES, sep: str = "; ") -> str:
    """Clauses joined with "; ", past `shown` the first few and "; and N more"."""
    items = list(items)
    text = sep.join(items[:shown])
    more = len(items) - shown
    return text + (f"{sep}and {more} more" if more > 0 else "")
