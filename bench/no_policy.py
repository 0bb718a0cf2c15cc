"""Search with a model that has no policy yet: is it at least as good as keyword search alone?

    python -m bench.no_policy [--chars N] [--label NAME]

A new embedding model serves before its first calibration (its first minute, or an install whose
worker is down): nothing is confident on meaning then, and the words carry every match
(``search/decisions/query.py``). This bench measures that state with the stand-in second model of
``tests/second_model.py`` (e5 on another similarity scale, served on loopback) and no policy for it:

- answerable questions of ``dev-handbooks.jsonl`` and ``dev-crosslang.jsonl`` left with no result;
- nDCG@10 per file, against the product's keyword search alone (``retrieve`` without the meaning
  lists, as ``bench/search.py quality``'s "keyword" mode) and the SQLite FTS5 reference of
  ``bench/search.py`` over the same readable pages;
- the share of the no-match queries (``bench/data/no_match_queries.txt``) with no result.

Its own database on the bench server (``bench_no_policy``), loaded once: embedding the three
handbooks through the stand-in costs what the first bench load cost (hours on two cores), so the
database holds a SUBSET: every page a question of the two files names as relevant, plus pages of
the same corpora drawn at random (fixed seed) as distractors until ``--chars`` characters of
page text. Figures from it are not comparable with those of the full corpora. Tasks enqueued while
loading go to an in-memory broker: the bench server's Redis is shared with other benches. The
word-translation vocabulary is not built (``_refresh_statistics`` says why).

Each run is stored under ``--label`` in ``bench/results/no_policy.json`` (other labels kept), with
the commit it ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

if __package__ != "bench":
    raise SystemExit("run as: python -m bench.no_policy ...")

from bench import common  # noqa: E402
from bench.ask_subset import load as load_subset  # noqa: E402 - the same pages, loaded the same way

TARGET = "bench_no_policy"
SCOPE = "bench-handbooks"
FILES = ("dev-handbooks.jsonl", "dev-crosslang.jsonl")
DEFAULT_CHARS = 750_000


def _configure() -> Any:
    """Django on ``TARGET`` with the stand-in model as the configured embedder; its server, started."""
    from tests.second_model import MODEL, SecondModelServer

    common._use_embedded_services()
    server = SecondModelServer()
    os.environ.update(
        BENCH_KEEP_ENV="1",
        EMBEDDINGS_BASE_URL=server.url,
        EMBEDDINGS_MODEL=MODEL,
        EMBEDDINGS_DIMENSIONS="384",
        EMBEDDINGS_API_KEY="bench",
        EMBEDDINGS_CONCURRENCY="1",  # one engine behind one lock (bench/decisions.py says why)
        EMBEDDINGS_TIMEOUT_S="300",
    )
    common.database_url(TARGET)  # created if missing
    common.setup(database=TARGET, migrate=True)
    from celery import current_app

    current_app.conf.broker_url = "memory://"  # nothing reaches another bench's worker
    server.start()
    return server


def _refresh_statistics() -> None:
    """The keyword IDF as the sweep keeps it. Not the word-translation vocabulary
    (``common.refresh_index_statistics`` builds it): embedding every word of the subset through the
    stand-in would cost more than the pages did; without it the translated keyword list is empty in
    every system measured here."""
    from search.statistics.term_statistics import refresh_lexeme_stats

    print(f"(lexeme statistics refreshed: {refresh_lexeme_stats()} lexemes)", flush=True)


def _refs() -> dict[int, str]:
    from handbook.models import Page

    return dict(Page.objects.values_list("id", "ref"))


def measure() -> dict[str, Any]:
    """Served (no policy), keyword search alone and FTS5 over the same readable pages."""
    from bench.no_match import no_match_queries
    from bench.search import Fts5Index, _visible_docs
    from handbook.models import Page
    from search.decisions.policy import policy_for
    from search.embedding.model_switch import query_embedder
    from search.retrieval.pipeline import retrieve

    embedder = query_embedder()
    policy = policy_for(embedder.model_name) if embedder else None
    user = common.bench_user(SCOPE, [SCOPE])
    refs, loaded = _refs(), set(Page.objects.values_list("ref", flat=True))
    fts5 = Fts5Index([(ref, title, body) for ref, title, body, _c in _visible_docs(user)])
    systems = {
        "served": lambda text: [refs[p.page_id] for p in retrieve(text, user).pages],
        "keyword": lambda text: [
            refs[p.page_id] for p in retrieve(text, user, use_vectors=False, cross_language=False).pages
        ],
        "fts5": fts5.search,
    }
    out: dict[str, Any] = {"model": embedder.model_name if embedder else None, "policy": bool(policy), "files": {}}
    for name in FILES:
        queries = [q for q in common.load_queries(name) if q["relevant"] and set(q["relevant"]) <= loaded]
        row: dict[str, Any] = {"answerable": len(queries)}
        for system, run in systems.items():
            ranked = {q["qid"]: run(q["query"]) for q in queries}
            scored = common.score_run(queries, ranked)
            row[system] = {
                "empty": sum(s["empty"] for s in scored.values()),
                "ndcg@10": common.mean(common.ndcg(ranked[q["qid"]], q["relevant"]) for q in queries),
                "per_corpus": scored,
            }
        out["files"][name] = row
    nomatch = no_match_queries()
    out["no_match"] = {
        "queries": len(nomatch),
        **{
            system: sum(1 for text in nomatch if not run(text)) / len(nomatch)
            for system, run in systems.items()
            if system != "fts5"
        },
    }
    return out


def _commit() -> str:
    found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=common.ROOT)
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "search"], capture_output=True, text=True)
    return found.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.no_policy", description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=DEFAULT_CHARS, help="page text loaded (relevant pages first)")
    parser.add_argument("--label", default="current", help="the run's name in the results file")
    parser.add_argument("--load-only", action="store_true", help="load the subset, measure nothing")
    args = parser.parse_args(argv)
    server = _configure()
    try:
        loaded = load_subset(args.chars, answer_units=False)  # the search alone needs no unit vectors
        print(json.dumps(loaded), flush=True)
        if args.load_only:
            return
        _refresh_statistics()
        started = time.monotonic()
        figures = {**measure(), "subset": loaded, "commit": _commit(), "seconds": round(time.monotonic() - started)}
    finally:
        server.stop()
    for name, row in figures["files"].items():
        cells = [(system, row[system]["empty"], row[system]["ndcg@10"]) for system in ("served", "keyword", "fts5")]
        common.section(f"{args.label}: {name} ({row['answerable']} answerable)",
                       common.md_table(("system", "empty", "nDCG@10"), cells))  # fmt: skip
    print(f"no-match queries with no result: {figures['no_match']}")
    path = common.RESULTS / "no_policy.json"
    previous = json.loads(path.read_text()) if path.is_file() else {}
    runs = {**previous.get("runs", {}), args.label: figures}
    common.write_results("no_policy", {"about": __doc__.split("\n\n")[0], "runs": runs})


if __name__ == "__main__":
    main(sys.argv[1:])
