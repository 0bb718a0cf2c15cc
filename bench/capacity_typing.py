"""The typing side of bench/capacity.py: people typing at a human pace, and keystrokes in a closed loop.

(b) Typing mix: each person types a query a key at a time (150–250 ms a key, seeded). As the box
    in templates/base.html does, a pause longer than its debounce sends the light list
    (``/search/typing/``), a pause longer than the pause element's delay the full list, and the
    person then presses Enter (a submitted search) and reads the results. Between words a person
    sometimes pauses (``word_pause``). Light and pause requests leave without waiting for the
    previous one, as htmx sends them; one the next keystroke overtook counts as superseded.
(c) Keystrokes alone: closed-loop light requests (prefixes of the queries) at the knee's
    concurrency, for the CPU one costs beside a submitted search's.
"""

from __future__ import annotations

import itertools
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.capacity_client import Browser, Recorder, Sample, resent
from bench.capacity_server import SearchBox, tree_cpu_seconds


def typing_schedule(query: str, rng: random.Random, box: SearchBox, word_pause: float) -> list[tuple[float, str, str]]:
    """(seconds from the first key, what is sent, kind) for one query: the box's requests, then Enter."""
    t, events = 0.0, []
    for i in range(1, len(query) + 1):
        gap = rng.uniform(0.150, 0.250)
        if query[i - 1] == " " and rng.random() < word_pause:
            gap = rng.uniform(0.350, 0.900)  # a pause between words
        if i == len(query):
            gap = rng.uniform(0.200, 1.200)  # reading what is shown, then Enter
        if query[:i].strip():
            if gap * 1000 > box.debounce_ms:
                events.append((t + box.debounce_ms / 1000, query[:i], "typing"))  # input changed, a pause
            if gap * 1000 > box.pause_ms:
                events.append((t + box.pause_ms / 1000, query[:i], "pause"))  # a longer one: the full list
        t += gap
    events.append((t, query, "submit"))
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
            for offset, text, kind in typing_schedule(query, rng, box, word_pause):
                time.sleep(max(0.0, start + offset - time.monotonic()))
                latest[0] += 1
                if kind == "submit":
                    ms, ok, _dropped, error = browser.search(query, kind="submit")
                    recorder.add(Sample("submit", ms, ok), error)
                else:
                    sender.submit(send, browser, text, kind, latest[0], latest)
            time.sleep(max(0.0, min(rng.uniform(1.0, 3.0), deadline - time.monotonic())))  # reads the results

    def send(browser: Browser, text: str, kind: str, number: int, latest: list[int]) -> None:
        ms, ok, dropped, error = browser.search(text, kind=kind)
        recorder.add(Sample(kind, ms, ok, superseded=latest[0] != number, dropped=dropped), error)

    cpu_before, started, resent_before = tree_cpu_seconds(*roots), time.monotonic(), resent(browsers)
    with ThreadPoolExecutor(max_workers=len(browsers)) as pool:
        list(pool.map(person, range(len(browsers)), browsers))
    sender.shutdown(wait=True)
    elapsed, cpu = time.monotonic() - started, tree_cpu_seconds(*roots) - cpu_before
    typed, paused, submitted = recorder.stats("typing"), recorder.stats("pause"), recorder.stats("submit")
    served = typed["requests"] - typed["failures"]
    total = typed["requests"] + paused["requests"] + submitted["requests"]
    return {
        "people": len(browsers), "seconds": round(elapsed, 2), "queries": submitted["requests"],
        "keystrokes": next(keys), "debounce_ms": box.debounce_ms, "pause_ms": box.pause_ms,
        "word_pause": word_pause, "typing": typed, "pause": paused, "submit": submitted,
        "typing_superseded": sum(1 for s in recorder.samples if s.kind == "typing" and s.superseded),
        "keystroke_requests_per_s": round(served / elapsed, 2) if elapsed else 0.0,
        "cpu_ms_per_request": round(1000 * cpu / max(1, total), 1), "errors": recorder.errors,
        "resent": resent(browsers) - resent_before,
    }  # fmt: skip


def keystroke_loop(browsers: list[Browser], queries: list[str], *, max_requests: int, max_seconds: float,
                   seed: int, roots: tuple[int, ...]) -> dict[str, Any]:  # fmt: skip
    """Closed-loop light requests, each a prefix of a query (2 characters or more) as typed."""
    rng = random.Random(seed)
    lines = [q[: rng.randint(2, len(q))] for q in queries if len(q) >= 2]
    recorder, counter = Recorder(), itertools.count()
    deadline = time.monotonic() + max_seconds

    def user(browser: Browser) -> None:
        while time.monotonic() < deadline:
            n = next(counter)
            if n >= max_requests:
                return
            ms, ok, dropped, error = browser.search(lines[n % len(lines)], kind="typing")
            recorder.add(Sample("typing", ms, ok, dropped=dropped), error)

    before, started, resent_before = [tree_cpu_seconds(root) for root in roots], time.monotonic(), resent(browsers)
    with ThreadPoolExecutor(max_workers=len(browsers)) as pool:
        list(pool.map(user, browsers))
    elapsed = time.monotonic() - started
    parts = [tree_cpu_seconds(root) - was for root, was in zip(roots, before, strict=True)]  # web, database
    cpu = sum(parts)
    stats = recorder.stats("typing")
    done = stats["requests"] - stats["failures"]
    return {
        "concurrency": len(browsers),
        **stats,
        "seconds": round(elapsed, 2),
        "rps": round(done / elapsed, 2) if elapsed else 0.0,
        "cpu_ms_per_request": round(1000 * cpu / max(1, stats["requests"]), 2),
        "cpu_ms_per_request_parts": [round(1000 * part / max(1, stats["requests"]), 2) for part in parts],
        "errors": recorder.errors,
        "resent": resent(browsers) - resent_before,
    }
