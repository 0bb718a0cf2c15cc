"""Can one person time the caches to learn what colleagues searched or asked?

For each probe query, user A searches (and asks) it first; then user B, who reads the same
pages, runs the same query ("seen": somebody asked it) and a query nobody has asked
("unseen"), alternately. If caches were shared, "seen" would be much faster than "unseen"
(the query embedding and the answer come from the cache). Caches are per person, so the two
distributions should match within noise; B repeating its *own* query shows the cache still
serves that person.

Runs on its own small handbook (database ``bench_cache`` of the bench instance): nothing
from ``../shared`` is needed.

    python -m bench.cache_timing [--probes 40]
"""

from __future__ import annotations

import argparse
import random
import time

from bench.common import md_table, percentile, section, setup, write_results

TOPICS = [
    ("Travel", "Travel reimbursement: submit receipts for train, hotel and taxi within thirty days."),
    ("Leave", "Annual leave: 25 working days per year; carry over at most five days to March."),
    ("Laptops", "Laptops are replaced every four years; report a lost laptop to the security team at once."),
    ("Télétravail", "Le télétravail est possible deux jours par semaine avec l'accord du manager."),
    ("Cantine", "Le repas de la cantine coûte quatre euros, café compris, pour chaque agent."),
    ("Expenses", "Corporate card limits: 2,000 euros a month; receipts are due within ten days."),
]
WORDS = [
    *("leave", "travel", "laptop", "receipts", "hotel", "taxi", "card", "limit", "month", "days"),
    *("manager", "security", "report", "carry", "repas", "cantine", "semaine", "accord"),
    *("télétravail", "euros", "agent", "remote", "policy", "password", "badge", "parking"),
]


def _probes(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.sample(WORDS, 3)) + f" {i}" for i in range(count)]


def _ensure_handbook():  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from bench.common import bench_user
    from handbook.models import Page, Space
    from handbook.services import page_create, space_create

    staff = Group.objects.get_or_create(name="staff")[0]
    space = Space.objects.filter(slug="cache").first() or space_create(
        slug="cache", title="Cache", viewer_groups=[staff], editor_groups=[]
    )
    for title, body in TOPICS:
        if not Page.objects.filter(space=space, title=title).exists():
            page_create(space=space, title=title, body=f"# {title}\n\n{body}\n", language="fr" if "é" in body else "en")
    call_command("reindex", "--all", "--inline", verbosity=0)
    return bench_user("cache-a", ["staff"]), bench_user("cache-b", ["staff"])


def _time(run, user, query: str) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    run(user, query)
    return (time.perf_counter() - started) * 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cache_timing")
    parser.add_argument("--probes", type=int, default=40)
    args = parser.parse_args(argv)
    setup("bench_cache")
    from search.ask.answers import answer_question
    from search.retrieval.pipeline import retrieve

    a, b = _ensure_handbook()
    seed = time.time_ns()
    seen_queries, unseen_queries = _probes(args.probes, seed), _probes(args.probes, seed + 1)
    rows = []
    results = {}
    for name, run in (
        ("search", lambda user, q: retrieve(q, user)),
        ("ask", lambda user, q: answer_question(user=user, question=q, rate_limit=False, log=False)),
    ):
        for q in seen_queries:
            run(a, q)  # A asks first: a shared cache would now hold the answer
        seen, unseen, own = [], [], []
        for q_seen, q_unseen in zip(seen_queries, unseen_queries, strict=True):
            seen.append(_time(run, b, q_seen))
            unseen.append(_time(run, b, q_unseen))
            own.append(_time(run, b, q_seen))  # B again: B's own cache
        results[name] = {"seen_ms": seen, "unseen_ms": unseen, "own_repeat_ms": own}
        for label, values in (
            ("asked by A before", seen),
            ("asked by nobody", unseen),
            ("B's own repeat", own),
        ):
            rows.append([name, label, percentile(values, 50), percentile(values, 95)])
        gap = percentile(seen, 50) - percentile(unseen, 50)
        results[name]["median_gap_ms"] = gap
        rows.append([name, "median gap (A's queries − nobody's)", gap, ""])
    section(
        "Cache timing across people (ms, p50 / p95)",
        md_table(["path", "B's query", "p50", "p95"], rows, digits=1),
        "Caches are per person: a query A asked is as slow for B as one nobody asked.",
    )
    write_results("cache_timing", results)


if __name__ == "__main__":
    main()
