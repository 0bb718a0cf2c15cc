"""CPU per request through the WSGI app, in one process: the A/B for hand-rolled request plumbing.

    python -m bench.plain_django --label before [--data-dir DIR] [--rounds N] [--kinds typing,...] [--out FILE]

Serves a demo handbook (``seed_demo``, indexed once in ``--data-dir``, reused by later runs) to
Django's test ``Client`` in this process, signed in as a member of "staff": no gunicorn, no
network, so what is measured is the request path itself. Three kinds of request, each over
bench/locustfile.py's queries: a keystroke (the box's light ``/search/typing/`` list), a submitted
search (the form's htmx ``/search/``) and the home page. After one warm-up pass (query embeddings
cached, connections open) each kind runs ``--rounds`` passes; reported per request: the CPU of
this process (``time.process_time``: Django, the app, the database client) and of the Postgres
server (postmaster and backends, from /proc).

For an A/B run it once per tree on the same data dir, the older tree from a ``git worktree``
(``--out`` pointing at this tree's results), alternating: each run adds its figures under its
label to bench/results/plain_django.json, whose table sets each label's median against "before".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import RESULTS, md_table

DEFAULT_DATA_DIR = Path(tempfile.gettempdir()) / "handbook-plain-django-bench"
KINDS = ("typing", "submitted", "home")


def _prepare(data_dir: Path) -> None:
    """The environment of the embedded services of ``data_dir``; the demo handbook, made once."""
    from bench.capacity_server import _CREATE_USERS, PASSWORD, USER_PREFIX, _manage
    from bench.load import _env

    fresh = not (data_dir / "seeded").exists()
    data_dir.mkdir(parents=True, exist_ok=True)
    # Per-person limits would answer 429 long before the passes end.
    env = dict(_env(data_dir), SEARCH_RATE_LIMIT="1000000/m", TYPING_RATE_LIMIT="1000000/m")
    if fresh:
        _manage(env, "migrate", "--noinput", "-v", "0")
        _manage(env, "seed_demo")
        _manage(env, "reindex", "--all", "--inline")
        _manage(env, "shell", "-c", _CREATE_USERS.format(users=1, prefix=USER_PREFIX, password=PASSWORD))
        (data_dir / "seeded").write_text("")
    os.environ.update(env)


def _requests(client: Any, queries: list[str]) -> dict[str, list[tuple[str, dict[str, Any], dict[str, str]]]]:
    from bench.capacity_server import search_box

    box = search_box()
    typed = [q[: max(2, len(q) * 2 // 3)] for q in queries]
    return {
        "typing": [
            (
                box.typing_path,
                {box.trigger_name: q, "seq": str(n)},
                {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": box.trigger_id, "HTTP_HX_TARGET": "typing-list"},
            )
            for n, q in enumerate(typed)
        ],
        "submitted": [
            (
                "/search/",
                {box.trigger_name: q},
                {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": box.form_id, "HTTP_HX_TARGET": "results"},
            )
            for q in queries
        ],
        "home": [("/", {}, {}) for _ in queries],
    }


def measure(rounds: int, kinds: tuple[str, ...] = KINDS) -> dict[str, Any]:
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.test import Client

    from bench.capacity_server import USER_PREFIX, demo_queries, postmaster_pid, tree_cpu_seconds

    client = Client()
    client.force_login(User.objects.get(username=f"{USER_PREFIX}01"))
    queries = demo_queries()
    database = postmaster_pid(Path(os.environ["HANDBOOK_DATA_DIR"]))
    results: dict[str, Any] = {}
    sequence = 0
    for kind, calls in _requests(client, queries).items():
        if kind not in kinds:
            continue
        for path, params, headers in calls:  # warm-up
            sequence += 1
            params = {**params, "seq": str(sequence)} if "seq" in params else params
            response = client.get(path, params, **headers)
            if response.status_code != 200:
                raise SystemExit(f"{kind} {path} {params}: HTTP {response.status_code}")
        web, db, started = time.process_time(), tree_cpu_seconds(database), time.perf_counter()
        count = 0
        for _ in range(rounds):
            for path, params, headers in calls:
                sequence += 1
                params = {**params, "seq": str(sequence)} if "seq" in params else params
                client.get(path, params, **headers)
                count += 1
        web, db = time.process_time() - web, tree_cpu_seconds(database) - db
        results[kind] = {
            "requests": count,
            "web_cpu_ms": round(1000 * web / count, 3),
            "db_cpu_ms": round(1000 * db / count, 3),
            "cpu_ms": round(1000 * (web + db) / count, 3),
            "wall_ms": round(1000 * (time.perf_counter() - started) / count, 3),
        }
        print(f"{kind:>10}: {results[kind]}", flush=True)
    return results


def _median(runs: list[dict[str, Any]], kind: str, key: str) -> float | None:
    values = sorted(run["results"][kind][key] for run in runs if kind in run["results"])
    return values[len(values) // 2] if values else None


def _table(runs: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per label and kind: the median CPU per request of the label's runs, and its change from "before"."""
    rows = []
    for label, label_runs in runs.items():
        for kind in KINDS:
            row: dict[str, Any] = {"label": label, "request": kind, "runs": len(label_runs)}
            for key in ("cpu_ms", "web_cpu_ms", "db_cpu_ms"):
                row[key] = _median(label_runs, kind, key)
            base = _median(runs.get("before", []), kind, "cpu_ms")
            if base and row["cpu_ms"] is not None:
                row["change_pct_vs_before"] = round(100 * (row["cpu_ms"] - base) / base, 1)
            rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--label", required=True, help="before, after, or any other name")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--rounds", type=int, default=5, help="passes over the queries per kind")
    parser.add_argument("--out", type=Path, default=RESULTS / "plain_django.json")
    parser.add_argument("--note", default="", help="what this run's tree is (a commit)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="which requests, comma-separated")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path.cwd()))
    _prepare(args.data_dir.resolve())
    results = measure(args.rounds, tuple(args.kinds.split(",")))
    data: dict[str, Any] = json.loads(args.out.read_text()) if args.out.exists() else {}
    runs = data.setdefault("runs", {})
    runs.setdefault(args.label, []).append(
        {
            "note": args.note,
            "written_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "load_average": os.getloadavg(),
            "results": results,
        }
    )
    data["command"] = "python -m bench.plain_django --label LABEL --rounds 3 (see the module docstring)"
    data["table"] = _table(runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=2))
    columns = ["label", "request", "runs", "cpu_ms", "web_cpu_ms", "db_cpu_ms", "change_pct_vs_before"]
    print(md_table(columns, [[row.get(c) for c in columns] for row in data["table"]]))


if __name__ == "__main__":
    main()
