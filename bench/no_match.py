"""Can search say "nothing matches"? Calibrates the similarity floor (search/retrieval/relevance.py).

    python -m bench.no_match                # grid of floors, then the configured floor as served
    python -m bench.no_match --grid-only    # the grid alone (one retrieval per query)
    python -m bench.no_match --served-only  # the configured floor alone
    python -m bench.no_match --off-topic-only  # the off-topic margin swept at the configured floors

Queries: the dev sets (``dev.jsonl`` as ``bench-faq``, ``dev-handbooks.jsonl`` and
``dev-crosslang.jsonl`` as ``bench-handbooks``, see ``bench/common.py``) and
``bench/data/no_match_queries.txt`` (random strings, keyboard mashes, questions
from other domains), run as each bench user. ``bench/data/no_match_queries_second.txt`` is a
second such set, written after the off-topic sentences and never used to choose them or the
floors; ``no_match_queries_third.txt`` to ``no_match_queries_sixth.txt`` were written blind (without
reading the sentences or the other sets): their shares with no result are reported beside the first's.
The second set was used to choose the workplace sentences' weight (search/retrieval/off_topic.py), the
third to choose subjects for more everyday sentences and the fourth to design the unheld-word test
(search/retrieval/relevance.py); the fifth and sixth (short queries) were not used to choose anything.
Only corpora already loaded are used: this bench never loads any (``python -m bench.common load`` does).

Grid: every query is retrieved once through ``search.retrieval.pipeline.retrieve`` with
the floor off, and the lists it fuses are kept; each floor of the grid then drops
the vector hits beneath it and fuses again, as ``retrieve`` does with that floor.
A floor is acceptable when no corpus loses more than 0.005 nDCG@10 and no
answerable query is left without a result; of those, the one that empties the
most no-match queries is reported (then the lowest).

Served: the same queries through ``retrieve`` with the floor of
``search.retrieval.relevance.similarity_floor``: nDCG@10 per corpus, answerable queries
left empty, the share of no-match queries with no result, and the number of
results of answerable and unanswerable dev questions.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
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
MAX_NDCG_LOSS = 0.005
PLAIN_GRID = [0.78, 0.80, 0.82, 0.84, 0.86]  # least similarity of a vector hit
CENTRED_GRID = [0.0, 0.3, 0.35, 0.4, 0.45]  # least similarity of a language-centred hit
CONFIDENT_GRID = [0.84, 0.85, 0.86, 0.87]  # nearest chunk this close: the query means something
ALONE_GRID = [0.4, 0.5, 0.6]  # otherwise a keyword hit must hold this share of the query's words
WORDLESS_GRID = [-1.0, 0.87, 0.88, 0.9]  # confident from this, for a query no readable chunk shares a word with


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


# --- the lists retrieve fuses, kept once per query -------------------------------------


@dataclass
class Lists:
    keyword: list[Any]
    vector: list[Any]
    crosslang: list[Any]
    translated: list[Any]
    query_language: str
    text: str
    shares_words: bool  # made of the readable pages' words (search.retrieval.relevance.shares_words)
    off_topic_gap: float | None = None  # nearness to the handbook minus to the nearest everyday sentence
    unheld: bool = False  # a word of the query (typos corrected) is in no readable chunk (relevance.unheld_words)


def capture(text: str, user: Any) -> Lists:
    """``retrieve(text, user)`` with the floors off, stopped at fusion: the lists it would fuse."""
    from search.retrieval import pipeline as retrieval
    from search.retrieval import relevance
    from search.retrieval.fusion import RRF_K
    from search.retrieval.keyword import typo_corrected
    from search.retrieval.off_topic import off_topic_gap
    from search.statistics.scopes import reader_of

    seen: dict[str, Any] = {}
    real_fuse, real_floor = retrieval.fuse, retrieval.similarity_floor

    def keep(keyword, vector, k=RRF_K, crosslang=None, translated=None, vector_weight=None):  # type: ignore[no-untyped-def]
        seen.update(keyword=keyword, vector=vector, crosslang=crosslang or [], translated=translated or [])
        return real_fuse(keyword, vector, k, crosslang=crosslang, translated=translated, vector_weight=vector_weight)

    retrieval.fuse, retrieval.similarity_floor = keep, lambda model: relevance.NO_FLOOR
    try:
        result = retrieval.retrieve(text, user)
    finally:
        retrieval.fuse, retrieval.similarity_floor = real_fuse, real_floor
    keyword, translated = seen.get("keyword", []), seen.get("translated", [])
    reader = reader_of(user)
    words = typo_corrected(result.query, reader, result.query_language)
    gap = None
    vector = seen.get("vector", [])
    if vector and result.query_vector is not None and result.embedder is not None:
        nearest = 1.0 - (vector[0].vector_distance or 0.0)
        gap = off_topic_gap(nearest, result.query_vector, result.embedder)
    return Lists(
        keyword=keyword,
        vector=seen.get("vector", []),
        crosslang=seen.get("crosslang", []),
        translated=translated,
        query_language=result.query_language,
        text=result.query.raw,
        shares_words=relevance.shares_words(result.query.terms, bool(keyword or translated)),
        off_topic_gap=gap,
        unheld=bool(relevance.unheld_words(words.terms, reader, result.query_language)),
    )


def floored_pages(  # noqa: PLR0913 - one argument per floor of the grid
    lists: Lists,
    plain: float,
    centred: float,
    confident: float = -1.0,
    alone: float = 0.0,
    wordless: float = -1.0,
    off_topic: float | None = None,
) -> list[int]:
    """The page ids ``retrieve`` gives with these floors, from the lists it fused without them."""
    from search.retrieval.fusion import answer_elsewhere, fuse, without_weak_word_matches
    from search.retrieval.hits import ChunkHit
    from search.retrieval.keyword import KEYWORD_ALONE_COVERAGE
    from search.retrieval.off_topic import CLEARLY_OFF_TOPIC
    from search.retrieval.relevance import UNHELD_WORD_BAND

    vector = [h for h in lists.vector if 1.0 - (h.vector_distance or 0.0) >= plain]
    kept = [h for h in lists.crosslang if 1.0 - (h.vector_distance or 0.0) >= centred]
    crosslang = [
        ChunkHit(h.chunk_id, h.page_id, crosslang_rank=i + 1, language=h.language, vector_distance=h.vector_distance)
        for i, h in enumerate(kept)
    ]
    keyword, translated = lists.keyword, lists.translated
    nearest = 1.0 - (vector[0].vector_distance or 0.0) if vector else None
    least = confident if lists.shares_words else max(confident, wordless)
    is_confident = nearest is not None and nearest >= least
    if nearest is not None and off_topic is not None and lists.off_topic_gap is not None:
        is_confident = is_confident and lists.off_topic_gap >= off_topic
        if lists.unheld and lists.off_topic_gap < off_topic + UNHELD_WORD_BAND:
            is_confident = False  # as retrieve does: barely above the margin, with a word no page holds
        if lists.off_topic_gap < off_topic - CLEARLY_OFF_TOPIC:
            alone = 1.0  # as retrieve does: every word in one chunk
    if lists.vector and least > -1.0 and not is_confident:
        keyword = [
            ChunkHit(h.chunk_id, h.page_id, keyword_rank=i + 1)
            for i, h in enumerate(h for h in lists.keyword if (h.coverage or 0.0) >= alone - 1e-9)
        ]
        # A translated hit's coverage counts the words asked (a word left untranslated is missing).
        translated = [h for h in lists.translated if (h.coverage or 0.0) >= alone - 1e-9]
        if not keyword and not translated:
            return []
    weight = 0.0 if answer_elsewhere(crosslang, lists.query_language, lists.text) else None
    pages = fuse(keyword, vector, crosslang=crosslang, translated=translated, vector_weight=weight)
    if vector or crosslang:
        pages = without_weak_word_matches(pages, KEYWORD_ALONE_COVERAGE)
    return [p.page_id for p in pages]


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


OFF_TOPIC_GRID = [None, -0.02, -0.015, -0.0125, -0.01, -0.0075, -0.005, 0.0]  # off_topic.off_topic_gap


def _off_topic_sweep(  # type: ignore[no-untyped-def]
    runs, captured: dict[str, Lists], refs: dict[int, str], base_ndcg: dict[str, float], all_queries
) -> None:
    """The off-topic margin (search/retrieval/off_topic.py) swept at the configured floors."""
    from search.indexing.embedders import LOCAL_MODEL_NAME
    from search.retrieval.keyword import KEYWORD_ALONE_COVERAGE
    from search.retrieval.relevance import similarity_floor

    floor = similarity_floor(LOCAL_MODEL_NAME)
    rows = []
    for margin in OFF_TOPIC_GRID:
        alone = KEYWORD_ALONE_COVERAGE
        args = (floor.plain, floor.centred, floor.confident, alone, floor.wordless, margin)
        pages = {qid: floored_pages(lists, *args) for qid, lists in captured.items()}
        ndcg, empty, rate = score(runs, pages, refs)
        medians = [
            common.percentile([len(pages[q["qid"]]) for q in all_queries if test(q)], 50)
            for test in (
                lambda q: q.get("relevant"),
                lambda q: not q.get("relevant") and not q.get("no_match"),
            )
        ]
        worst = min((ndcg[k] - base_ndcg[k] for k in base_ndcg), default=0.0)
        held_out = [f"{held_out_share(runs, pages, name):.3f}" for name in HELD_OUT_FILES]
        rows.append(["off" if margin is None else margin, f"{worst:+.4f}", empty, f"{rate:.3f}", *held_out, *medians])
    print("\n### Off-topic margin at the configured floors\n")
    headers = ["margin", "worst nDCG@10 change", "answerable empty", "no-match with no result", *HELD_OUT_FILES]
    print(common.md_table([*headers, "median results, answerable", "median results, unanswerable"], rows))


def grid(runs: list[tuple[str, Any, list[dict[str, Any]]]], *, off_topic_only: bool = False) -> dict[str, Any]:
    refs = _refs()
    captured: dict[str, Lists] = {}
    started = time.perf_counter()
    for name, user, queries in runs:
        for q in queries:
            captured[q["qid"]] = capture(q["query"], user)
        print(f"  captured {name}: {len(queries)} queries ({time.perf_counter() - started:.0f} s)", flush=True)

    # The best similarity each query reaches: what the floors cut.
    def best(qid: str) -> float:
        return max((1.0 - (h.vector_distance or 0.0) for h in captured[qid].vector), default=float("nan"))

    all_queries = [q for _n, _u, queries in runs for q in queries]
    tops = {
        "answerable": [best(q["qid"]) for q in all_queries if q.get("relevant")],
        "unanswerable": [best(q["qid"]) for q in all_queries if not q.get("relevant") and not q.get("no_match")],
        "no-match": [best(q["qid"]) for q in all_queries if q.get("no_match")],
    }
    for label, values in tops.items():
        values = [v for v in values if v == v]
        if values:
            print(
                f"best plain similarity, {label}: p5 {common.percentile(values, 5):.3f} "
                f"median {common.percentile(values, 50):.3f} p95 {common.percentile(values, 95):.3f}",
                flush=True,
            )
    base_pages = {qid: floored_pages(lists, -1.0, -1.0) for qid, lists in captured.items()}
    base_ndcg, base_empty, base_rate = score(runs, base_pages, refs)
    _off_topic_sweep(runs, captured, refs, base_ndcg, all_queries)
    if off_topic_only:
        return {}
    results = []
    for plain in PLAIN_GRID:
        for centred in CENTRED_GRID:
            for confident, wordless in itertools.product(CONFIDENT_GRID, WORDLESS_GRID):
                for alone in ALONE_GRID:
                    pages = {
                        qid: floored_pages(lists, plain, centred, confident, alone, wordless)
                        for qid, lists in captured.items()
                    }
                    ndcg, empty, rate = score(runs, pages, refs)
                    worst = min((ndcg[k] - base_ndcg[k] for k in base_ndcg), default=0.0)
                    counts = {
                        label: common.percentile([len(pages[q["qid"]]) for q in group], 50) if group else float("nan")
                        for label, group in (
                            ("answerable", [q for q in all_queries if q.get("relevant") and "source_qid" not in q]),
                            (
                                "unanswerable",
                                [q for q in all_queries if not q.get("relevant") and not q.get("no_match")],
                            ),
                        )
                    }
                    results.append(
                        {
                            "plain": plain,
                            "centred": centred,
                            "confident": confident,
                            "wordless": wordless,
                            "alone": alone,
                            "worst_loss": worst,
                            "empty": empty,
                            "no_match": rate,
                            "ndcg": ndcg,
                            "median_results": counts,
                        }
                    )
    ok = [r for r in results if r["worst_loss"] >= -MAX_NDCG_LOSS and r["empty"] <= base_empty]
    best = max(
        ok,
        key=lambda r: (r["no_match"], -r["confident"], -r["wordless"], -r["alone"], -r["plain"], -r["centred"]),
        default=None,
    )
    # The best row of each (confident, wordless, alone): what each triple can reach.
    shown: dict[tuple[float, float, float], dict[str, Any]] = {}
    for r in results:
        key = (r["confident"], r["wordless"], r["alone"])
        if key not in shown or (r["worst_loss"], r["no_match"]) > (shown[key]["worst_loss"], shown[key]["no_match"]):
            shown[key] = r
    rows = [
        (
            r["plain"],
            r["centred"],
            r["confident"],
            r["wordless"],
            r["alone"],
            r["worst_loss"],
            r["empty"],
            f"{100 * r['no_match']:.0f}%",
        )
        for r in shown.values()
    ]
    common.section(
        "Floor grid (lists captured without floors, floors applied before fusion)",
        common.md_table(
            (
                "plain floor",
                "centred floor",
                "confident",
                "confident, no shared word",
                "words alone: coverage",
                "worst nDCG@10 change",
                "answerable empty",
                "no-match empty",
            ),
            rows,
        ),
        f"no floor: answerable empty {base_empty}, no-match empty {100 * base_rate:.0f}%; "
        f"nDCG@10 {', '.join(f'{k} {v:.3f}' for k, v in base_ndcg.items())}",
    )
    print(f"\nchosen: {best}", flush=True)
    return {"baseline": {"ndcg": base_ndcg, "empty": base_empty, "no_match": base_rate}, "grid": results, "best": best}


def served(runs: list[tuple[str, Any, list[dict[str, Any]]]]) -> dict[str, Any]:
    """The queries through ``retrieve`` as served (the configured floor)."""
    from search.retrieval.pipeline import retrieve
    from search.retrieval.relevance import similarity_floor

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
    common.section("Served floor: nDCG@10 per corpus", common.md_table(("file corpus", "nDCG@10"), rows))
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
        "Served floor: results per dev question (dev.jsonl + dev-handbooks.jsonl, then each file)",
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
    from search.indexing.model_switch import query_embedder as serving

    embedder = serving()
    floor = similarity_floor(embedder.model_name) if embedder else None
    print(f"floor: {floor}", flush=True)
    return {
        "ndcg": ndcg,
        "empty": empty,
        "no_match": rate,
        **{f"no_match_{name}_set": share for name, share in held_out.items()},
        "counts": counts,
        "floor": str(floor),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.no_match", description=__doc__.split("\n\n")[0])
    parser.add_argument("--grid-only", action="store_true")
    parser.add_argument("--served-only", action="store_true")
    parser.add_argument("--off-topic-only", action="store_true", help="the off-topic margin sweep alone")
    parser.add_argument("--partial", action="store_true", help="also corpora still loading (indexed pages only)")
    args = parser.parse_args(argv)
    common.setup(migrate=False)
    common.refresh_index_statistics()  # as the sweep keeps them: IDF, and the vocabulary typos are corrected from
    runs = users_and_queries(args.partial)
    out: dict[str, Any] = {}
    if args.off_topic_only:
        grid(runs, off_topic_only=True)
        return
    if not args.served_only:
        out["grid"] = grid(runs)
    if not args.grid_only:
        out["served"] = served(runs)
    common.write_results(
        "no_match_grid" if args.grid_only else "no_match_served" if args.served_only else "no_match", out
    )


if __name__ == "__main__":
    main(sys.argv[1:])
