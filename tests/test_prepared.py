"""core/prepared.py: statements planned once per connection, still seen and wrapped as Django's are."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection
from django.test.utils import CaptureQueriesContext

from core.prepared import prepared_cursor

pytestmark = pytest.mark.django_db

SQL = "SELECT n, %s::text FROM generate_series(1, %s) AS n WHERE n %% 2 = 1 ORDER BY n"


def _prepared_texts() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def test_a_statement_is_prepared_once_and_answers_as_through_django():  # type: ignore[no-untyped-def]
    with connection.cursor() as cursor:
        cursor.execute(SQL, ["x", 7])
        expected = cursor.fetchall()
    before = len(_prepared_texts())
    for size in (7, 7, 9):  # new values: the same prepared statement
        with prepared_cursor(connection) as cursor:
            cursor.execute(SQL, ["x", size])
            rows = cursor.fetchall()
        assert rows == (expected if size == 7 else [*expected, (9, "x")])
    texts = _prepared_texts()
    assert len(texts) == before + 1
    assert any("generate_series(1, $2)" in text for text in texts)


def test_statements_are_seen_by_execute_wrappers_and_errors_are_djangos():  # type: ignore[no-untyped-def]
    seen: list[str] = []

    def spy(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(spy), prepared_cursor(connection) as cursor:
        cursor.execute(SQL, ["y", 3])
        assert cursor.fetchone() == (1, "y")
    assert seen == [SQL]
    # A failing statement raises Django's error (what callers and the replica fallback catch).
    with CaptureQueriesContext(connection) as captured, prepared_cursor(connection) as cursor:
        cursor.execute(SQL, ["z", 1])
    assert [query["sql"] for query in captured.captured_queries] == [SQL]  # as written, for tests and DEBUG
    with pytest.raises(DatabaseError), prepared_cursor(connection) as cursor:
        cursor.execute("SELECT no_such_column FROM handbook_page WHERE id = %s", [1])
