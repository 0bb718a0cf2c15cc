"""Embedded Postgres (+pgvector) and Redis in a throw-away data directory.

Every start runs in its own process, as the web server, worker and commands do.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]


def _env(data_dir: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "DATABASE_URL", "REDIS_URL")}
    env["HANDBOOK_DATA_DIR"] = data_dir
    return env


def _embedded(data_dir: str, command: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "core.embedded", command],
        cwd=ROOT,
        env=_env(data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen[str]) -> list[str]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return out.split()


def start(data_dir: str) -> list[str]:
    return _finish(_embedded(data_dir, "start"))


def stop(data_dir: str) -> None:
    _finish(_embedded(data_dir, "stop"))


def servers_using(data_dir: str) -> tuple[int, int]:
    """(postmasters, redis servers) whose command line names this data directory or its Redis port."""
    port_file = Path(data_dir) / "redis" / "port"
    port = port_file.read_text().strip() if port_file.exists() else "-"
    postmasters = redises = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [a.decode(errors="replace") for a in argv if a]
        if not words:
            continue
        if words[0].endswith("/postgres") and f"{data_dir}/pg" in words:
            postmasters += 1
        if "redis-server" in words[0] and any(w.endswith(f":{port}") for w in words):
            redises += 1
    return postmasters, redises


@pytest.fixture(scope="module")
def data_dir() -> Iterator[str]:
    # Short path: the Postgres Unix socket lives inside it (108-byte limit).
    path = tempfile.mkdtemp(dir="/tmp", prefix="hbe")
    yield path
    try:
        stop(path)
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def concurrent_urls(data_dir) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """Two processes start the services at the same moment on an empty data directory."""
    processes = [_embedded(data_dir, "start") for _ in range(2)]
    return [_finish(p) for p in processes]


def test_concurrent_starts_agree_on_one_server(data_dir, concurrent_urls):  # type: ignore[no-untyped-def]
    first, second = concurrent_urls
    assert first == second
    pg_url, redis_url = first
    assert pg_url.startswith("postgresql://") and f"host={data_dir}/pg" in pg_url
    assert redis_url.startswith("redis://127.0.0.1:")
    assert servers_using(data_dir) == (1, 1)


def test_second_start_reuses_the_running_servers(data_dir, concurrent_urls):  # type: ignore[no-untyped-def]
    assert start(data_dir) == concurrent_urls[0]
    assert servers_using(data_dir) == (1, 1)


def test_postgres_has_pgvector(concurrent_urls):  # type: ignore[no-untyped-def]
    pg_url = concurrent_urls[0][0]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT current_database()").fetchone()[0] == "handbook"
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        distance = conn.execute("SELECT '[1,0,0]'::vector <=> '[0,1,0]'::vector").fetchone()[0]
    assert distance == pytest.approx(1.0)


def test_postgres_runs_with_the_configured_shared_buffers(concurrent_urls):  # type: ignore[no-untyped-def]
    # initdb writes 128MB; the first start applies ours (1GB) and restarts once.
    with psycopg.connect(concurrent_urls[0][0], autocommit=True) as conn:
        assert conn.execute("SHOW shared_buffers").fetchone()[0] == "1GB"


def test_a_bad_shared_buffers_value_is_a_clear_error(data_dir, concurrent_urls):  # type: ignore[no-untyped-def]
    env = {**_env(data_dir), "HANDBOOK_PG_SHARED_BUFFERS": "lots"}
    result = subprocess.run(
        [sys.executable, "-m", "core.embedded", "start"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "shared_buffers = 'lots' is not a valid size" in result.stderr
    assert start(data_dir) == concurrent_urls[0]  # the running server is untouched


def test_redis_answers_ping(concurrent_urls):  # type: ignore[no-untyped-def]
    client = redis.Redis.from_url(concurrent_urls[0][1], socket_timeout=5)
    try:
        assert client.ping() is True
        client.set("handbook-test", "1")
        assert client.get("handbook-test") == b"1"
    finally:
        client.close()


def test_stop_then_start_again(data_dir, concurrent_urls):  # type: ignore[no-untyped-def]
    # Its own data to find after the restart: under xdist the module's tests may run on several workers.
    with psycopg.connect(concurrent_urls[0][0], autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    stop(data_dir)
    assert servers_using(data_dir) == (0, 0)
    assert not (Path(data_dir) / "pg" / "postmaster.pid").exists()
    stop(data_dir)  # stopping what is stopped is fine

    pg_url, redis_url = start(data_dir)
    assert pg_url == concurrent_urls[0][0]  # the socket lives in the data directory
    with psycopg.connect(pg_url, autocommit=True) as conn:
        # Data survives a restart: the extension created before it is still there.
        assert conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() == (1,)
    client = redis.Redis.from_url(redis_url, socket_timeout=5)
    try:
        assert client.ping() is True
    finally:
        client.close()
    assert servers_using(data_dir) == (1, 1)


def test_unknown_command_is_a_usage_error(data_dir):  # type: ignore[no-untyped-def]
    process = _embedded(data_dir, "restart")
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "usage: python -m core.embedded [env|start|stop]" in err
