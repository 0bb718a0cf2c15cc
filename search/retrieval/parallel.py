"""Run a search's retrieval lists side by side, each on its own database connection.

The keyword list, the vector list, each language partition of the language-centred list and the
translated keyword list are independent statements over the same visible set: run one after
another they add up, run together the search takes about as long as the slowest (Postgres does
the work; Python mostly waits). Under concurrent searches that is what frees a web worker for the
next request (``python -m bench.load``). Each pool thread keeps its own Django connection between
searches (opening one costs as much as a list).

Not used inside a transaction (``connection.in_atomic_block``): another connection would not see
its uncommitted rows (the impact preview's draft), and a caller that opened a transaction asked
for one snapshot. Tests run in transactions, so the suite exercises both paths
(tests/search/test_parallel_legs.py). Ask also uses ``enabled()`` to prepare its extractive
answer in a thread while an LLM is asked.

A list runs in the caller's context (``contextvars``): it reads from the database the caller
reads from (``core.db_router.read_alias``), a replica included, on its own connection.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

from django.conf import settings
from django.db import close_old_connections, connections

from config.numbers import SEARCH_LIST_BARRIER_TIMEOUT_S as BARRIER_TIMEOUT_S
from config.numbers import SEARCH_LIST_WORKERS as WORKERS
from core.db_router import read_connection

T = TypeVar("T")


_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_executor_pid: int | None = None


def _pool() -> ThreadPoolExecutor:
    global _executor, _executor_pid
    with _lock:
        # After a fork (gunicorn, Celery prefork) the parent's threads do not exist in the child.
        if _executor is None or _executor_pid != os.getpid():
            _executor = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="search-leg")
            _executor_pid = os.getpid()
        return _executor


def enabled() -> bool:
    return bool(getattr(settings, "SEARCH_PARALLEL_LEGS", True)) and not read_connection().in_atomic_block


def _in_worker(call: Callable[[], T]) -> T:
    # A connection the server dropped, that failed, or that outlived CONN_MAX_AGE is replaced.
    close_old_connections()
    return call()


def run_all(calls: list[Callable[[], Any]]) -> list[Any]:
    """Results of ``calls`` in order: the first in this thread, the rest in the pool when allowed."""
    if len(calls) < 2 or not enabled():
        return [call() for call in calls]
    pool = _pool()
    futures: list[Future[Any]] = [pool.submit(contextvars.copy_context().run, _in_worker, call) for call in calls[1:]]
    try:
        first = calls[0]()
    finally:
        wait(futures)  # never leave a leg running on its own, even when this one failed
    return [first, *(future.result() for future in futures)]  # a leg's error is raised here


def close_connections() -> None:
    """Close the pool threads' database connections (before a test database is dropped)."""
    with _lock:
        pool = _executor if _executor_pid == os.getpid() else None
    if pool is None:
        return
    # One task per worker: the barrier keeps a thread from taking two, so every thread closes its own.
    barrier = threading.Barrier(WORKERS)

    def close() -> None:
        barrier.wait(timeout=BARRIER_TIMEOUT_S)
        connections.close_all()

    for future in [pool.submit(close) for _ in range(WORKERS)]:
        future.result()
