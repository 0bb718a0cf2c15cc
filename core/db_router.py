"""Read replicas: which database each query goes to.

The primary (``default``) takes every write and, by default, every read. Reads that may
lag a few seconds - searches, Ask retrieval, page and space reads - go to a streaming
replica (``DATABASE_REPLICA_URLS``) while a request of one of ``REPLICA_VIEWS`` runs:

- only replicas that answer and lag at most ``DATABASE_REPLICA_MAX_LAG_S`` are used
  (checked with ``pg_last_xact_replay_timestamp()``, at most every
  ``DATABASE_REPLICA_CHECK_S`` per process); with none usable, reads stay on the primary;
- whoever wrote (any POST, PUT, PATCH or DELETE but a question) reads from the primary for
  ``DATABASE_PIN_AFTER_WRITE_S``: editors see their own change at once;
- a replica that fails while a request reads from it is marked down and the view runs
  again on the primary: the reader gets a page, not an error;
- sessions, users, groups and tokens are always read from the primary: signing in and
  removing someone from a group take effect at once.

Raw SQL of the read path (retrieval, visibility, statistics) asks ``read_connection()``
instead of ``django.db.connection``.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

# Apps whose reads may come from a replica inside a read scope; everything else (auth,
# sessions, API tokens, admin) is read from the primary.
REPLICA_APPS = frozenset({"handbook", "search", "summaries"})
# URL names whose reads may lag. Ask is a POST (it logs the question) but only reads content.
REPLICA_VIEWS = frozenset({"home", "space_detail", "page_detail", "search", "ask"})
# Writes that change nothing their author reads next (a usage log, feedback): no pin to the primary.
UNPINNED_WRITES = frozenset({"search_opened", "ask_feedback"})
_READ_METHODS = frozenset({"GET", "HEAD"})

_read_alias: ContextVar[str] = ContextVar("handbook_read_alias", default=DEFAULT_DB_ALIAS)


def read_alias() -> str:
    """The database that reads of the current scope go to (``default`` outside a replica scope)."""
    return _read_alias.get()


def read_connection() -> BaseDatabaseWrapper:
    """The connection raw SQL of the read path runs on: this thread's connection to ``read_alias()``."""
    return connections[_read_alias.get()]


@contextlib.contextmanager
def reading_from(alias: str) -> Iterator[None]:
    """Send the reads of this block (this thread's) to ``alias``."""
    token = _read_alias.set(alias)
    try:
        yield
    finally:
        _read_alias.reset(token)


class ReplicaRouter:
    """Writes and migrations on the primary; content reads where the current scope says."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str:
        alias = _read_alias.get()
        if alias != DEFAULT_DB_ALIAS and model._meta.app_label in REPLICA_APPS:
            return alias
        return DEFAULT_DB_ALIAS

    def db_for_write(self, model: type[Any], **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # a replica holds the primary's rows: objects from both may be related

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db not in replica_aliases()


# --- replica health -------------------------------------------------------------------

# Lag in seconds: 0 when everything received is replayed (an idle primary sends nothing, so the
# last replayed transaction grows old without the replica falling behind); not in recovery: 0.
LAG_SQL = """
    SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0
                WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 1e9) END
"""

_health_lock = threading.Lock()
_health: dict[str, tuple[float, bool]] = {}  # alias -> (checked at, usable)


def replica_aliases() -> list[str]:
    return list(getattr(settings, "DATABASE_REPLICAS", []))


def replica_lag_s(alias: str) -> float:
    """The replica's replay lag in seconds (raises ``DatabaseError`` when it does not answer)."""
    with connections[alias].cursor() as cursor:
        cursor.execute(LAG_SQL)
        return float(cursor.fetchone()[0])


def _check(alias: str) -> bool:
    try:
        lag = replica_lag_s(alias)
    except DatabaseError as exc:
        logger.warning("read replica %s is unreachable, reading from the primary: %s", alias, exc)
        _close_quietly(alias)
        return False
    if lag > settings.DATABASE_REPLICA_MAX_LAG_S:
        logger.warning("read replica %s lags %.1f s, reading from the primary", alias, lag)
        return False
    return True


def _close_quietly(alias: str) -> None:
    with contextlib.suppress(Exception):
        connections[alias].close()


def replica_usable(alias: str) -> bool:
    """Whether ``alias`` answered and lagged little at its last check (checked again when that is old)."""
    now = time.monotonic()
    with _health_lock:
        checked = _health.get(alias)
    if checked is not None and now - checked[0] < settings.DATABASE_REPLICA_CHECK_S:
        return checked[1]
    usable = _check(alias)
    with _health_lock:
        _health[alias] = (time.monotonic(), usable)
    return usable


def replica_mark_down(alias: str) -> None:
    """A query on ``alias`` failed: leave it alone until its next check is due."""
    _close_quietly(alias)
    with _health_lock:
        _health[alias] = (time.monotonic(), False)


def replica_for_reads() -> str | None:
    """A usable replica, chosen at random among the usable ones, or None (read from the primary)."""
    usable = [alias for alias in replica_aliases() if replica_usable(alias)]
    return random.choice(usable) if usable else None  # noqa: S311 - load spreading, not security


# --- read-your-writes -----------------------------------------------------------------


def pin_to_primary(user_id: int) -> None:
    """``user_id`` just wrote: their reads go to the primary for ``DATABASE_PIN_AFTER_WRITE_S``."""
    try:
        cache.set(f"db-pin:{user_id}", 1, timeout=settings.DATABASE_PIN_AFTER_WRITE_S)
    except Exception as exc:  # cache down: nobody reads from a replica without the pin check either
        logger.warning("could not pin user %s to the primary: %s", user_id, exc)


def pinned_to_primary(user_id: int) -> bool:
    try:
        return bool(cache.get(f"db-pin:{user_id}"))
    except Exception:  # cannot tell whether they just wrote: read from the primary
        return True


# --- middleware -------------------------------------------------------------------------


class ReplicaReadsMiddleware:
    """Runs the views of ``REPLICA_VIEWS`` reading from a replica, and pins writers to the primary.

    Last in ``MIDDLEWARE``: its ``process_view`` calls the view itself, after every other
    middleware's ``process_view`` (login wall, CSRF) has passed.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if replica_aliases() and request.method not in _READ_METHODS and response.status_code < 500:
            match = getattr(request, "resolver_match", None)
            user = getattr(request, "user", None)
            exempt = REPLICA_VIEWS | UNPINNED_WRITES
            if (match is None or match.view_name not in exempt) and user is not None and user.is_authenticated:
                pin_to_primary(user.pk)
        return response

    def process_view(
        self, request: HttpRequest, view_func: Callable[..., HttpResponse], view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        view = request.resolver_match.view_name if request.resolver_match else None
        reads_only = request.method in _READ_METHODS or view == "ask"  # Ask's POST only reads content
        if not replica_aliases() or view not in REPLICA_VIEWS or not reads_only:
            return None
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and pinned_to_primary(user.pk):
            return None
        alias = replica_for_reads()
        if alias is None:
            return None
        try:
            with reading_from(alias):
                response = view_func(request, *view_args, **view_kwargs)
                render = getattr(response, "render", None)
                if callable(render) and not getattr(response, "is_rendered", True):
                    response = render()  # a TemplateResponse reads while it renders
        except DatabaseError as exc:
            # The replica went away (or failed) under this request: Django runs the view again,
            # reading from the primary. Read views are safe to repeat.
            logger.warning("read replica %s failed during %s, retrying on the primary: %s", alias, request.path, exc)
            replica_mark_down(alias)
            return None
        return response
