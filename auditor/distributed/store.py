"""What a distributed run needs of its store: PostgreSQL, reachable from every machine."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from auditor.distributed.errors import DistributedError
from auditor.store.engine import normalize_url, safe_url


def require_shared_store(store: Engine | str, who: str) -> None:
    """Refuse a store other than PostgreSQL for the Celery executor and its workers (a URL is checked
    before anything is opened, so a refused SQLite file is never created)."""
    if isinstance(store, str):
        try:
            backend = make_url(normalize_url(store)).get_backend_name()
        except ArgumentError:
            return  # open_store names the bad URL
        shown = safe_url(store)
    else:
        backend, shown = store.dialect.name, safe_url(str(store.url))
    if backend == "postgresql":
        return
    raise DistributedError(
        f"{who} needs a PostgreSQL store, not {backend} ({shown}): workers on other machines write to the "
        "store themselves, which a SQLite file on one machine cannot take, and their appends to the "
        "evidence chain are serialised by a PostgreSQL advisory lock",
        hint="use --store postgresql+psycopg://USER@HOST/DB (or the config's store:), "
        "or collect with the local executor (--executor local)",
    )
