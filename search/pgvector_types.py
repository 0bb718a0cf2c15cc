"""pgvector's psycopg types on every database connection.

Vectors go to SQL as ``pgvector.Vector`` (a numpy array too) and come back as
``Vector``: no hand-written text form. Registered when a connection opens, and
once more after ``migrate`` for connections opened before the extension existed
(a fresh database, a test run).
"""

from __future__ import annotations

from typing import Any

import psycopg
from django.db import connections
from pgvector.psycopg import register_vector


def register(connection: Any) -> None:
    """Register the vector types on one Django connection (no-op until the extension exists)."""
    raw = connection.connection
    if connection.vendor != "postgresql" or raw is None:
        return
    try:
        register_vector(raw)
    except psycopg.ProgrammingError:
        pass  # CREATE EXTENSION vector has not run yet on this database: after_migrate registers it


def on_connection_created(sender: Any, connection: Any, **kwargs: Any) -> None:
    register(connection)


def after_migrate(**kwargs: Any) -> None:
    for connection in connections.all(initialized_only=True):
        register(connection)
