"""Load: gunicorn on loopback, N concurrent logged-in users searching (locust, headless).

    python -m bench.load                       # 20 users, spawn rate 5, 60 s
    python -m bench.load --users 10 --run-time 20s --data-dir var/bench
    python -m bench.load --fresh               # throw-away instance even if HANDBOOK_DATA_DIR is set

Steps: a data dir (a throw-away one under /tmp unless ``--data-dir`` or
``HANDBOOK_DATA_DIR`` names one, e.g. the bench instance) → ``manage.py migrate``,
``seed_demo``, ``reindex --all --inline`` → one account per simulated user
(group "staff") → gunicorn on 127.0.0.1:<free port> → locust headless with
``--csv`` (bounded in users and time) → a table of requests, failures, p50, p95
and requests/s per endpoint. Exits non-zero on any failure. Nothing listens
beyond loopback; nothing is downloaded.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.common import stop_process_groups

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PYTHON = sys.executable
LOCUSTFILE = ROOT / "bench" / "locustfile.py"
USER_PREFIX = "load"
PASSWORD = "load-bench-password"  # noqa: S105 - a bench account on a loopback-only instance


@dataclass
class Row:
    name: str
    requests: int
    failures: int
    p50_ms: float
    p95_ms: float
    rps: float


@dataclass
class LoadResult:
    users: int
    spawn_rate: float
    run_time: str
    workers: int
    rows: list[Row] = field(default_factory=list)
    total: Row | None = None
    search: dict[str, Any] = field(default_factory=dict)  # search requests only: requests, failures, p50, p95
    failures_detail: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return (
            self.total is not None
            and self.total.requests > 0
            and self.total.failures == 0
            and self.search.get("requests", 0) > 0
            and not self.failures_detail
        )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("DATABASE_URL", "REDIS_URL", "LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY", "EMBEDDINGS_BASE_URL"):
        env.pop(name, None)  # the embedded instance of this data dir, extractive answers
    env.update(
        HANDBOOK_DATA_DIR=str(data_dir),
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="false",
        PYTHONUNBUFFERED="1",
        LOAD_USER_PREFIX=USER_PREFIX,
        LOAD_PASSWORD=PASSWORD,
    )
    # Settings only read the environment: the embedded services of this data dir, started if need be.
    exports = subprocess.run(
        [PYTHON, "-m", "core.embedded", "env"], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    for line in exports.splitlines():
        name, _, value = line.removeprefix("export ").partition("=")
        env[name] = shlex.split(value)[0]
    return env


def _manage(env: dict[str, str], *args: str) -> None:
    print(f"$ manage.py {' '.join(args)}", flush=True)
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True)


_CREATE_USERS = """
from django.contrib.auth.models import Group, User
staff = Group.objects.get_or_create(name="staff")[0]
for n in range(1, {users} + 1):
    user, _ = User.objects.get_or_create(username="{prefix}%02d" % n)
    user.set_password("{password}")
    user.save()
    user.groups.add(staff)
"""


def prepare(env: dict[str, str], users: int) -> None:
    """Schema, demo handbook, index, and one account per simulated user (idempotent)."""
    _manage(env, "migrate", "--noinput", "-v", "0")
    _manage(env, "seed_demo")
    _manage(env, "reindex", "--all", "--inline")
    _manage(env, "shell", "-c", _CREATE_USERS.format(users=users, prefix=USER_PREFIX, password=PASSWORD))


def _wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:  # noqa: S310 - loopback
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"gunicorn did not answer {url}/healthz within {timeout:.0f} s")


def _warm_up(url: str, workers: int) -> None:
    """Concurrent searches as a logged-in user, so every worker has loaded the embedding model
    (lazily, on its first query) before the measured run. The warm-up queries are not the
    measured ones: their embeddings are not cached for the run."""
    import http.cookiejar
    from concurrent.futures import ThreadPoolExecutor
    from urllib.parse import urlencode

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{url}/accounts/login/", timeout=30)
    token = next((c.value for c in jar if c.name == "csrftoken"), "")
    form = {"username": f"{USER_PREFIX}01", "password": PASSWORD, "csrfmiddlewaretoken": token}
    opener.open(f"{url}/accounts/login/", data=urlencode(form).encode(), timeout=30)

    def search(n: int) -> None:
        try:
            opener.open(f"{url}/search/?" + urlencode({"q": f"warm up {n} annual leave"}), timeout=120).read()
        except OSError:
            pass

    with ThreadPoolExecutor(max_workers=workers * 2) as pool:
        list(pool.map(search, range(workers * 6)))


def _read_stats(prefix: Path) -> tuple[list[Row], Row | None]:
    rows: list[Row] = []
    total: Row | None = None
    with open(f"{prefix}_stats.csv", newline="") as handle:
        for record in csv.DictReader(handle):
            row = Row(
                name=(record["Type"] + " " + record["Name"]).strip() if record["Name"] != "Aggregated" else "Total",
                requests=int(record["Request Count"]),
                failures=int(record["Failure Count"]),
                p50_ms=float(record["50%"] or 0),
                p95_ms=float(record["95%"] or 0),
                rps=float(record["Requests/s"] or 0),
            )
            if record["Name"] == "Aggregated":
                total = row
            else:
                rows.append(row)
    return rows, total


def _read_failures(prefix: Path) -> list[str]:
    path = Path(f"{prefix}_failures.csv")
    if not path.exists():
        return []
    with open(path, newline="") as handle:
        return [f"{r['Method']} {r['Name']}: {r['Error']} ×{r['Occurrences']}" for r in csv.DictReader(handle)]


def run_load(
    *,
    users: int = 20,
    spawn_rate: float = 5,
    run_time: str = "60s",
    data_dir: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    csv_dir: str | os.PathLike[str] | None = None,
    fresh: bool = False,
) -> LoadResult:
    """Run the whole load test and return its figures (the caller decides what fails).

    ``fresh``: a throw-away instance even if ``HANDBOOK_DATA_DIR`` is set (its services are
    stopped and its directory removed at the end).
    """
    started = time.monotonic()
    throwaway = fresh or (data_dir is None and not os.environ.get("HANDBOOK_DATA_DIR"))
    directory = (
        Path(tempfile.mkdtemp(prefix="handbook-load-"))
        if throwaway
        else Path(data_dir or os.environ["HANDBOOK_DATA_DIR"])
    )
    directory = directory.resolve()
    workers = workers or min(8, 2 * (os.cpu_count() or 1) + 1)
    env = _env(directory)
    out = Path(csv_dir) if csv_dir else RESULTS
    out.mkdir(parents=True, exist_ok=True)
    prefix = out / "load"
    result = LoadResult(users=users, spawn_rate=spawn_rate, run_time=run_time, workers=workers)
    gunicorn: subprocess.Popen[bytes] | None = None
    log_path = out / "load-gunicorn.log"
    try:
        print(f"data dir: {directory}{' (throw-away)' if throwaway else ''}", flush=True)
        prepare(env, users)
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        with open(log_path, "wb") as log:
            # No --preload: the embedding model must load in each worker, never in a parent that forks.
            gunicorn = subprocess.Popen(
                [
                    PYTHON,
                    "-m",
                    "gunicorn",
                    "config.wsgi:application",
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    str(workers),
                    "--timeout",
                    "120",
                    "--access-logfile",
                    "-",
                ],  # fmt: skip
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _wait_healthy(url, gunicorn)
        _warm_up(url, workers)
        print(f"gunicorn: {url} ({workers} workers); locust: {users} users, spawn rate {spawn_rate}, {run_time}")
        summary_path = Path(f"{prefix}_search.json")
        summary_path.unlink(missing_ok=True)
        env["LOAD_SEARCH_SUMMARY"] = str(summary_path)
        locust = subprocess.run(
            [
                PYTHON,
                "-m",
                "locust",
                "-f",
                str(LOCUSTFILE),
                "--headless",
                "--host",
                url,
                "--users",
                str(users),
                "--spawn-rate",
                str(spawn_rate),
                "--run-time",
                run_time,
                "--stop-timeout",
                "10",
                "--csv",
                str(prefix),
                "--only-summary",
                "--loglevel",
                "WARNING",
            ],  # fmt: skip
            cwd=ROOT,
            env=env,
            check=False,
            timeout=_seconds(run_time) + 120,
        )
        result.rows, result.total = _read_stats(prefix)
        result.failures_detail = _read_failures(prefix)
        if summary_path.exists():
            result.search = json.loads(summary_path.read_text())
        if locust.returncode not in (0, 1):  # 1: locust saw failures, reported from the CSV
            result.failures_detail.append(f"locust exited with {locust.returncode}")
    finally:
        if gunicorn is not None:
            stop_process_groups(gunicorn)
        if throwaway:
            subprocess.run([PYTHON, "-m", "core.embedded", "stop"], cwd=ROOT, env=env, check=False)
            shutil.rmtree(directory, ignore_errors=True)
    result.seconds = round(time.monotonic() - started, 1)
    (out / "load.json").write_text(json.dumps(asdict(result), indent=2))
    return result


def _seconds(run_time: str) -> int:
    units = {"s": 1, "m": 60, "h": 3600}
    text = run_time.strip().lower()
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


def table(result: LoadResult) -> str:
    lines = [
        f"{'endpoint':32} {'requests':>9} {'failures':>9} {'p50 ms':>8} {'p95 ms':>8} {'req/s':>7}",
        "-" * 78,
    ]
    for row in [*result.rows, *([result.total] if result.total else [])]:
        counts = f"{row.requests:>9} {row.failures:>9}"
        lines.append(f"{row.name[:32]:32} {counts} {row.p50_ms:>8.0f} {row.p95_ms:>8.0f} {row.rps:>7.1f}")
    if result.search:
        s = result.search
        lines.append(
            f"{'search (page + htmx)':32} {s['requests']:>9} {s['failures']:>9} {s['p50_ms']:>8.0f} {s['p95_ms']:>8.0f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--spawn-rate", type=float, default=5)
    parser.add_argument("--run-time", default="60s", help="locust duration, e.g. 60s or 2m")
    parser.add_argument("--data-dir", help="instance to use (default: HANDBOOK_DATA_DIR, else a throw-away one)")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: 2 × CPUs + 1, at most 8)")
    parser.add_argument("--fresh", action="store_true", help="a throw-away instance even if HANDBOOK_DATA_DIR is set")
    args = parser.parse_args(argv)
    result = run_load(
        users=args.users,
        spawn_rate=args.spawn_rate,
        run_time=args.run_time,
        data_dir=args.data_dir,
        workers=args.workers,
        fresh=args.fresh,
    )
    print()
    print(f"Load: {result.users} users on search, {result.run_time}, gunicorn {result.workers} workers")
    print(table(result))
    for line in result.failures_detail:
        print("FAILURE:", line)
    if not result.ok:
        print("load test FAILED", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
