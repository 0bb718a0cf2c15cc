"""Capacity: how many searches one ``make run`` server answers, and what a room of people typing costs.

    python -m bench.capacity                 # bench instance (corpora of bench.common), full counts
    python -m bench.capacity --quick         # tiny counts on a throw-away demo handbook (~1 min + setup)
    python -m bench.capacity --quick --corpora   # tiny counts on the bench corpora

gunicorn runs with the workers/threads/timeout of scripts/run.sh (parsed, not copied), DEBUG
false, on 127.0.0.1 only. Every request loop is bounded in count and in seconds.

(a) Ladder: closed-loop submitted searches (what the browser sends on Enter: the form's htmx
    GET /search/?q=…) by signed-in users at 1, 2, 4, 8 … concurrent users, until throughput
    gains < 5 % over the best level so far; the knee is the last level that still gained.
(b) Typing mix (bench/capacity_typing.py): each person types a query a key at a time
    (150–250 ms a key, seeded), sending what the box in templates/base.html sends: the light
    list (``/search/typing/``) after its debounce, the full list after the pause element's
    longer delay, then Enter (a submitted search); then reads the results. Reported: keystroke
    requests served per second, p95 of typing, pause and submitted requests, CPU per request
    (gunicorn master + workers and the postmaster + backends, from /proc, before/after).
(c) Keystrokes alone: closed-loop light requests at the knee's concurrency: CPU per typing
    request beside a submitted search's (the knee's).

Not sent: the Ask panel's follow-up POST (the search response only), static files, the
Celery worker ``make run`` starts (searches do not use it). Query embeddings are cached
(Redis): a query repeated within the run skips the model.
Tables on stdout; figures in bench/results/capacity.json.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.capacity_client import Browser, Recorder, Sample, resent
from bench.capacity_server import (
    USER_PREFIX,
    demo_queries,
    gunicorn,
    instance,
    postmaster_pid,
    run_sh_settings,
    search_box,
    tree_cpu_seconds,
)
from bench.capacity_typing import keystroke_loop, typing_mix
from bench.common import EVAL_FILES, RESULTS, load_queries, md_table, section, write_results


def _cpu(roots: tuple[int, ...]) -> float:
    return tree_cpu_seconds(*roots)


# --- (a) the ladder -----------------------------------------------------------------------


def ladder_level(browsers: list[Browser], queries: list[str], *, max_requests: int, max_seconds: float,
                 roots: tuple[int, ...]) -> dict[str, Any]:  # fmt: skip
    recorder, counter = Recorder(), itertools.count()
    deadline = time.monotonic() + max_seconds

    def user(browser: Browser) -> None:
        while time.monotonic() < deadline:
            n = next(counter)
            if n >= max_requests:
                return
            ms, ok, _dropped, error = browser.search(queries[n % len(queries)], kind="submit")
            recorder.add(Sample("submit", ms, ok), error)

    cpu_before, started, resent_before = _cpu(roots), time.monotonic(), resent(browsers)
    with ThreadPoolExecutor(max_workers=len(browsers)) as pool:
        list(pool.map(user, browsers))
    elapsed, cpu = time.monotonic() - started, _cpu(roots) - cpu_before
    stats = recorder.stats("submit")
    done = stats["requests"] - stats["failures"]
    return {
        "concurrency": len(browsers),
        **stats,
        "seconds": round(elapsed, 2),
        "rps": round(done / elapsed, 2) if elapsed else 0.0,
        "cpu_ms_per_request": round(1000 * cpu / max(1, stats["requests"]), 1),
        "errors": recorder.errors,
        "resent": resent(browsers) - resent_before,
    }


def ladder(browsers: list[Browser], queries: list[str], levels: list[int], *, max_requests: int,
           max_seconds: float, roots: tuple[int, ...]) -> dict[str, Any]:  # fmt: skip
    rows: list[dict[str, Any]] = []
    knee: dict[str, Any] | None = None
    offset = 0
    for level in levels:
        level_queries = queries[offset:] + queries[:offset]  # each level starts further along the list
        offset = (offset + max_requests) % len(queries)
        row = ladder_level(browsers[:level], level_queries, max_requests=max_requests, max_seconds=max_seconds,
                           roots=roots)  # fmt: skip
        best = max((r["rps"] for r in rows), default=0.0)
        row["gain"] = round(row["rps"] / best - 1, 3) if best else None
        rows.append(row)
        gain = "" if row["gain"] is None else f", gain {row['gain']:+.1%}"
        print(
            f"  {level:>3} users: {row['rps']:.2f} req/s, p50 {row['p50_ms']:.0f} ms, p95 {row['p95_ms']:.0f} ms{gain}"
        )
        if row["failures"]:
            print(f"  stopping: {row['failures']} failures ({'; '.join(row['errors'][:3])})", flush=True)
            break
        if row["gain"] is not None and row["gain"] < 0.05:
            break
        knee = row
    else:
        knee = None  # throughput still rising at the last level: no knee within the ladder
    return {"levels": rows, "knee": knee, "saturated": knee is not None}


# --- the run --------------------------------------------------------------------------------


def bench_queries(demo: bool) -> list[str]:
    if demo:
        queries = demo_queries()
    else:
        queries = list(dict.fromkeys(q["query"] for name in EVAL_FILES for q in load_queries(name)))
    random.Random(42).shuffle(queries)
    return queries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny counts (~1 min); a demo handbook unless --corpora")
    parser.add_argument("--corpora", action="store_true", help="with --quick: the bench corpora all the same")
    parser.add_argument("--max-users", type=int, help="highest ladder level (default 64; quick 4)")
    parser.add_argument("--requests", type=int, help="at most this many searches a level (default 300; quick 12)")
    parser.add_argument("--level-seconds", type=float, help="at most this long a level (default 60; quick 8)")
    parser.add_argument("--people", type=int, help="typing people (default: 4 × the knee's users; quick 3)")
    parser.add_argument("--typing-seconds", type=float, help="typing mix duration (default 120; quick 20)")
    parser.add_argument("--word-pause", type=float, default=0.3, help="chance of a pause after a word (0.35-0.9 s)")
    parser.add_argument("--keystrokes", type=int, help="closed-loop typing requests (default 2000; quick 100)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    quick, demo = args.quick, args.quick and not args.corpora
    max_users = args.max_users or (4 if quick else 64)
    levels = [n for n in (2**i for i in range(12)) if n <= max_users]
    max_requests = args.requests or (12 if quick else 300)
    level_seconds = args.level_seconds or (8.0 if quick else 60.0)
    typing_seconds = args.typing_seconds or (20.0 if quick else 120.0)
    settings, box = run_sh_settings(), search_box()
    queries = bench_queries(demo)
    people_cap = max(levels[-1], args.people or 0)
    print(f"gunicorn (scripts/run.sh): {settings.workers} workers × {settings.threads} threads; "
          f"search box: light list after {box.debounce_ms} ms ({box.typing_path}), full list after "
          f"{box.pause_ms} ms; {len(queries)} queries", flush=True)  # fmt: skip

    with (
        instance(demo=demo, users=people_cap) as (data_dir, env),
        gunicorn(env, settings, RESULTS / "capacity-gunicorn.log") as (url, master),
    ):
        roots = (master, postmaster_pid(data_dir))
        browsers = [Browser(url, f"{USER_PREFIX}{n:02d}", box) for n in range(1, people_cap + 1)]
        warm = [f"warm up {n} annual leave" for n in range(settings.workers * settings.threads * 2)]
        ladder_level(browsers[: settings.workers * settings.threads], warm, max_requests=len(warm),
                         max_seconds=120, roots=roots)  # fmt: skip  # every worker loads the model first
        print(f"ladder: {levels}, ≤ {max_requests} searches or {level_seconds:.0f} s a level", flush=True)
        steps = ladder(browsers, queries, levels, max_requests=max_requests, max_seconds=level_seconds,
                           roots=roots)  # fmt: skip
        knee = steps["knee"] or steps["levels"][-1]
        # A typist sends far fewer requests than a closed-loop user: 4 people per user at the knee.
        people = args.people or (3 if quick else min(people_cap, 4 * knee["concurrency"]))
        print(f"typing: {people} people for ≤ {typing_seconds:.0f} s", flush=True)
        typing = typing_mix(browsers[:people], queries, box=box, seconds=typing_seconds,
                                max_queries=max(4, int(typing_seconds * people / 3)), word_pause=args.word_pause,
                                seed=args.seed, roots=roots)  # fmt: skip
        keystrokes = args.keystrokes or (100 if quick else 2000)
        print(f"keystrokes alone: {knee['concurrency']} users, ≤ {keystrokes} requests", flush=True)
        alone = keystroke_loop(browsers[: knee["concurrency"]], queries, max_requests=keystrokes,
                               max_seconds=level_seconds, seed=args.seed, roots=roots)  # fmt: skip

    report(settings, steps, typing, alone)
    write_results("capacity", {"quick": quick, "demo": demo, "gunicorn": settings.__dict__,
                               "debounce_ms": box.debounce_ms, "pause_ms": box.pause_ms, "ladder": steps,
                               "typing": typing, "keystrokes": alone})  # fmt: skip
    failed = any(r["failures"] for r in steps["levels"]) or alone["failures"]
    failed = failed or any(typing[kind]["failures"] for kind in ("typing", "pause", "submit"))
    return 1 if failed else 0


def report(settings: Any, steps: dict[str, Any], typing: dict[str, Any], alone: dict[str, Any]) -> None:
    headers = ["users", "requests", "failures", "req/s", "gain", "p50 ms", "p95 ms", "CPU ms/req"]
    rows = [
        [r["concurrency"], r["requests"], r["failures"], r["rps"], "–" if r["gain"] is None else f"{r['gain']:+.1%}"]
        + [r["p50_ms"], r["p95_ms"], r["cpu_ms_per_request"]]
        for r in steps["levels"]
    ]
    title = f"Submitted searches, closed loop (gunicorn {settings.workers} workers × {settings.threads} threads)"
    section(title, md_table(headers, rows, 1))
    knee = steps["knee"]
    if knee:
        print(f"\nKnee: {knee['concurrency']} users, {knee['rps']:.1f} req/s, p50 {knee['p50_ms']:.0f} ms, "
              f"p95 {knee['p95_ms']:.0f} ms (the next level gained < 5 %).")  # fmt: skip
    else:
        print("\nNo knee within the ladder: throughput still rose at its last level (raise --max-users).")
    t = typing
    rows = [[t["people"], t["seconds"], t["keystrokes"], t["typing"]["requests"], t["typing"]["dropped"],
             t["typing_superseded"], t["keystroke_requests_per_s"], t["typing"]["p95_ms"], t["pause"]["requests"],
             t["pause"]["p95_ms"], t["submit"]["requests"], t["submit"]["p95_ms"],
             sum(t[kind]["failures"] for kind in ("typing", "pause", "submit")), t["resent"],
             t["cpu_ms_per_request"]]]  # fmt: skip
    section(f"Typing mix (150–250 ms a key, light list after {t['debounce_ms']} ms, full list after "
            f"{t['pause_ms']} ms, word pauses {t['word_pause']:.0%})",
            md_table(["people", "s", "keys", "typing req", "dropped", "superseded", "typing req/s", "typing p95 ms",
                      "pause req", "pause p95 ms", "submitted", "submit p95 ms", "errors", "resent", "CPU ms/req"],
                     rows, 1))  # fmt: skip
    a, per_search = alone, (steps["knee"] or steps["levels"][-1])["cpu_ms_per_request"]
    web, database = (a["cpu_ms_per_request_parts"] + [0.0, 0.0])[:2]
    rows = [[a["concurrency"], a["requests"], a["dropped"], a["failures"], a["rps"], a["p50_ms"], a["p95_ms"],
             a["cpu_ms_per_request"], web, database, per_search]]  # fmt: skip
    section("Keystrokes alone (closed-loop light requests) beside a submitted search at the knee",
            md_table(["users", "requests", "dropped", "failures", "req/s", "p50 ms", "p95 ms", "CPU ms/typing req",
                      "of it gunicorn", "of it Postgres", "CPU ms/search"], rows, 2))  # fmt: skip
    for error in [*(e for r in steps["levels"] for e in r["errors"]), *t["errors"], *a["errors"]][:10]:
        print("FAILURE:", error)


if __name__ == "__main__":
    sys.exit(main())
