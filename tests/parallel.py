"""Parallel runs (pytest-xdist, ``make test``): one Redis and one data directory per worker process.

The workers share the embedded Postgres: pytest-django gives each its own test database
(``test_handbook_gw0``, ``test_handbook_gw1``…). One Redis for all would be shared state: tests
empty the cache (FLUSHDB) and count rate limits in it, the ``worker`` fixture purges and inspects
Celery queues, and tests/security/test_faults.py kills Redis and restarts it. So before the
workers start, the controller starts one embedded Redis per worker (core/embedded.py), each in a
directory of its own, and hands both to the worker through its environment:

- ``HANDBOOK_DATA_DIR``: core.embedded finds (and restarts) that worker's Redis there, and
  attachments written outside a test's ``tmp_path`` land there too;
- ``REDIS_URL_FILE``: the settings read the URL from it, and it wins over ``REDIS_URL``
  (config/env.py). A file, because execnet's worker specification cannot carry a ``//``.

Two more are the same for every worker:

- ``TEST_EMBEDDINGS_DIR``: the vectors the local model has computed, shared by the workers
  (tests/embedding_memo.py), so that a handbook two workers build is embedded once;
- ``OMP_NUM_THREADS`` (unless set): the cores shared out among the workers' models.

The controller stops them when the run ends; scripts/test.sh stops any left behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_WORKER_DIRS = pytest.StashKey[Path]()


@contextlib.contextmanager
def _data_dir(path: Path) -> Iterator[None]:
    """core.embedded reads ``HANDBOOK_DATA_DIR`` at each call."""
    before = os.environ.get("HANDBOOK_DATA_DIR")
    os.environ["HANDBOOK_DATA_DIR"] = str(path)
    try:
        yield
    finally:
        if before is None:
            del os.environ["HANDBOOK_DATA_DIR"]
        else:
            os.environ["HANDBOOK_DATA_DIR"] = before


def give_each_worker_a_redis(config: pytest.Config, specs: list[Any]) -> None:
    """Start a Redis per worker and rewrite each worker's specification to point it there."""
    import execnet

    from core import embedded

    # Under the run's data directory (scripts/test.sh: a throw-away one), fresh for each run: a
    # Redis keeps its data across restarts (AOF), and no queue of an earlier run may come back.
    base = Path(tempfile.mkdtemp(prefix="workers-", dir=embedded.data_dir()))
    config.stash[_WORKER_DIRS] = base
    shared = [f"env:TEST_EMBEDDINGS_DIR={base / 'embeddings'}"]  # tests/embedding_memo.py
    (base / "embeddings").mkdir()
    if "OMP_NUM_THREADS" not in os.environ:
        # The model's engine runs OpenMP on every core: one such team per worker would be more
        # threads than cores, and OpenMP threads spin while they wait for each other.
        cores = len(os.sched_getaffinity(0))
        shared.append(f"env:OMP_NUM_THREADS={max(1, cores // len(specs))}")
    for number, spec in enumerate(specs):
        directory = base / "workers" / (spec.id or str(number))  # gw0, gw1…: the worker's name
        directory.mkdir(parents=True)
        with _data_dir(directory):
            url = embedded.redis_url()
        (directory / "redis-url").write_text(url + "\n")
        # Its id is kept (the workers' names, and pytest-django's database suffixes, stay gw0, gw1…).
        keep = f"//id={spec.id}" if spec.id else ""
        env = [f"env:HANDBOOK_DATA_DIR={directory}", f"env:REDIS_URL_FILE={directory / 'redis-url'}", *shared]
        specs[number] = execnet.XSpec("//".join([f"{spec}{keep}", *env]))


def stop_the_workers_redis(config: pytest.Config) -> None:
    """After the workers are gone (pytest_unconfigure of the controller)."""
    from core import embedded

    base = config.stash.get(_WORKER_DIRS, None)
    if base is None:
        return
    pids = []
    for directory in sorted((base / "workers").iterdir()):
        with contextlib.suppress(OSError, ValueError):
            pids.append(int((directory / "redis" / "redis.pid").read_text()))
        with _data_dir(directory):
            embedded.redis_stop()
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)  # a Redis writes its AOF as it stops: gone before its directory is
    shutil.rmtree(base, ignore_errors=True)
