"""Statements that Postgres parses and plans once per connection (server-side prepared statements).

Django's cursors bind parameters on the client (psycopg's ``ClientCursor``): every statement
reaches Postgres as new text, which it parses and plans again. For the small statements a hot
path repeats with new values (search-as-you-type's prefix lists run on every keystroke), planning
is most of their cost (bench/plain_django.py measures a keystroke with and without). A cursor
from ``prepared_cursor`` binds on the server and prepares each statement text on first use;
psycopg keeps the names per connection (at most ``prepared_max``, least recently used dropped)
and Postgres chooses, per statement, between a plan for each call's values and one generic plan
(``plan_cache_mode``).

psycopg prepares nothing on a connection whose ``prepare_threshold`` is ``None``, Django's
default: ``prepared_cursor`` sets it on the connections it uses. Django's own cursors bind on the
client whatever it is, and are never prepared.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper

# Any number will do: ``_PreparingCursor`` asks for every statement to be prepared at once.
_PREPARE_THRESHOLD = 5


class _PreparingCursor(psycopg.Cursor[Any]):
    """psycopg's server-binding cursor, preparing every statement it runs from the first run."""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: bool | None = None
    ) -> Any:
        return super().execute(query, params, prepare=True if prepare is None else prepare, binary=binary)


class _PreparedDebugWrapper(CursorDebugWrapper):
    def execute(self, sql: Any, params: Any = None) -> Any:
        # Logged as written, placeholders and all: a prepared statement has no client-bound text,
        # which is what Django's record would read (and find missing).
        with self.debug_sql(sql, params):
            return CursorWrapper.execute(self, sql, params)


@contextmanager
def prepared_cursor(connection: BaseDatabaseWrapper) -> Iterator[CursorWrapper]:
    """A cursor on ``connection`` (in its transaction, if any) whose statements are prepared.

    Wrapped as Django wraps its own: errors come out as Django's database errors (callers and the
    replica fallback in core/db_router.py catch those), and ``execute_wrapper`` hooks and query
    logging (tests counting statements, the debug toolbar) see every statement.
    """
    connection.ensure_connection()
    connection.validate_thread_sharing()
    if connection.connection.prepare_threshold is None:
        connection.connection.prepare_threshold = _PREPARE_THRESHOLD
    with connection.wrap_database_errors:
        raw = _PreparingCursor(connection.connection)
    wrapper = _PreparedDebugWrapper if connection.queries_logged else CursorWrapper
    with wrapper(raw, connection) as cursor:
        yield cursor


class ModelRows:
    """Model instances from a prepared statement's rows, as the ORM would build them.

    For hot reads whose ORM query costs more to build than to run (every request's user):
    ``columns`` goes in the statement's select list, ``build`` makes each row a model instance, its
    values converted as the ORM converts them (JSON text decoded, and so on).
    """

    def __init__(self, model: Any, alias: str) -> None:
        self.model = model
        fields = list(model._meta.concrete_fields)
        self.attnames = [f.attname for f in fields]
        self.columns = ", ".join(f'{alias}."{f.column}"' for f in fields)
        self._converters = [(i, f) for i, f in enumerate(fields) if hasattr(f, "from_db_value")]

    def build(self, connection: BaseDatabaseWrapper, rows: list[tuple[Any, ...]]) -> list[Any]:
        built = []
        for row in rows:
            values = list(row)
            for i, field in self._converters:
                values[i] = field.from_db_value(values[i], None, connection)
            built.append(self.model.from_db(connection.alias, self.attnames, values))
        return built
