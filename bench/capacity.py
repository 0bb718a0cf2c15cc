"""Capacity: how many searches one ``make run`` server answers, and what a room of people typing costs.

    python -m bench.capacity                 # bench instance (corpora of bench.common), full counts
    python -m bench.capacity --quick         # tiny counts on a throw-away demo handbook (~1 min + setup)
    python -m bench.capacity --quick --corpora   # tiny counts on the bench corpora

gunicorn runs with the workers/threads/timeout of scripts/run.sh (parsed, not copied), DEBUG
false, on 127.0.0.1 only. Every request loop is bounded in count and in seconds.

(a) Ladder: closed-loop submitted searches (what the browser sends on Enter: the form's htmx
    GET /search/?q=…) by signed-in users at 1, 2, 4, 8 … concurrent users, until throughput
    gains < 5 % over the best level so far; the knee is the last level that still gained.
(b) Typing: each person types a query a key at a time (150–250 ms a key, seeded), the box
    sends its own request once a pause exceeds its debounce (hx-trigger ``delay:`` of the
    input in templates/base.html), the person then presses Enter (a submitted search) and
    reads the results before the next query. Between words a person sometimes pauses
    (``--word-pause``), as people do; a steady 150–250 ms typist never outwaits the debounce.
    Reported: keystroke requests served per second, p95 of typing and of submitted
    searches, CPU per request (gunicorn master + workers and the postmaster + backends, from
    /proc, before/after).

Not sent: the Ask panel's follow-up POST (the search response only), static files, the
Celery worker ``make run`` starts (searches do not use it). Query embeddings are cached
(Redis): a query repeated within the run skips the model.
Tables on stdout; figures in bench/results/capacity.json.
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import requests

from bench.capacity_server import (
    PASSWORD,
    USER_PREFIX,
    SearchBox,
    demo_queries,
    gunicorn,
    instance,
    postmaster_pid,
    run_sh_settings,
    search_box,
    tree_cpu_seconds,
)
from bench.common import EVAL_FILES, RESULTS, load_queries, md_table, percentile, section, write_results

_RESULTS_DIV = re.compile(r'<div id="results"')


@dataclass
class Sample:
    kind: str  # "submit" or "typing"
    ms: float
    ok: bool
    superseded: bool = False  # a later request of the same person left first (htmx aborts it)


@dataclass
class Recorder:
    samples: list[Sample] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, sample: Sample, error: str = "") -> None:
        with self.lock:
            self.samples.append(sample)
            if error and len(self.errors) < 10:
                self.errors.append(error)

    def stats(self, kind: str) -> dict[str, Any]:
        times = [s.ms for s in self.samples if s.kind == kind and s.ok]
        return {
            "requests": sum(1 for s in self.samples if s.kind == kind),
            "failures": sum(1 for s in self.samples if s.kind == kind and not s.ok),
            "p50_ms": round(percentile(times, 50), 1),
            "p95_ms": round(percentile(times, 95), 1),
        }


class Browser:
    """One signed-in person: a session (cookies) and the headers htmx sends."""

    def __init__(self, url: str, username: str, box: SearchBox) -> None:
        self.url, self.box = url, box
        self.session = requests.Session()
        adapter = requests.adapters.HTTPAdapter(pool_maxsize=4)
        self.session.mount("http://", adapter)
        self.session.get(f"{url}/accounts/login/", timeout=30)
        form = {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": self.session.cookies["csrftoken"]}
        r = self.session.post(f"{url}/accounts/login/", data=form, headers={"Referer": f"{url}/accounts/login/"})
        if r.status_code != 200 or "/accounts/login/" in r.url:
            raise RuntimeError(f"login failed for {username}: {r.status_code} at {r.url}")

    def search(self, query: str, *, typing: bool) -> tuple[float, bool, str]:
        headers = {"HX-Request": "true", "HX-Current-URL": f"{self.url}/search/", "HX-Target": "results"}
        if typing:  # the box's own request: hx-trigger on the input
            headers.update({"HX-Trigger": self.box.trigger_id, "HX-Trigger-Name": self.box.trigger_name})
        else:  # Enter: the form's request
            headers["HX-Trigger"] = self.box.form_id
        started = time.perf_counter()
        try:
            r = self.session.get(f"{self.url}/search/", params={self.box.trigger_name: query}, headers=headers,
                                 timeout=120)  # fmt: skip
        except requests.RequestException as exc:
            return (time.perf_counter() - started) * 1000, False, str(exc)[:200]
        ms = (time.perf_counter() - started) * 1000
        ok = r.status_code == 200 and bool(_RESULTS_DIV.search(r.text))
        return ms, ok, "" if ok else f"HTTP {r.status_code}{'' if r.status_code != 200 else ' without #results'}"


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
            ms, ok, error = browser.search(queries[n % len(queries)], typing=False)
            recorder.add(Sample("submit", ms, ok), error)

    cpu_before, started = _cpu(roots), time.monotonic()
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


# --- (b) the typing mix -------------------------------------------------------------------


def typing_schedule(query: str, rng: random.Random, debounce_ms: int, word_pause: float) -> list[tuple[float, str]]:
    """(seconds from the first key, what is sent) for one query: the box's requests, then Enter ("" marks it)."""
    t, events = 0.0, []
    for i in range(1, len(query) + 1):
        gap = rng.uniform(0.150, 0.250)
        if query[i - 1] == " " and rng.random() < word_pause:
            gap = rng.uniform(0.350, 0.900)  # a pause between words
        if i == len(query):
            gap = rng.uniform(0.200, 1.200)  # reading what is shown, then Enter
        if gap * 1000 > debounce_ms and query[:i].strip():
            events.append((t + debounce_ms / 1000, query[:i]))  # input changed, then a pause: the box fires
        t += gap
    events.append((t, ""))
    return events


def typing_mix(browsers: list[Browser], queries: list[str], *, box: SearchBox, seconds: float, max_queries: int,
               word_pause: float, seed: int, roots: tuple[int, ...]) -> dict[str, Any]:  # fmt: skip
    recorder, counter, keys = Recorder(), itertools.count(), itertools.count()
    deadline = time.monotonic() + seconds
    sender = ThreadPoolExecutor(max_workers=2 * len(browsers))

    def person(index: int, browser: Browser) -> None:
        rng = random.Random(seed * 1000 + index)
        while time.monotonic() < deadline:
            n = next(counter)
            if n >= max_queries:
                return
            query = queries[rng.randrange(len(queries))]
            for _ in query:
                next(keys)
            start, latest = time.monotonic(), [0]
            for offset, text in typing_schedule(query, rng, box.debounce_ms, word_pause):
                time.sleep(max(0.0, start + offset - time.monotonic()))
                latest[0] += 1
                if text:
                    sender.submit(send_typing, browser, text, latest[0], latest)
                else:
                    ms, ok, error = browser.search(query, typing=False)
                    recorder.add(Sample("submit", ms, ok), error)
            time.sleep(max(0.0, min(rng.uniform(1.0, 3.0), deadline - time.monotonic())))  # reads the results

    def send_typing(browser: Browser, text: str, number: int, latest: list[int]) -> None:
        ms, ok, error = browser.search(text, typing=True)
        recorder.add(Sample("typing", ms, ok, superseded=latest[0] != number), error)

    cpu_before, started = _cpu(roots), time.monotonic()
    with ThreadPoolExecutor(max_workers=len(browsers)) as pool:
        list(pool.map(person, range(len(browsers)), browsers))
    sender.shutdown(wait=True)
    elapsed, cpu = time.monotonic() - started, _cpu(roots) - cpu_before
    typed, submitted = recorder.stats("typing"), recorder.stats("submit")
    served = typed["requests"] - typed["failures"]
    total = typed["requests"] + submitted["requests"]
    return {
        "people": len(browsers), "seconds": round(elapsed, 2), "queries": submitted["requests"],
        "keystrokes": next(keys), "debounce_ms": box.debounce_ms, "word_pause": word_pause,
        "typing": typed, "submit": submitted,
        "typing_superseded": sum(1 for s in recorder.samples if s.kind == "typing" and s.superseded),
        "keystroke_requests_per_s": round(served / elapsed, 2) if elapsed else 0.0,
        "cpu_ms_per_request": round(1000 * cpu / max(1, total), 1), "errors": recorder.errors,
    }  # fmt: skip


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
          f"search box debounce {box.debounce_ms} ms; {len(queries)} queries", flush=True)  # fmt: skip

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

    report(settings, steps, typing)
    write_results("capacity", {"quick": quick, "demo": demo, "gunicorn": settings.__dict__,
                               "debounce_ms": box.debounce_ms, "ladder": steps, "typing": typing})  # fmt: skip
    failed = any(r["failures"] for r in steps["levels"]) or typing["typing"]["failures"] or typing["submit"]["failures"]
    return 1 if failed else 0


def report(settings: Any, steps: dict[str, Any], typing: dict[str, Any]) -> None:
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
    rows = [[t["people"], t["seconds"], t["keystrokes"], t["typing"]["requests"], t["typing_superseded"],
             t["keystroke_requests_per_s"], t["typing"]["p95_ms"], t["submit"]["requests"], t["submit"]["p95_ms"],
             t["cpu_ms_per_request"]]]  # fmt: skip
    section(f"Typing mix (150–250 ms a key, debounce {t['debounce_ms']} ms, word pauses {t['word_pause']:.0%})",
            md_table(["people", "s", "keys", "typing req", "superseded", "typing req/s", "typing p95 ms", "submitted",
                      "submit p95 ms", "CPU ms/req"], rows, 1))  # fmt: skip
    for error in [*(e for r in steps["levels"] for e in r["errors"]), *t["errors"]][:10]:
        print("FAILURE:", error)


if __name__ == "__main__":
    sys.exit(main())
