"""Can search say "nothing matches"? The query decision (search/decisions/query.py) as served.

    python -m bench.no_match [--partial] [--database NAME]

Queries: the dev sets (``dev.jsonl`` as ``bench-faq``, ``dev-handbooks.jsonl`` and
``dev-crosslang.jsonl`` as ``bench-handbooks``, see ``bench/common.py``) and
``bench/data/no_match_queries.txt`` (random strings, keyboard mashes, questions
from other domains), run as each bench user. ``no_match_queries_second.txt`` to
``no_match_queries_sixth.txt`` are more such sets, the third to the sixth written blind.
None of them is used to fit anything: the decision is fitted from the project's own calibration
material (``manage.py calibrate``); this bench only measures it, through ``retrieve`` exactly as
served — it holds no copy of the decision and patches nothing.
Only corpora already loaded are used: this bench never loads any (``python -m bench.common load`` does).
``--database NAME``: another database of the bench instance, such as the subset ``bench.ask_subset``
makes (with ``--partial``: the questions whose relevant pages it holds); its figures are its own,
not comparable with the full corpora's, and go to ``no_match_NAME.json``.

Reported: nDCG@10 per corpus, answerable queries left empty, the share of no-match queries with
no result (per set), and the number of results of answerable and unanswerable dev questions.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ != "bench":
    raise SystemExit("run as: python -m bench.no_match ...")

from bench import common  # noqa: E402

NO_MATCH_FILE = Path(__file__).resolve().parent / "data" / "no_match_queries.txt"
# Held-out sets: reported, never chosen on.
HELD_OUT_FILES = {
    "second": NO_MATCH_FILE.with_name("no_match_queries_second.txt"),
    "third": NO_MATCH_FILE.with_name("no_match_queries_third.txt"),
    "fourth": NO_MATCH_FILE.with_name("no_match_queries_fourth.txt"),
    "fifth": NO_MATCH_FILE.with_name("no_match_queries_fifth.txt"),
    "sixth": NO_MATCH_FILE.with_name("no_match_queries_sixth.txt"),
}


def no_match_queries(path: Path = NO_MATCH_FILE) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def loaded_corpora() -> set[str]:
    return {corpus for corpus in common.ALL_CORPORA if common.corpus_ready(corpus)}


def indexed_refs() -> tuple[set[str], set[str]]:
    """Pages of the bench corpora searchable with their vectors, and the corpora they belong to."""
    from handbook.models import Page
    from search.models import Chunk

    pages = Page.objects.filter(id__in=Chunk.objects.filter(embedding__isnull=False).values("page_id"))
    rows = list(pages.values_list("ref", "space__slug"))
    return {ref for ref, _slug in rows}, {slug for _ref, slug in rows}


def users_and_queries(partial: bool = False) -> list[tuple[str, Any, list[dict[str, Any]]]]:
    """(eval file, its bench user, its queries on loaded corpora), plus the no-match set per user.

    ``partial``: also the corpora still loading, with the queries whose relevant pages are all indexed.
    """
    ready = loaded_corpora()
    print(f"loaded corpora: {', '.join(sorted(ready)) or 'none'}", flush=True)
    indexed, started = indexed_refs() if partial else (set(), set())
    loaded = ready | (started & set(common.ALL_CORPORA))
    if partial:
        print(f"with corpora still loading (queries whose pages are indexed): {', '.join(sorted(loaded))}")

    def keep(q: dict[str, Any]) -> bool:
        return q["corpus"] in ready or (q["corpus"] in loaded and all(r in indexed for r in q["relevant"]))

    runs = []
    for name, scope in common.EVAL_FILES.items():
        if not any(c in loaded for c in common.SCOPES[scope]):
            continue
        user = common.bench_user(scope, [scope])
        queries = [q for q in common.load_queries(name) if keep(q)]
        runs.append((name, user, queries))
    for scope in common.SCOPES:
        if any(c in loaded for c in common.SCOPES[scope]):
            user = common.bench_user(scope, [scope])
            for held_out, path in (("", NO_MATCH_FILE), *HELD_OUT_FILES.items()):
                label = f"{held_out}-" if held_out else ""
                queries = [
                    {"qid": f"nomatch-{label}{scope}-{i}", "query": text, "relevant": {}, "no_match": True}
                    for i, text in enumerate(no_match_queries(path))
                ]
                for q in queries:
                    q.update(corpus="", held_out=held_out)
                runs.append((f"no-match ({held_out or 'first'} set) as {scope}", user, queries))
    return runs


# --- scoring -------------------------------------------------------------------------


def _refs() -> dict[int, str]:
    from handbook.models import Page

    return dict(Page.objects.values_list("id", "ref"))


def score(runs: list[tuple[str, Any, list[dict[str, Any]]]], pages: dict[str, list[int]], refs: dict[int, str]):  # type: ignore[no-untyped-def]
    """nDCG@10 per (file, corpus), answerable queries left empty, no-match queries with no result."""
    ndcg: dict[str, float] = {}
    empty_answerable = 0
    no_match, no_match_empty = 0, 0
    for name, _user, queries in runs:
        ranked = {q["qid"]: common.first_k(refs.get(p, "") for p in pages[q["qid"]]) for q in queries}
        if queries and queries[0].get("no_match"):
            if queries[0].get("held_out"):
                continue  # reported apart (held_out_share), never chosen on
            no_match += len(queries)
            no_match_empty += sum(1 for q in queries if not pages[q["qid"]])
            continue
        for corpus, s in common.score_run(queries, ranked).items():
            ndcg[f"{name} {corpus}"] = s["ndcg@10"]
            empty_answerable += s["empty"]
    return ndcg, empty_answerable, no_match_empty / max(1, no_match)


def held_out_share(runs: list[tuple[str, Any, list[dict[str, Any]]]], pages: dict[str, list[int]], name: str) -> float:
    """Share of a held-out no-match set (``HELD_OUT_FILES``) with no result."""
    queries = [q for _n, _u, qs in runs for q in qs if q.get("held_out") == name]
    return sum(1 for q in queries if not pages[q["qid"]]) / max(1, len(queries))


def served(runs: list[tuple[str, Any, list[dict[str, Any]]]]) -> dict[str, Any]:
    """The queries through ``retrieve`` as served (the configured model's policy)."""
    from search.decisions.policy import policy_for
    from search.embedding.model_switch import query_embedder
    from search.retrieval.pipeline import retrieve

    refs = _refs()
    pages: dict[str, list[int]] = {}
    for name, user, queries in runs:
        started = time.perf_counter()
        for q in queries:
            pages[q["qid"]] = [p.page_id for p in retrieve(q["query"], user).pages]
        print(f"  {name}: {len(queries)} queries in {time.perf_counter() - started:.0f} s", flush=True)
    ndcg, empty, rate = score(runs, pages, refs)
    # The unanswerable questions are dev-handbooks.jsonl's: they are compared with that file's answerable
    # ones (the same reader and pages), and both files' questions are given together as well.
    counts: dict[str, list[int]] = {"answerable": [], "unanswerable": []}
    for name, _user, queries in runs:
        for q in queries:
            if q.get("no_match") or "source_qid" in q:
                continue
            kind = "answerable" if q.get("relevant") else "unanswerable"
            counts[kind].append(len(pages[q["qid"]]))
            counts.setdefault(f"{name}: {kind}", []).append(len(pages[q["qid"]]))
    rows = [(k, v) for k, v in ndcg.items()]
    common.section("Served: nDCG@10 per corpus", common.md_table(("file corpus", "nDCG@10"), rows))
    dist_rows = [
        (
            label,
            len(values),
            sum(1 for v in values if v == 0),
            common.percentile(values, 25),
            common.percentile(values, 50),
            common.percentile(values, 75),
            common.mean(values),
        )
        for label, values in counts.items()
        if values
    ]
    common.section(
        "Served: results per dev question (dev.jsonl + dev-handbooks.jsonl, then each file)",
        common.md_table(("questions", "n", "no result", "p25", "median", "p75", "mean"), dist_rows),
    )
    held_out = {name: held_out_share(runs, pages, name) for name in HELD_OUT_FILES}
    shares = ", ".join(f"{name} set: {100 * share:.1f}%" for name, share in held_out.items())
    print(f"\nanswerable queries with no result: {empty}; no-match queries with no result: {100 * rate:.1f}%", end="")
    print(f" ({shares})")
    for name, _user, queries in runs:
        if queries and queries[0].get("no_match"):
            share = sum(1 for q in queries if not pages[q["qid"]]) / len(queries)
            print(f"  {name}: {100 * share:.1f}% with no result")
    embedder = query_embedder()
    policy = policy_for(embedder.model_name) if embedder else None
    query = policy.get("query") if policy else None
    print(f"model: {embedder.model_name if embedder else None}; policy: {policy.source if policy else None}")
    print(f"query decision: {query.as_json() if query else None}", flush=True)
    return {
        "ndcg": ndcg,
        "empty": empty,
        "no_match": rate,
        **{f"no_match_{name}_set": share for name, share in held_out.items()},
        "counts": counts,
        "model": embedder.model_name if embedder else None,
        "policy": query.as_json() if query else None,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.no_match", description=__doc__.split("\n\n")[0])
    parser.add_argument("--partial", action="store_true", help="also corpora still loading (indexed pages only)")
    parser.add_argument("--database", help="another database of the bench instance (a subset: with --partial)")
    args = parser.parse_args(argv)
    common.setup(args.database, migrate=False)
    common.refresh_index_statistics()  # as served after indexing: IDF, and the vocabulary typos are corrected from
    runs = users_and_queries(args.partial)
    name = f"no_match_{args.database}" if args.database else "no_match"
    common.write_results(name, {"database": args.database, "served": served(runs)})


if __name__ == "__main__":
    main(sys.argv[1:])
