"""The server side of bench/capacity.py: settings read from the product, the instance, gunicorn, /proc CPU.

Nothing here copies a number the product owns: the gunicorn workers/threads/timeout are parsed
from scripts/run.sh (what ``make run`` starts) and the search box's debounce from the
``hx-trigger`` of its input (and of the element sending the full list on a longer pause) in
templates/base.html.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.common import ROOT, stop_process_groups
from bench.load import _env, _free_port, _wait_healthy

PYTHON = sys.executable
USER_PREFIX = "capacity"
PASSWORD = "capacity-bench-password"  # noqa: S105 - bench accounts on a loopback-only instance
RUN_SH = ROOT / "scripts" / "run.sh"
BASE_HTML = ROOT / "templates" / "base.html"


@dataclass(frozen=True)
class GunicornSettings:
    workers: int
    threads: int
    timeout: int

    def args(self) -> list[str]:
        return ["--workers", str(self.workers), "--threads", str(self.threads), "--timeout", str(self.timeout)]


def run_sh_settings(path: Path = RUN_SH) -> GunicornSettings:
    """The gunicorn options of the ``gunicorn`` command line in scripts/run.sh."""
    text = path.read_text().replace("\\\n", " ")
    line = next((ln for ln in text.splitlines() if re.search(r"\bgunicorn\b", ln) and "--bind" in ln), None)
    if line is None:
        raise SystemExit(f"{path}: no gunicorn command line found")

    def option(name: str, default: int | None = None) -> int:
        match = re.search(rf"--{name}[ =]+\"?(\d+)", line)
        if match:
            return int(match.group(1))
        if default is None:
            raise SystemExit(f"{path}: gunicorn --{name} not found")
        return default

    return GunicornSettings(workers=option("workers"), threads=option("threads", 1), timeout=option("timeout", 30))


@dataclass(frozen=True)
class SearchBox:
    debounce_ms: int  # the box's own (light) request: after this pause in typing
    trigger_id: str  # HX-Trigger of the box's own requests (its id)
    trigger_name: str  # HX-Trigger-Name (its name): the query parameter
    form_id: str  # HX-Trigger of a submitted search (the form)
    typing_path: str  # where the box's own requests go (its hx-get)
    pause_id: str  # HX-Trigger of the full list a longer pause sends
    pause_ms: int  # after this pause in typing


def _delay_ms(trigger: str, what: str) -> int:
    delay = re.search(r"delay:(\d+)(ms|s)\b", trigger)
    if not delay:
        raise SystemExit(f"{BASE_HTML}: no debounce (delay:) in the {what}'s hx-trigger={trigger!r}")
    return int(delay.group(1)) * (1000 if delay.group(2) == "s" else 1)


def url_path(name: str, urls: Path = ROOT / "search" / "urls.py") -> str:
    """The path of a named URL of the search app (``{% url 'name' %}`` in a template)."""
    match = re.search(rf'path\("([^"]*)",[^)]*\bname="{re.escape(name)}"', urls.read_text())
    if not match:
        raise SystemExit(f"{urls}: no URL named {name!r}")
    return "/" + match.group(1)


def search_box(path: Path = BASE_HTML) -> SearchBox:
    """The search box's htmx attributes: what the browser sends while typing, on a longer pause, on Enter."""
    html = path.read_text()
    form = re.search(r'<form\b[^>]*\bid="([^"]+)"[^>]*\brole="search"', html)
    box = re.search(r"<input\b[^>]*?\bhx-trigger=\"([^\"]+)\"[^>]*>", html, re.S)
    if not form or not box:
        raise SystemExit(f"{path}: search form or box with hx-trigger not found")
    tag = box.group(0)
    ident = re.search(r'\bid="([^"]+)"', tag)
    name = re.search(r'\bname="([^"]+)"', tag)
    box_id = ident.group(1) if ident else ""
    url = re.search(r"\bhx-get=\"\{% url '([^']+)' %\}\"", tag)
    pause = re.search(rf'<\w+\b[^>]*\bid="([^"]+)"[^>]*\bhx-trigger="([^"]*\bfrom:#{re.escape(box_id)}\b[^"]*)"', html)
    if not url or not pause:
        raise SystemExit(f"{path}: the box's hx-get URL or the element sending the full list on a pause not found")
    return SearchBox(
        debounce_ms=_delay_ms(box.group(1), "box"),
        trigger_id=box_id,
        trigger_name=name.group(1) if name else "q",
        form_id=form.group(1),
        typing_path=url_path(url.group(1)),
        pause_id=pause.group(1),
        pause_ms=_delay_ms(pause.group(2), "pause element"),
    )


def demo_queries() -> list[str]:
    """bench/locustfile.py's QUERIES, read without importing locust (it patches the standard library)."""
    tree = ast.parse((ROOT / "bench" / "locustfile.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "QUERIES" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise SystemExit("bench/locustfile.py: QUERIES not found")


_CREATE_USERS = """
from django.contrib.auth.models import Group, User
staff = Group.objects.get_or_create(name="staff")[0]
for n in range(1, {users} + 1):
    user, _ = User.objects.get_or_create(username="{prefix}%02d" % n)
    user.set_password("{password}")
    user.save()
    user.groups.add(staff)
"""


def _manage(env: dict[str, str], *args: str) -> None:
    print(f"$ manage.py {' '.join(a if len(a) < 60 else a[:57] + '...' for a in args)}", flush=True)
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


@contextmanager
def instance(*, demo: bool, users: int) -> Iterator[tuple[Path, dict[str, str]]]:
    """The data dir and environment to serve: the bench instance with the corpora loaded (as the
    other benches, ``python -m bench.common load``), or with ``demo`` a throw-away demo handbook.
    Either way: one account per simulated person, group "staff" (reads every corpus)."""
    if demo:
        directory = Path(tempfile.mkdtemp(prefix="handbook-capacity-")).resolve()
    else:
        directory = Path(os.environ.get("HANDBOOK_DATA_DIR") or ROOT / "var" / "bench").resolve()
    # The bench measures what the server can serve, not the per-person limits: a simulated person
    # searches and types far faster than the limits allow one (they would answer 429 and 204).
    env = dict(_env(directory), SEARCH_RATE_LIMIT="1000000/m", TYPING_RATE_LIMIT="1000000/m")
    try:
        print(f"data dir: {directory}{' (throw-away demo)' if demo else ''}", flush=True)
        if demo:
            _manage(env, "migrate", "--noinput", "-v", "0")
            _manage(env, "seed_demo")
            _manage(env, "reindex", "--all", "--inline")
        else:
            print("$ python -m bench.common load", flush=True)
            subprocess.run([PYTHON, "-m", "bench.common", "load"], cwd=ROOT, env=env, check=True)
        _manage(env, "shell", "-c", _CREATE_USERS.format(users=users, prefix=USER_PREFIX, password=PASSWORD))
        yield directory, env
    finally:
        if demo:
            subprocess.run([PYTHON, "-m", "core.embedded", "stop"], cwd=ROOT, env=env, check=False)
            shutil.rmtree(directory, ignore_errors=True)


@contextmanager
def gunicorn(env: dict[str, str], settings: GunicornSettings, log_path: Path) -> Iterator[tuple[str, int]]:
    """gunicorn as ``make run`` starts it (same workers, threads, timeout, access log), on a free
    loopback port. DEBUG is false, as in production (``make run`` defaults it to true for development)."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    command = [PYTHON, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
               *settings.args(), "--access-logfile", "-"]  # fmt: skip
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=dict(env, DEBUG="false"), stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        _wait_healthy(url, process)
        yield url, process.pid
    finally:
        stop_process_groups(process)


# --- CPU from /proc ---------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _cpu_ticks(pid: int) -> int:
    """utime + stime of the process, plus cutime + cstime (children it has reaped: exited backends, workers)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return sum(int(fields[i]) for i in (11, 12, 13, 14))  # fields 14-17 of proc(5), after pid and comm


def tree_cpu_seconds(*roots: int) -> float:
    """CPU seconds used so far by each root and every live descendant (and the ones they reaped)."""
    tree = _children()
    total, stack, seen = 0, [r for r in roots if r], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _cpu_ticks(pid)
        stack.extend(tree.get(pid, []))
    return total / _TICK


def postmaster_pid(data_dir: Path) -> int:
    try:
        return int((data_dir / "pg" / "postmaster.pid").read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return 0
