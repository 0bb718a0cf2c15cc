"""Search benchmarks: quality, cross-language, latency by stage, vector recall by selectivity.

    python -m bench.search quality            # dev.jsonl + dev-handbooks.jsonl + dev-crosslang.jsonl
    python -m bench.search scale --size 10k   # latency + vector recall at ~10k chunks
    python -m bench.search scale --size 100k  # the same at ~100k chunks (synthetic vectors, see below)
    python -m bench.search scale --size 1m    # and at ~1M (one-off build ~25 min on 2 cores)

Quality: every system answers every query of an eval file as the user of that
file (see ``bench/common.py``: the user reads exactly the corpora of the file;
"search everything the user may read"), and each query is scored against its own
corpus. keyword / vector / hybrid go through ``search.retrieval.pipeline.retrieve`` (the
product's one query path); the two references rank the same pages (title +
body, accent-folded, OR of the query words, no stemming): SQLite FTS5 ``bm25()``
and a plain-Python BM25 (k1 = 1.2, b = 0.75).

Scale: separate databases on the bench server (``bench_scale_10k``,
``bench_scale_100k``), built once from the loaded corpora: the real chunks
(text, tsvector and vectors copied as they are) and, for 100k, chunks of the
GitLab and Sourcegraph handbooks made by the product's chunker, inserted with
COPY, with ``search_vector`` computed in SQL exactly as ``search/indexing/pipeline.py``
does. Their vectors are SYNTHETIC: a real chunk vector picked at random, plus up to
half of another one and Gaussian noise (sigma 0.02 per dimension), normalised (noise
alone made clusters of near-copies that no real handbook has, see ``MIX_MAX``).
Pages are dealt at random into three spaces holding ~1 %, ~9 % and ~90 % of the chunks,
read by three users who see ~1 %, ~10 % and 100 %.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import math
import re
import sqlite3
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

if __package__ != "bench":  # `python bench/search.py` would shadow the `search` app with this file
    raise SystemExit("run as: python -m bench.search ...")

from bench import common  # noqa: E402
from bench.synthetic_vectors import Mixture  # noqa: E402

MODES: dict[str, dict[str, bool]] = {
    "keyword": {"use_vectors": False, "cross_language": False},  # the keyword leg alone
    "vector": {"use_keywords": False},
    "hybrid": {},
}


def _modes() -> dict[str, dict[str, bool]]:
    """The product's modes, plus hybrid without its cross-language leg where retrieve() has that switch."""
    import inspect

    from search.retrieval.pipeline import retrieve

    modes = dict(MODES)
    if "cross_language" in inspect.signature(retrieve).parameters:
        modes["hybrid, no x-lang leg"] = {"cross_language": False}
        # The keyword leg plus the query translated word by word (no vectors in the ranking).
        modes["keyword + translated words"] = {"use_vectors": False}
    else:
        modes["keyword"] = {"use_vectors": False}
    return modes


_WORD = re.compile(r"[0-9a-z]+")


# --- reference rankers: SQLite FTS5 and plain BM25 over the same pages ----------------------


def _tokens(text: str) -> list[str]:
    from core.text import fold_accents

    return _WORD.findall(fold_accents(text).lower())


class Fts5Index:
    """SQLite FTS5, unicode61 remove_diacritics, accent-folded title + body, ``bm25()`` ranking."""

    name = "fts5-bm25"

    def __init__(self, docs: Sequence[tuple[str, str, str]]) -> None:
        from core.text import fold_accents

        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE docs USING fts5(ref UNINDEXED, title, body, "
            "tokenize = 'unicode61 remove_diacritics 2')"
        )
        self.db.executemany(
            "INSERT INTO docs (ref, title, body) VALUES (?, ?, ?)",
            [(ref, fold_accents(title), fold_accents(body)) for ref, title, body in docs],
        )

    def search(self, query: str, k: int = common.K) -> list[str]:
        terms = list(dict.fromkeys(_tokens(query)))
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        rows = self.db.execute(
            "SELECT ref FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid LIMIT ?", (match, k)
        ).fetchall()
        return [r[0] for r in rows]


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + .5) / (df + .5))), one field: title + body."""

    name = "bm25-python"

    def __init__(self, docs: Sequence[tuple[str, str, str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.refs = [ref for ref, _t, _b in docs]
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.lengths: list[int] = []
        for i, (_ref, title, body) in enumerate(docs):
            tokens = _tokens(title + "\n" + body)
            self.lengths.append(len(tokens))
            for term, tf in Counter(tokens).items():
                self.postings[term].append((i, tf))
        self.avgdl = sum(self.lengths) / max(1, len(self.lengths))

    def search(self, query: str, k: int = common.K) -> list[str]:
        n = len(self.refs)
        scores: dict[int, float] = defaultdict(float)
        for term in dict.fromkeys(_tokens(query)):
            postings = self.postings.get(term)
            if not postings:
                continue
            idf = math.log(1 + (n - len(postings) + 0.5) / (len(postings) + 0.5))
            for doc, tf in postings:
                norm = self.k1 * (1 - self.b + self.b * self.lengths[doc] / self.avgdl)
                scores[doc] += idf * tf * (self.k1 + 1) / (tf + norm)
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return [self.refs[doc] for doc, _s in best]


# --- quality ------------------------------------------------------------------------------


def _product_runs(
    queries: Sequence[dict[str, Any]], user: Any, refs: dict[int, str]
) -> dict[str, dict[str, list[str]]]:
    from search.retrieval.pipeline import retrieve

    runs: dict[str, dict[str, list[str]]] = {}
    for mode, options in _modes().items():
        ranked: dict[str, list[str]] = {}
        started = time.perf_counter()
        for q in queries:
            result = retrieve(q["query"], user, **options)
            ranked[q["qid"]] = common.first_k(refs[p.page_id] for p in result.pages)
        runs[mode] = ranked
        print(f"  {mode}: {len(queries)} queries in {time.perf_counter() - started:.1f} s", flush=True)
    return runs


def _visible_docs(user: Any) -> list[tuple[str, str, str, str]]:
    """(ref, title, body, corpus) of every page the user may read: the references rank exactly these."""
    from handbook.models import Page

    return list(Page.objects.visible_to(user).order_by("id").values_list("ref", "title", "body", "space__slug"))


def _reference_runs(
    queries: Sequence[dict[str, Any]], docs: Sequence[tuple[str, str, str, str]]
) -> dict[str, dict[str, list[str]]]:
    triples = [(ref, title, body) for ref, title, body, _c in docs]
    runs: dict[str, dict[str, list[str]]] = {}
    for ranker in (Fts5Index(triples), BM25(triples)):
        runs[ranker.name] = {q["qid"]: ranker.search(q["query"]) for q in queries}
    # The eval README's reference numbers are BM25 over the query's own corpus alone: the same, per corpus.
    own: dict[str, BM25] = {}
    ranked: dict[str, list[str]] = {}
    for q in queries:
        if q["corpus"] not in own:
            own[q["corpus"]] = BM25([(r, t, b) for r, t, b, c in docs if c == q["corpus"]])
        ranked[q["qid"]] = own[q["corpus"]].search(q["query"])
    runs["bm25-python (own corpus only)"] = ranked
    return runs


def _chunk_bm25_run(queries: Sequence[dict[str, Any]], user: Any) -> dict[str, list[str]]:
    """Diagnostic: BM25 over the product's chunks (title + heading + text), a page scored as its best chunk.

    Same granularity and page scoring as the keyword leg, but with IDF: tells a chunking problem
    from a ranking-function problem.
    """
    from handbook.models import Page
    from search.models import Chunk

    rows = Chunk.objects.filter(page__in=Page.objects.visible_to(user)).order_by("page_id", "ordinal")
    ranker = BM25(
        [
            (ref, title, f"{heading}\n{text}")
            for ref, title, heading, text in rows.values_list("page__ref", "page__title", "heading", "text")
        ]
    )
    return {q["qid"]: common.first_k(ranker.search(q["query"], k=300)) for q in queries}


SYSTEMS = (
    "keyword",
    "keyword + translated words",
    "vector",
    "hybrid",
    "hybrid, no x-lang leg",
    "fts5-bm25",
    "bm25-python",
    "bm25-python (own corpus only)",
    "bm25-python chunks (diagnostic)",
)


def quality(files: Sequence[str] = ("dev.jsonl", "dev-handbooks.jsonl")) -> None:
    common.setup()
    common.ensure_corpora([c for name in files for c in common.SCOPES[common.EVAL_FILES[name]]])
    common.refresh_index_statistics()
    from django.contrib.auth.models import User

    from handbook.models import Page

    refs = dict(Page.objects.values_list("id", "ref"))
    out: dict[str, Any] = {
        "files": {},
        "choice": "each eval file searched as a user reading exactly its corpora; "
        "each query scored against its own corpus",
    }
    rows = []
    all_runs: dict[str, dict[str, dict[str, list[str]]]] = {}
    for name in files:
        scope = common.EVAL_FILES[name]
        user = User.objects.get(username=scope)
        queries = common.load_queries(name)
        docs = _visible_docs(user)
        print(f"\n{name}: {len(queries)} queries as {scope!r} ({len(docs)} visible pages)", flush=True)
        runs = {**_product_runs(queries, user, refs), **_reference_runs(queries, docs)}
        runs["bm25-python chunks (diagnostic)"] = _chunk_bm25_run(queries, user)
        all_runs[name] = runs
        systems = [system for system in SYSTEMS if system in runs]
        scores = {system: common.score_run(queries, runs[system]) for system in systems}
        out["files"][name] = {
            "user": scope,
            "visible_pages": len(docs),
            "scores": scores,
            "unanswerable": sum(1 for q in queries if not q.get("relevant")),
            "runs": runs,
        }
        for corpus in dict.fromkeys(q["corpus"] for q in queries):
            for system in systems:
                s = scores[system][corpus]
                rows.append((corpus, system, s["queries"], s["ndcg@10"], s["recall@10"], s["empty"]))
    common.section(
        "Quality (page level, macro per corpus, answerable queries)",
        common.md_table(("corpus", "system", "queries", "nDCG@10", "Recall@10", "empty lists"), rows),
        "keyword / vector / hybrid = search.retrieval.pipeline.retrieve as the file's bench user ('no x-lang leg': "
        "cross_language=False); fts5-bm25 and "
        "bm25-python rank the same visible pages; 'own corpus only' = BM25 over the query's corpus alone "
        "(the eval README's reference setting); 'chunks (diagnostic)' = BM25 over the product's chunks, a page "
        "scored as its best chunk (the keyword leg's granularity, with IDF). 'empty lists' = answerable "
        "queries with no result at all.",
    )
    common.write_results("search_quality" if len(files) == 2 else "search_quality_partial", out)
    if "dev-handbooks.jsonl" in all_runs:
        crosslang(all_runs["dev-handbooks.jsonl"], refs)


def crosslang(native_runs: dict[str, dict[str, list[str]]], refs: dict[int, str]) -> None:
    """Translated queries vs their native originals, the three handbooks in one instance."""
    from django.contrib.auth.models import User

    from handbook.models import Page

    user = User.objects.get(username=common.EVAL_FILES["dev-crosslang.jsonl"])
    queries = common.load_queries("dev-crosslang.jsonl")
    natives = {q["qid"]: q for q in common.load_queries("dev-handbooks.jsonl")}
    page_lang = dict(
        Page.objects.filter(space__slug__in=common.SCOPES["bench-handbooks"])
        .values_list("space__slug", "language")
        .distinct()
    )
    print(f"\ndev-crosslang.jsonl: {len(queries)} queries as {user.username!r}", flush=True)
    docs = _visible_docs(user)
    translated = _product_runs(queries, user, refs)
    fts = Fts5Index([(r, t, b) for r, t, b, _c in docs])
    translated["fts5-bm25"] = {q["qid"]: fts.search(q["query"]) for q in queries}
    systems = [
        s
        for s in ("keyword", "keyword + translated words", "vector", "hybrid", "hybrid, no x-lang leg", "fts5-bm25")
        if s in translated
    ]

    ref_lang = dict(Page.objects.values_list("ref", "language"))
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for q in queries:
        direction = f"{page_lang.get(q['corpus'], '?')}→{q['lang']}-asked"
        groups[(direction, q["corpus"])].append(q)
    rows, out = [], {"groups": {}, "runs": translated}
    for (direction, corpus), group in sorted(groups.items()):
        native_queries = [{**natives[q["source_qid"]], "qid": q["qid"]} for q in group]
        for system in systems:
            nat = {q["qid"]: native_runs[system].get(q["source_qid"], []) for q in group}
            n_score = common.score_run(native_queries, nat)[corpus]
            t_score = common.score_run(group, translated[system])[corpus]
            same_lang = common.mean(
                sum(ref_lang.get(r) == q["lang"] for r in translated[system][q["qid"]])
                / max(1, len(translated[system][q["qid"]]))
                for q in group
            )
            t_score["top10_in_query_language"] = same_lang
            rows.append(
                (
                    direction,
                    corpus,
                    system,
                    t_score["queries"],
                    n_score["ndcg@10"],
                    t_score["ndcg@10"],
                    t_score["ndcg@10"] - n_score["ndcg@10"],
                    t_score["recall@10"],
                    f"{100 * same_lang:.0f}%",
                    t_score["empty"],
                )
            )
            out["groups"].setdefault(f"{direction} {corpus}", {})[system] = {"native": n_score, "translated": t_score}
    common.section(
        "Cross-language (three handbooks in one instance, search everything the user may read)",
        common.md_table(
            (
                "direction",
                "corpus",
                "system",
                "queries",
                "native nDCG@10",
                "translated nDCG@10",
                "Δ",
                "translated R@10",
                "top 10 in query lang",
                "empty",
            ),
            rows,
        ),
        "'en→fr-asked' = English pages found from French questions. native = the same question in the "
        "corpus language (dev-handbooks.jsonl, same relevant pages). 'top 10 in query lang' = share of the "
        "translated query's top 10 pages written in the query's language (all of them are wrong answers).",
    )
    common.write_results("search_crosslang", out)


# --- scale: latency and vector recall -----------------------------------------------------

SIZES = {"10k": 0, "100k": 100_000, "1m": 1_000_000}  # 0: the real chunks only
BUCKETS = (("scale-a", 0.01), ("scale-b", 0.09), ("scale-c", None))  # space, share of chunks (rest)
BUCKET_USERS = (
    ("1%", "scale-1pct", "scale-1"),
    ("10%", "scale-10pct", "scale-10"),
    ("100%", "scale-100pct", "scale-100"),
)
SYNTH_SOURCES = ("gitlab-handbook", "sourcegraph-handbook")
# Synthetic vectors: bench/synthetic_vectors.py (a Gaussian mixture fitted to the real ones). Version 1
# (a real vector plus noise) and 2 (mixed with a second one) made clusters of near-copies at 1M chunks.
VECTORS_VERSION = 3  # a scale database built with other synthetic vectors is rebuilt
SEED = 20260


def _scale_db(size: str) -> str:
    return f"bench_scale_{size}"


def _main_conn():  # type: ignore[no-untyped-def]
    import psycopg

    return psycopg.connect(common.database_url())


def _as_array(value: Any) -> Any:
    import numpy as np

    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


def _main_chunk_count() -> int:
    with _main_conn() as main:
        return main.execute(
            "SELECT count(*) FROM search_chunk c JOIN handbook_page p ON p.id = c.page_id "
            "JOIN handbook_space s ON s.id = p.space_id WHERE s.slug = ANY(%s) AND p.status = 'published' "
            "AND p.deleted_at IS NULL",
            [list(common.ALL_CORPORA)],
        ).fetchone()[0]


def _index_defs() -> list[tuple[str, str]]:
    """The big indexes of search_chunk, as the migrations create them (dropped for bulk loading)."""
    import importlib

    hnsw = importlib.import_module("search.migrations.0002_chunk_hnsw").SQL
    partition_hnsw = importlib.import_module("search.migrations.0009_chunk_language_indexes")
    return [
        *(
            (
                f"chunk_search_vector_{name}",
                f"CREATE INDEX chunk_search_vector_{name} ON search_chunk USING gin (search_vector) WHERE {where}",
            )
            for name, where in (
                ("en", "language = 'en'"),
                ("fr", "language = 'fr'"),
                ("other", "NOT (language IN ('en', 'fr'))"),
            )
        ),
        ("chunk_embedding_hnsw_384", hnsw),
        *(
            (f"chunk_embedding_hnsw_384_{language}", partition_hnsw._hnsw_sql(language))
            for language in partition_hnsw.LANGUAGES
        ),
    ]


def build_scale(size: str) -> dict[str, Any]:
    """Fill the scale database (once): real chunks copied from the bench instance, + synthetic ones."""
    from django.contrib.auth.models import Group
    from django.db import connection

    from handbook.services import space_create

    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS bench_scale_meta (key text PRIMARY KEY, value jsonb)")
        cursor.execute("SELECT value FROM bench_scale_meta WHERE key = 'built'")
        row = cursor.fetchone()
    if row:
        meta = row[0] if isinstance(row[0], dict) else json.loads(row[0])
        if meta.get("real_chunks") == _main_chunk_count() and meta.get("vectors_version", 1) == VECTORS_VERSION:
            return meta
        print(f"{_scale_db(size)} is stale (corpora or synthetic vectors changed): rebuilding", flush=True)
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM bench_scale_meta")

    import numpy as np

    started = time.monotonic()
    groups = {name: Group.objects.get_or_create(name=name)[0] for _l, _u, name in BUCKET_USERS}
    spaces = {
        "scale-a": space_create(slug="scale-a", title="Scale A", viewer_groups=list(groups.values())),
        "scale-b": space_create(
            slug="scale-b", title="Scale B", viewer_groups=[groups["scale-10"], groups["scale-100"]]
        ),
        "scale-c": space_create(slug="scale-c", title="Scale C", viewer_groups=[groups["scale-100"]]),
    }
    for _label, username, group in BUCKET_USERS:
        common.bench_user(username, [group])
    default_space = spaces["scale-c"].pk

    from pgvector.psycopg import register_vector

    with _main_conn() as main, connection.cursor() as cursor:
        register_vector(main)
        cursor.execute("TRUNCATE search_chunk, handbook_revision, handbook_page CASCADE")
        _default_unfilled_columns(cursor)
        saved_indexes = _index_defs()
        for name, _def in saved_indexes:
            cursor.execute(f"DROP INDEX IF EXISTS {name}")
        # 1. real pages and chunks, as they are in the bench instance.
        pages_sql = (
            "SELECT p.id FROM handbook_page p JOIN handbook_space s ON s.id = p.space_id "
            "WHERE s.slug = ANY(%s) AND p.status = 'published' AND p.deleted_at IS NULL"
        )
        with main.cursor() as src:
            src.execute(
                f"SELECT id, ref, title, language FROM handbook_page WHERE id IN ({pages_sql})",
                [list(common.ALL_CORPORA)],
            )
            real_pages = src.fetchall()
        _copy_pages(cursor, [(pid, ref, title, lang) for pid, ref, title, lang in real_pages], default_space)
        columns = (
            "id, page_id, revision_id, ordinal, heading, anchor, text, language, content_hash, "
            "search_vector, embedding, embedding_model, embedded_at, created_at"
        )
        raw = cursor.connection  # psycopg connection of Django's cursor
        with (
            main.cursor() as src,
            src.copy(
                f"COPY (SELECT {columns.replace('revision_id', 'page_id')} FROM search_chunk "
                f"WHERE page_id IN ({pages_sql})) TO STDOUT",
                [list(common.ALL_CORPORA)],
            ) as out_copy,
            raw.cursor().copy(f"COPY search_chunk ({columns}) FROM STDIN") as in_copy,
        ):
            for block in out_copy:
                in_copy.write(block)
        cursor.execute("SELECT count(*), max(id), min(embedding_model) FROM search_chunk")
        real_chunks, max_chunk_id, model = cursor.fetchone()
        synthetic = 0
        # 2. synthetic chunks up to the target: real text of other handbooks, perturbed real vectors.
        target = SIZES[size]
        if target > real_chunks:
            with main.cursor() as src:
                src.execute(
                    f"SELECT embedding FROM search_chunk WHERE embedding IS NOT NULL AND page_id IN ({pages_sql})",
                    [list(common.ALL_CORPORA)],
                )
                base = np.stack([_as_array(r[0]) for r in src.fetchall()])
            synthetic = _insert_synthetic(
                cursor,
                raw,
                base,
                target - real_chunks,
                max_chunk_id,
                max(p[0] for p in real_pages),
                model,
                default_space,
            )
        # 3. indexes rebuilt in bulk (faster than row by row), then statistics.
        # An HNSW graph built in memory is several times faster than one spilled (~2 GB per million).
        cursor.execute(f"SET maintenance_work_mem = '{max(1, SIZES[size] // 300_000)}GB'")
        for name, definition in saved_indexes:
            t = time.monotonic()
            cursor.execute(definition)
            print(f"  index {name} built in {time.monotonic() - t:.0f} s", flush=True)
        buckets = _deal_buckets(cursor, spaces)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE search_chunk")
        cursor.execute("ANALYZE handbook_page")
        meta = {
            "size": size,
            "real_chunks": real_chunks,
            "synthetic_chunks": synthetic,
            "total_chunks": real_chunks + synthetic,
            "buckets": buckets,
            "synthetic_sources": list(SYNTH_SOURCES) if synthetic else [],
            "vectors": (
                "real (local model)"
                if not synthetic
                else f"{real_chunks} real + {synthetic} SYNTHETIC, drawn from a Gaussian mixture fitted to the real"
                " vectors (bench/synthetic_vectors.py)"
            ),
            "vectors_version": VECTORS_VERSION,
            "build_s": round(time.monotonic() - started, 1),
        }
        cursor.execute("INSERT INTO bench_scale_meta VALUES ('built', %s)", [json.dumps(meta)])
    print(f"built {_scale_db(size)}: {meta}", flush=True)
    return meta


def _default_unfilled_columns(cursor: Any) -> None:
    """Give NOT NULL columns this bench does not fill (added by later migrations) their model default."""
    defaults = {
        "character varying": "''",
        "text": "''",
        "boolean": "false",
        "integer": "0",
        "bigint": "0",
        "smallint": "0",
    }
    for table in ("search_chunk", "handbook_page", "handbook_revision"):
        cursor.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = %s "
            "AND is_nullable = 'NO' AND column_default IS NULL AND column_name <> 'id'",
            [table],
        )
        for column, data_type in cursor.fetchall():
            if data_type in defaults and not column.endswith("_id"):
                cursor.execute(f'ALTER TABLE {table} ALTER COLUMN "{column}" SET DEFAULT {defaults[data_type]}')


def _copy_pages(cursor: Any, pages: Sequence[tuple[int, str, str, str]], space_id: int) -> None:
    """Pages and one revision each (id = page id), published; bodies are not needed by retrieval."""
    raw = cursor.connection
    with raw.cursor().copy(
        "COPY handbook_page (id, ref, title, slug, language, body, status, created_at, updated_at, space_id) FROM STDIN"
    ) as copy:
        for pid, ref, title, lang in pages:
            copy.write_row((pid, ref[:500], title[:300], f"p{pid}", lang, "", "published", "now", "now", space_id))
    with raw.cursor().copy(
        "COPY handbook_revision (id, number, title, body, note, created_at, page_id) FROM STDIN"
    ) as copy:
        for pid, _ref, title, _lang in pages:
            copy.write_row((pid, 1, title[:300], "", "bench", "now", pid))
    ids = [p[0] for p in pages]
    cursor.execute("UPDATE handbook_page SET published_revision_id = id WHERE id = ANY(%s)", [ids])
    cursor.execute("SELECT setval(pg_get_serial_sequence('handbook_page', 'id'), (SELECT max(id) FROM handbook_page))")
    cursor.execute(
        "SELECT setval(pg_get_serial_sequence('handbook_revision', 'id'), (SELECT max(id) FROM handbook_revision))"
    )


def _synthetic_pages(need: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """Pages of the other handbooks, then again with 'copy2:', 'copy3:'… ref prefixes, until the
    caller has the chunks it needs (it stops iterating)."""
    items = [item for source in SYNTH_SOURCES for item in common.read_jsonl(common.CORPORA / f"{source}.jsonl")]
    for copy in itertools.count(1):
        for item in items:
            yield ("" if copy == 1 else f"copy{copy}:"), item


def _insert_synthetic(
    cursor: Any, raw: Any, base: Any, need: int, max_chunk_id: int, max_page_id: int, model: str, space_id: int
) -> int:
    import numpy as np

    from core.text import fold_accents
    from handbook.models import text_search_config
    from search.indexing.chunking import chunk_markdown

    mixture = Mixture(base, np.random.default_rng(SEED))
    t = time.monotonic()
    cursor.execute(
        "CREATE TEMP TABLE bench_stage (id bigint, page_id bigint, ordinal int, heading text, "
        "anchor text, text text, language text, content_hash text, embedding text, config text, "
        "title_f text, heading_f text, text_f text)"
    )
    pages: list[tuple[int, str, str, str]] = []
    seen: set[str] = set()
    drafts_of: dict[str, Any] = {}
    made, page_id, chunk_id = 0, max_page_id, max_chunk_id
    with raw.cursor().copy("COPY bench_stage FROM STDIN") as copy:
        for prefix, item in _synthetic_pages(need):
            if made >= need:
                break
            ref = (prefix + item["id"])[:500]
            if ref in seen or not item.get("title", "").strip():
                continue
            seen.add(ref)
            if item["id"] not in drafts_of:  # a copy of a page has the same chunks: chunked once
                drafts_of[item["id"]] = chunk_markdown(item.get("body") or "")
            drafts = drafts_of[item["id"]]
            if not drafts:
                continue
            page_id += 1
            lang = (item.get("lang") or "en")[:2]
            title = item["title"].strip()[:300]
            pages.append((page_id, ref, title, lang))
            vectors = mixture.take(len(drafts))
            config, title_f = text_search_config(lang), fold_accents(title)
            for draft, vector in zip(drafts, vectors, strict=True):
                chunk_id += 1
                copy.write_row(
                    (
                        chunk_id,
                        page_id,
                        draft.ordinal,
                        draft.heading,
                        draft.anchor[:300],
                        draft.text,
                        lang,
                        draft.content_hash,
                        "[" + ",".join(f"{x:.6f}" for x in vector) + "]",
                        config,
                        title_f,
                        fold_accents(draft.heading),
                        fold_accents(draft.text),
                    )
                )
            made += len(drafts)
    print(
        f"  chunked and staged {made} synthetic chunks of {len(pages)} pages in {time.monotonic() - t:.0f} s",
        flush=True,
    )
    _copy_pages(cursor, pages, space_id)
    t = time.monotonic()
    # The same weighting as search/indexing/pipeline.py::_write_search_vectors: title A, heading path B, body D.
    cursor.execute(
        """
        INSERT INTO search_chunk (id, page_id, revision_id, ordinal, heading, anchor, text, language, content_hash,
                                  search_vector, embedding, embedding_model, embedded_at, created_at)
        SELECT id, page_id, page_id, ordinal, heading, anchor, text, language, content_hash,
               setweight(to_tsvector(config::regconfig, title_f), 'A')
               || setweight(to_tsvector(config::regconfig, heading_f), 'B')
               || setweight(to_tsvector(config::regconfig, text_f), 'D'),
               embedding::vector, %s, now(), now()
        FROM bench_stage
        """,
        [model],
    )
    cursor.execute("DROP TABLE bench_stage")
    cursor.execute("SELECT setval(pg_get_serial_sequence('search_chunk', 'id'), (SELECT max(id) FROM search_chunk))")
    print(f"  inserted with to_tsvector in {time.monotonic() - t:.0f} s", flush=True)
    return made


def _deal_buckets(cursor: Any, spaces: dict[str, Any]) -> dict[str, Any]:
    """Deal pages at random into the three spaces so they hold ~1 %, ~9 % and the rest of the chunks."""
    import random

    cursor.execute("SELECT page_id, count(*) FROM search_chunk GROUP BY page_id ORDER BY page_id")
    counts = cursor.fetchall()
    total = sum(n for _p, n in counts)
    random.Random(SEED).shuffle(counts)
    assigned: dict[str, list[int]] = {slug: [] for slug, _share in BUCKETS}
    filled = {slug: 0 for slug, _share in BUCKETS}
    for page_id, n in counts:
        for slug, share in BUCKETS:
            if share is None or filled[slug] + n <= share * total * 1.05 and filled[slug] < share * total:
                assigned[slug].append(page_id)
                filled[slug] += n
                break
    for slug, ids in assigned.items():
        cursor.execute("UPDATE handbook_page SET space_id = %s WHERE id = ANY(%s)", [spaces[slug].pk, ids])
    return {
        slug: {"pages": len(assigned[slug]), "chunks": filled[slug], "share": filled[slug] / total} for slug in assigned
    }


def _queries_for_scale() -> list[str]:
    texts = [
        q["query"]
        for name in ("dev.jsonl", "dev-handbooks.jsonl", "dev-crosslang.jsonl")
        for q in common.load_queries(name)
    ]
    return list(dict.fromkeys(texts))


def _clear_query_cache(texts: Sequence[str], model: str, owners: Sequence[Any] = (None,)) -> None:
    from django.core.cache import cache

    from search.retrieval.query_embedding import cache_key

    cache.delete_many([cache_key(t, model, owner) for t in texts for owner in owners])


def _stats(values: Sequence[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values]
    return {
        "n": len(ms),
        "p50_ms": common.percentile(ms, 50),
        "p95_ms": common.percentile(ms, 95),
        "mean_ms": common.mean(ms),
    }


def _timed_runs(texts: Sequence[str], user: Any, **kwargs: Any) -> dict[str, list[float]]:
    from search.retrieval.pipeline import retrieve

    stages: dict[str, list[float]] = defaultdict(list)
    started = time.perf_counter()
    for text in texts:
        result = retrieve(text, user, **kwargs)
        for stage, seconds in result.timings.items():
            stages[stage].append(seconds)
    options = ", ".join(f"{k}={v}" for k, v in kwargs.items())
    print(
        f"  {len(texts)} queries as {user.username} ({options or 'hybrid'}): {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return stages


WARM_ROUNDS = 3  # passes of the cached-embedding and keyword-only timings (p95 over 3 x the queries)


def _paired_runs(
    texts: Sequence[str], user: Any, rounds: int = WARM_ROUNDS
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Hybrid and keyword-only timings, each query run both ways back to back, ``rounds`` times.

    The keyword-only reference then sees the same machine state as the hybrid search it is
    compared with (one pass after the other drifted apart by more than the effect measured).
    """
    from search.retrieval.pipeline import retrieve

    hybrid: dict[str, list[float]] = defaultdict(list)
    keyword_only: dict[str, list[float]] = defaultdict(list)
    started = time.perf_counter()
    for _round in range(rounds):
        for text in texts:
            for stages, kwargs in ((hybrid, {}), (keyword_only, {"use_vectors": False, "cross_language": False})):
                for stage, seconds in retrieve(text, user, **kwargs).timings.items():
                    stages[stage].append(seconds)
    print(
        f"  {len(texts)} queries x {rounds} as {user.username}, hybrid and keyword only in turn: "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return hybrid, keyword_only


def latency(size: str, texts: Sequence[str], meta: dict[str, Any]) -> dict[str, Any]:
    from django.contrib.auth.models import User

    from search.embedding.embedders import get_embedder
    from search.retrieval.pipeline import retrieve

    embedder = get_embedder()
    assert embedder is not None
    embedder.embed_query("warm-up: load the model before timing")
    users = {label: User.objects.get(username=username) for label, username, _g in BUCKET_USERS}
    everyone = users["100%"]
    retrieve("warm up the connection and caches", everyone)

    from search.retrieval.query_embedding import query_embedding

    # The model alone, one query at a time (in a search it shares the CPUs with the keyword leg).
    _clear_query_cache(texts, embedder.model_name)
    alone = []
    for text in texts:
        t = time.perf_counter()
        query_embedding(text, embedder)
        alone.append(time.perf_counter() - t)
    _timed_runs(texts, everyone)  # one pass first: the cold run below is cold for the embedding only
    # As the web server does once loaded (config/wsgi.py): long-lived objects are frozen out of
    # the cyclic garbage collector, whose full passes would otherwise land inside searches.
    gc.collect()
    gc.freeze()
    _clear_query_cache(texts, embedder.model_name, (everyone.pk,))
    cold = _timed_runs(texts, everyone)
    warm, keyword_only = _paired_runs(texts, everyone)
    names = {
        "parse": "parse",
        "keyword": "keyword leg",
        "vector": "vector leg",
        "crosslang": "cross-language vector leg",
        "translate": "query translation",
        "fusion": "fusion",
    }
    rows = [("query embedding, alone (model, cache miss)", _stats(alone))]
    rows.append(("query embedding, in the search (model, cache miss)", _stats(cold["embed"])))
    rows.append(("query embedding (Redis cache hit)", _stats(warm["embed"])))
    rows += [(names.get(stage, stage), _stats(v)) for stage, v in warm.items() if stage not in ("embed", "total")]
    rows += [
        ("total, hybrid, cold query embedding", _stats(cold["total"])),
        ("total, hybrid, cached query embedding", _stats(warm["total"])),
        ("total, keyword only (reference)", _stats(keyword_only["total"])),
    ]
    per_bucket = {}
    for label, user in users.items():
        if label != "100%":
            _timed_runs(texts, user)  # each reader's query embeddings are their own: cached by this pass
        runs = warm if label == "100%" else _timed_runs(texts, user)
        per_bucket[label] = {stage: _stats(runs[stage]) for stage in ("keyword", "vector", "crosslang", "total")}
    return {
        "size": size,
        "chunks": meta["total_chunks"],
        "queries": len(texts),
        "vectors": meta["vectors"],
        "stages": dict(rows),
        "per_bucket": per_bucket,
    }


def _capture_sql(call: Callable[[], Any]) -> tuple[Any, list[tuple[str, Any]]]:
    from django.db import connection

    captured: list[tuple[str, Any]] = []

    def wrapper(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        captured.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        result = call()
    return result, captured


def _plan(sql: str, params: Any, settings: Sequence[tuple[str, Any]]) -> str:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        for statement, statement_params in settings:
            cursor.execute(statement, statement_params)
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(r[0] for r in cursor.fetchall())


def _auto_path(visible: list[int]) -> tuple[int, bool]:
    """(estimated visible chunks, exact?) as retrieve() decides under exact=None."""
    from search.retrieval.vector import use_exact_scan
    from search.retrieval.visibility import VisiblePages

    estimate = VisiblePages(visible).estimate[0]
    return estimate, bool(use_exact_scan(visible))


def vector_recall(size: str, texts: Sequence[str], meta: dict[str, Any]) -> dict[str, Any]:
    from django.contrib.auth.models import User
    from django.db import connection

    from bench.common import visible_page_ids
    from config.numbers import LEG_DEPTH
    from search.embedding.embedders import get_embedder
    from search.retrieval import vector as retrieval
    from search.retrieval.hits import Filters
    from search.retrieval.query_embedding import query_embedding

    embedder = get_embedder()
    assert embedder is not None
    vectors = [query_embedding(t, embedder) for t in texts]
    out: dict[str, Any] = {}
    for label, username, _group in BUCKET_USERS:
        user = User.objects.get(username=username)
        visible = visible_page_ids(user)
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM search_chunk WHERE page_id = ANY(%s)", [visible])
            visible_chunks = cursor.fetchone()[0]
        estimate, auto_exact = _auto_path(visible)
        times: dict[str, list[float]] = defaultdict(list)
        recalls: dict[str, list[float]] = defaultdict(list)
        for vector in vectors:
            ranked: dict[str, list[int]] = {}
            for mode, exact in (("exact", True), ("hnsw", False), ("auto", None)):
                t = time.perf_counter()
                hits = retrieval.vector_leg(vector, embedder.model_name, visible, Filters(), LEG_DEPTH, exact=exact)
                times[mode].append(time.perf_counter() - t)
                ranked[mode] = [h.chunk_id for h in hits]
            truth10, truth100 = set(ranked["exact"][:10]), set(ranked["exact"])
            for mode in ("hnsw", "auto"):
                if truth10:
                    recalls[f"{mode}@10"].append(len(truth10 & set(ranked[mode][:10])) / len(truth10))
                    recalls[f"{mode}@100"].append(len(truth100 & set(ranked[mode])) / len(truth100))
                    recalls[f"{mode}_returned_fewer"].append(len(ranked[mode]) < len(ranked["exact"]))
        _hits, captured = _capture_sql(
            lambda v=visible: retrieval.vector_leg(
                vectors[0], embedder.model_name, v, Filters(), LEG_DEPTH, exact=False
            )
        )
        statement = next((s, p) for s, p in captured if "ORDER BY distance" in s)
        plan = _plan(statement[0], statement[1], [(s, p) for s, p in captured if "set_config" in s])
        out[label] = {
            "visible_chunks": visible_chunks,
            "visible_share": visible_chunks / meta["total_chunks"],
            "estimate": estimate,
            "auto_path": "exact" if auto_exact else "hnsw",
            "recall": {k: common.mean(v) for k, v in recalls.items()},
            "latency": {mode: _stats(v) for mode, v in times.items()},
            "forced_hnsw_plan_uses_index": "chunk_embedding_hnsw_384" in plan,
            "forced_hnsw_plan": plan,
            "ef_search": getattr(retrieval, "HNSW_EF_SEARCH", None),  # the plain leg's (centred lists: 400)
        }
    return out


SCALE_SECTIONS = ("latency", "recall", "keyword")
LATENCY_SAMPLE = {"100k": 128, "1m": 128}  # queries for latency and recall at this size (keeps the run under ~15 min)


def scale(size: str, sections: Sequence[str] = SCALE_SECTIONS) -> None:
    common.setup(_scale_db(size), migrate=True)
    meta = build_scale(size)
    common.refresh_index_statistics()
    texts = _queries_for_scale()
    sample = LATENCY_SAMPLE.get(size)
    if sample and len(texts) > sample:  # every n-th query: all three query files stay represented
        texts = texts[:: len(texts) // sample][:sample]
    note = (
        f"{meta['total_chunks']} chunks ({meta['vectors']}); {len(texts)} distinct dev queries. Cached-embedding"
        f" and keyword-only rows: {WARM_ROUNDS} rounds, each query run both ways back to back."
    )
    results: dict[str, Any] = {"meta": meta}
    if "latency" in sections:
        lat = results["latency"] = latency(size, texts, meta)
        rows = [(stage, s["n"], s["p50_ms"], s["p95_ms"]) for stage, s in lat["stages"].items()]
        common.section(
            f"Latency at ~{size} chunks (user sees 100 %)",
            common.md_table(("stage", "n", "p50 ms", "p95 ms"), rows, digits=1),
            note,
        )
        rows = [
            (
                label,
                b["keyword"]["p50_ms"],
                b["keyword"]["p95_ms"],
                b["vector"]["p50_ms"],
                b["vector"]["p95_ms"],
                b["crosslang"]["p50_ms"],
                b["crosslang"]["p95_ms"],
                b["total"]["p50_ms"],
                b["total"]["p95_ms"],
            )
            for label, b in lat["per_bucket"].items()
        ]
        common.section(
            f"Latency at ~{size} chunks by visible share (cached query embeddings)",
            common.md_table(
                (
                    "visible",
                    "keyword p50",
                    "keyword p95",
                    "vector p50",
                    "vector p95",
                    "x-lang p50",
                    "x-lang p95",
                    "total p50",
                    "total p95",
                ),
                rows,
                digits=1,
            ),
            "The lists run one after another: total ≈ the sum of the columns. With exact "
            "vector search (small visible sets) the vector and language-centred lists share one scan, timed "
            "under vector; x-lang is then their merge only.",
        )
    if "recall" in sections:
        rec = results["recall"] = vector_recall(size, texts, meta)
        rows = [
            (
                label,
                r["visible_chunks"],
                f"{100 * r['visible_share']:.1f}%",
                r["estimate"],
                r["auto_path"],
                r["recall"].get("auto@10", float("nan")),
                r["recall"].get("hnsw@10", float("nan")),
                r["recall"].get("hnsw@100", float("nan")),
                r["latency"]["exact"]["p50_ms"],
                r["latency"]["hnsw"]["p50_ms"],
                r["latency"]["hnsw"]["p95_ms"],
                r["latency"]["auto"]["p50_ms"],
                "yes" if r["forced_hnsw_plan_uses_index"] else "NO (seq scan)",
            )
            for label, r in rec.items()
        ]
        common.section(
            f"Vector recall vs exact search at ~{size} chunks, by visible share",
            common.md_table(
                (
                    "visible",
                    "chunks",
                    "share",
                    "estimate",
                    "auto path",
                    "auto R@10",
                    "HNSW R@10",
                    "HNSW R@100",
                    "exact p50 ms",
                    "HNSW p50 ms",
                    "HNSW p95 ms",
                    "auto p50 ms",
                    "HNSW plan uses index",
                ),
                rows,
                digits=3,
            ),
            "Recall = overlap with exact=True top 10 (top 100 = LEG_DEPTH) over the same visible chunks; "
            "'estimate' = visible chunks as retrieval estimates them; 'auto path' = retrieval.use_exact_scan(), what "
            "retrieve() runs.",
        )
    if "keyword" in sections:
        cap = results["keyword"] = keyword_cap_effect()
        labels = cap["variants"]
        rows = [
            (
                corpus,
                c["queries"],
                c["over_cap"],
                *(c[label] for label in labels),
                *(f"{100 * c[label + ' other-language share']:.0f}%" for label in labels),
            )
            for corpus, c in cap["corpora"].items()
        ]
        ms = ", ".join(f"{label} {cap['ms'][label]['p50_ms']:.0f}/{cap['ms'][label]['p95_ms']:.0f}" for label in labels)
        common.section(
            f"Keyword leg alone at ~{size} chunks — nDCG@10, and share of top-10 pages not in the query's language",
            common.md_table(
                (
                    "corpus",
                    "queries",
                    "over cap",
                    *(f"nDCG {label}" for label in labels),
                    *(f"other-lang {label}" for label in labels),
                ),
                rows,
            ),
            f"User sees 100 %. capped = as is (KEYWORD_CANDIDATE_CAP {cap['cap']}: candidates are the chunks of "
            "the rarest words whose matches fit in the cap together; past it, the first rows the scan meets); "
            "uncapped = cap 10^9; 'stop-words of all languages' = bench-only "
            "prototype: a word that is a stop-word in any configured language (de, le, les, que…) scores in no "
            f"language partition. p50/p95 ms: {ms}. OR matches of all the words per query: p50 "
            f"{cap['matches']['p50']:.0f}, max {cap['matches']['max']}.",
        )
    suffix = "" if tuple(sections) == SCALE_SECTIONS else "_" + "_".join(sections)
    common.write_results(f"search_scale_{size}{suffix}", results)


def _stopwords_of_any_language(term_weights: Callable[..., Any]) -> Callable[..., Any]:
    """Prototype: a word that is a stop-word in any configured language scores in no language partition.

    Today "de", "le", "les", "que" are French stop-words but not English ones, so in the English
    partition they are rare words with a high IDF, and French questions pull English chunks.
    """
    from django.db import connection

    from search.statistics.term_statistics import CONFIGS

    def weights(terms: list[str], *args: Any) -> Any:  # (terms, reader) as keyword_leg calls it
        result = term_weights(terms, *args)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT t FROM unnest(%s::text[]) t WHERE "  # noqa: S608 - config names are constants
                + " OR ".join(f"to_tsvector('{cfg}', t) = ''::tsvector" for cfg in CONFIGS.values()),
                [terms],
            )
            stop = {row[0] for row in cursor.fetchall()}
        return {lang: [w for w in ws if w.term not in stop] for lang, ws in result.items()}

    return weights


def keyword_cap_effect() -> dict[str, Any]:
    """The keyword leg on the labelled queries (real pages, real text): as is, without its candidate cap,
    and with stop-words of every language dropped (bench-only prototype)."""
    from django.contrib.auth.models import User

    from bench.common import visible_page_ids
    from handbook.models import Page
    from search.retrieval import keyword as retrieval
    from search.retrieval.hits import Filters
    from search.retrieval.query import parse_query

    user = User.objects.get(username=BUCKET_USERS[-1][1])
    visible = visible_page_ids(user)
    refs = dict(Page.objects.values_list("id", "ref"))
    page_lang = dict(Page.objects.values_list("id", "language"))
    queries = common.load_queries("dev.jsonl") + common.load_queries("dev-handbooks.jsonl")
    original_cap = retrieval.KEYWORD_CANDIDATE_CAP
    original_weights = getattr(retrieval, "term_weights", None)
    variants: dict[str, dict[str, Any]] = {"capped": {}, "uncapped": {"KEYWORD_CANDIDATE_CAP": 10**9}}
    if original_weights is not None:
        variants["stop-words of all languages"] = {"term_weights": _stopwords_of_any_language(original_weights)}
    runs: dict[str, dict[str, list[str]]] = {label: {} for label in variants}
    other_language: dict[str, dict[str, list[float]]] = {label: defaultdict(list) for label in variants}
    times: dict[str, list[float]] = defaultdict(list)
    matches = []
    for q in queries:
        parsed = parse_query(q["query"])
        matches.append(_keyword_matches(parsed, visible))
        for label, patch in variants.items():
            saved = {name: getattr(retrieval, name) for name in patch}
            for name, value in patch.items():
                setattr(retrieval, name, value)  # module globals read by keyword_leg at call time
            try:
                t = time.perf_counter()
                hits = retrieval.keyword_leg(parsed, visible, Filters())
                times[label].append(time.perf_counter() - t)
            finally:
                for name, value in saved.items():
                    setattr(retrieval, name, value)
            pages = common.first_k(h.page_id for h in hits)
            runs[label][q["qid"]] = [refs[p] for p in pages]
            if q.get("relevant") and pages:
                share = sum(page_lang[p] != q["lang"] for p in pages) / len(pages)
                other_language[label][q["corpus"]].append(share)
    scores = {label: common.score_run(queries, ranked) for label, ranked in runs.items()}
    over: dict[str, int] = defaultdict(int)
    for q, m in zip(queries, matches, strict=True):
        if q.get("relevant"):
            over[q["corpus"]] += m > original_cap
    return {
        "cap": original_cap,
        "variants": list(variants),
        "matches": {"p50": common.percentile(matches, 50), "max": max(matches)},
        "ms": {label: _stats(t) for label, t in times.items()},
        "corpora": {
            corpus: {
                "queries": scores["capped"][corpus]["queries"],
                "over_cap": over[corpus],
                **{label: scores[label][corpus]["ndcg@10"] for label in variants},
                **{f"{label} other-language share": common.mean(other_language[label][corpus]) for label in variants},
            }
            for corpus in scores["capped"]
        },
    }


def _keyword_matches(parsed: Any, visible: list[int]) -> int:
    """How many visible chunks match the OR of all query words (the keyword leg ranks at most its cap)."""
    from django.db import connection

    from search.retrieval.query import tsquery_text

    if parsed.is_empty or not visible:
        return 0
    text = tsquery_text(parsed)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM search_chunk c WHERE c.page_id = ANY(%s) AND ("
            "(c.language = 'en' AND c.search_vector @@ to_tsquery('english', %s)) OR "
            "(c.language = 'fr' AND c.search_vector @@ to_tsquery('french', %s)) OR "
            "(c.language NOT IN ('en', 'fr') AND c.search_vector @@ to_tsquery('simple', %s)))",
            [visible, text, text, text],
        )
        return cursor.fetchone()[0]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.search", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    quality_parser = sub.add_parser("quality", help="quality + cross-language on the dev query files")
    quality_parser.add_argument(
        "--files", nargs="+", choices=("dev.jsonl", "dev-handbooks.jsonl"), default=["dev.jsonl", "dev-handbooks.jsonl"]
    )
    scale_parser = sub.add_parser("scale", help="latency by stage + vector recall by selectivity")
    scale_parser.add_argument("--size", choices=sorted(SIZES), default="10k")
    scale_parser.add_argument("--sections", nargs="+", choices=SCALE_SECTIONS, default=list(SCALE_SECTIONS))
    args = parser.parse_args(argv)
    if args.command == "quality":
        quality(args.files)
    else:
        scale(args.size, args.sections)


if __name__ == "__main__":
    main(sys.argv[1:])
