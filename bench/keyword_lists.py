"""What the keyword list costs when the words alone may have to carry the match.

    python -m bench.keyword_lists [--database bench_no_policy] [--repeat 15]

A search whose query decision may leave the words alone to carry the match (a model with a policy)
asks the keyword list for every share of the words the decision may require, in one statement
(``search/retrieval/keyword.py``, ``keyword_lists``). Before, it asked the plain list, and when the
decision did require a share and the list was cut at its depth, asked the stricter list again.
Per query, as the reader of the bench handbooks, on a database made by another bench (read only;
``bench.no_policy`` makes the default one):

- ``plain``: the plain list alone (``keyword_leg``): what the search asks with no policy;
- ``one statement``: the plain and the stricter lists together (``keyword_lists``): what it asks now;
- ``plain + again``: the plain list, then the stricter list (``KEYWORD_ALONE_COVERAGE``) asked
  again when the plain one was cut at its depth: what a search left to its words asked before.

Every stricter list of the one statement is checked equal to the list asked alone. Timings are the
median over ``--repeat`` runs of each query (after one untimed run; the three take turns), then the median and p95 over
the queries. Written to ``bench/results/keyword_lists.json``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

if __package__ != "bench":
    raise SystemExit("run as: python -m bench.keyword_lists ...")

from bench import common  # noqa: E402

SCOPE = "bench-handbooks"
# Common words: lists cut at their depth, the case where the stricter list was asked again.
COMMON = [
    "how do I request time off from work",
    "what is the policy for working from home",
    "who do I contact about my pay",
    "can I use my own laptop for work",
    "what happens if I am sick during my holidays",
    "comment demander un congé",
    "quelles sont les règles pour le travail à distance",
]


def _median_ms(calls: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """The median time of each call, the calls taking turns (a busy machine slows them alike)."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        call()
    for _ in range(repeat):
        for name, call in calls.items():
            t = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - t)
    return {f"{name}_ms": 1000 * statistics.median(values) for name, values in times.items()}


def measure(repeat: int, extra: int) -> dict[str, Any]:
    from config.numbers import KEYWORD_MIN_COVERAGE, LEG_DEPTH
    from search.retrieval.hits import Filters
    from search.retrieval.keyword import keyword_leg, keyword_lists
    from search.retrieval.pipeline import WORDS_ALONE
    from search.retrieval.query import parse_query
    from search.retrieval.visibility import visible_pages

    user = common.bench_user(SCOPE, [SCOPE])
    visible = visible_pages(user)
    queries = COMMON + [q["query"] for q in common.load_queries("dev-handbooks.jsonl")[:extra]]
    coverages = (KEYWORD_MIN_COVERAGE, *WORDS_ALONE)
    rows, cut, unequal = [], 0, 0
    for text in queries:
        parsed = parse_query(text)
        plain = keyword_leg(parsed, visible, Filters())
        was_cut = len(plain) >= LEG_DEPTH
        cut += was_cut
        lists = keyword_lists(parsed, visible, Filters(), coverages=coverages)
        for least in coverages:
            asked = keyword_leg(parsed, visible, Filters(), min_coverage=least)
            same = [(h.chunk_id, h.keyword_rank, h.coverage) for h in lists[least]] == [
                (h.chunk_id, h.keyword_rank, h.coverage) for h in asked
            ]
            unequal += not same

        def before(parsed=parsed, was_cut=was_cut) -> None:  # type: ignore[no-untyped-def]
            keyword_leg(parsed, visible, Filters())
            if was_cut:
                keyword_leg(parsed, visible, Filters(), min_coverage=WORDS_ALONE[0])

        calls = {
            "plain": lambda parsed=parsed: keyword_leg(parsed, visible, Filters()),
            "one_statement": lambda parsed=parsed: keyword_lists(parsed, visible, Filters(), coverages=coverages),
            "plain_and_again": before,
        }
        rows.append({"query": text, "cut": was_cut, **_median_ms(calls, repeat)})
    summary = {
        name: {
            "median": statistics.median(r[f"{name}_ms"] for r in rows),
            "p95": common.percentile([r[f"{name}_ms"] for r in rows], 95),
        }
        for name in ("plain", "one_statement", "plain_and_again")
    }
    return {"queries": len(rows), "cut": cut, "lists_unequal": unequal, "summary": summary, "rows": rows}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default="bench_no_policy")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--extra", type=int, default=13, help="dev-handbooks questions measured too")
    args = parser.parse_args(argv)
    common.setup(database=args.database, migrate=False)
    data = measure(args.repeat, args.extra)
    table = common.md_table(
        ["list", "median ms", "p95 ms"],
        [(name, s["median"], s["p95"]) for name, s in data["summary"].items()],
        digits=2,
    )
    common.section(
        f"keyword lists ({data['queries']} queries, {data['cut']} cut at their depth, "
        f"{data['lists_unequal']} stricter lists unequal to the list asked alone)",
        table,
    )
    common.write_results("keyword_lists", {"database": args.database, **data})


if __name__ == "__main__":
    main()
