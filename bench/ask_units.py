"""The extractive writer alone: given the right pages, does the first answer quote the evidence?

``bench/ask.py`` measures Ask end to end on the loaded bench instance; this bench needs no
database and no loaded corpora (minutes instead of hours on 2 cores), and isolates what the
writer adds: for every answerable question of ``dev-handbooks.jsonl`` (native) and
``dev-crosslang.jsonl`` (translated), the passages are the chunks of its relevant pages (best
grade first, at most 2 chunks a page, 5 in all, chosen by word overlap with the native question,
as retrieval at its best would), and for unanswerable questions the chunks of the pages sharing
most words with the question. Both writers quote from the same passages:

- ``before``: the sentence writer of commit b066c81 (word overlap, then a sentence-similarity check);
- ``units``: ``search.ask.extractive`` (answer units, embeddings, kind of thing asked).

Reported per corpus and question language: evidence hit (the eval README's measure; every
citation here is relevant, so it is the share of answered questions whose quotes cover half the
evidence's content words), answered, no_answer on unanswerable, words and units quoted; and the
sweep of the units writer's answerability threshold. The word translation of the question
(``search/lexicon/word_translation.py``, built from the loaded handbook) is not available here: translated
questions are matched by embeddings alone, a lower bound for the product.

Run: python -m bench.ask_units   [--before PATH_TO_OLD_extractive_answer.py]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import pickle
import sys
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any
from unittest import mock

from bench.ask import MAX_UNITS, MAX_WORDS, MIN_COVERAGE, SWEEP_HEADERS, coverage
from bench.common import CORPORA, RESULTS, load_queries, md_table, mean, percentile

HANDBOOKS = ("18f-handbook", "etalab-guides", "betagouv-communaute")
MAX_PASSAGES, PER_PAGE = 5, 2


def _pages() -> dict[str, dict[str, Any]]:
    pages = {}
    for corpus in HANDBOOKS:
        with open(CORPORA / f"{corpus}.jsonl", encoding="utf-8") as handle:
            for line in handle:
                page = json.loads(line)
                page["corpus"] = corpus
                pages[page["id"]] = page
    return pages


def _chunks(page: dict[str, Any]) -> list[Any]:
    from search.indexing.chunking import chunk_markdown

    if "_chunks" not in page:
        page["_chunks"] = chunk_markdown(page["body"])
    return page["_chunks"]


def _overlap(question_words: set[str], text: str, language: str) -> float:
    from core.text import content_words

    words = set(content_words(text, language))
    return len(question_words & words) / (1 + len(question_words))


def _passages(refs: list[str], pages: dict[str, dict[str, Any]], native_question: str) -> list[Any]:
    from core.text import content_words, detect_language
    from search.ask.passages import Passage

    qwords = set(content_words(native_question, detect_language(native_question)))
    picked = []
    for ref in refs:
        page = pages[ref]
        language = page.get("lang") or "en"
        ranked = sorted(
            _chunks(page), key=lambda d: -_overlap(qwords, f"{page['title']} {d.heading} {d.text}", language)
        )
        picked.extend((ref, d) for d in ranked[:PER_PAGE])
    out = []
    for ref, draft in picked[:MAX_PASSAGES]:
        page = pages[ref]
        out.append(
            Passage(
                number=len(out) + 1,
                passage_id=f"p-{draft.content_hash[:12]}",
                chunk_id=len(out),
                page_id=0,
                ref=ref,
                title=page["title"],
                url="/",
                anchor=draft.anchor,
                heading=draft.heading,
                text=draft.text[:1200],
                language=page.get("lang") or "en",
                revision_id=int(hashlib.sha1(ref.encode()).hexdigest()[:12], 16),
                revision_number=1,
                content_hash=draft.content_hash,
                score=1.0,
                vector_distance=None,
                keyword_rank=1,
            )
        )
    return out


def _closest_pages(question: str, pages: dict[str, dict[str, Any]], corpus: str, k: int = 3) -> list[str]:
    from core.text import content_words, detect_language

    qwords = set(content_words(question, detect_language(question)))
    scored = [
        (_overlap(qwords, f"{p['title']} {p['body'][:3000]}", p.get("lang") or "en"), ref)
        for ref, p in pages.items()
        if p["corpus"] == corpus
    ]
    return [ref for _s, ref in sorted(scored, reverse=True)[:k]]


def _load_before(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location("extractive_answer_before", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = module  # type: ignore[union-attr]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="the old search/ask/extractive.py, for the before column")
    parser.add_argument("--vectors", type=Path, help="a file keeping the vectors between runs (pickle)")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    from core import embedded

    embedded.use_if_unconfigured()  # settings only read the environment
    django.setup()
    from core.text import detect_language
    from search.ask import extractive as extractive_answer
    from search.ask import unit_embeddings
    from search.embedding.embedders import local_embedder
    from statements import answer_units

    embedder = local_embedder()
    vectors: dict[str, Any] = {}
    if args.vectors and args.vectors.is_file():
        vectors = pickle.loads(args.vectors.read_bytes())

    def query_vector(text: str) -> Any:
        key = "query: " + text
        if key not in vectors:
            vectors[key] = embedder.embed_query(text)
        return vectors[key]

    def cached_vectors(texts: list[str], _embedder: Any = None) -> list[Any]:
        missing = [t for t in dict.fromkeys(texts) if t not in vectors]
        if missing:
            vectors.update(zip(missing, embedder.embed_passages(missing), strict=True))
        return [vectors[t] for t in texts]

    pages = _pages()
    units_by_revision: dict[int, list[Any]] = {}

    def revision_units(ids: Any) -> dict[int, list[Any]]:
        return {i: units_by_revision[i] for i in ids if i in units_by_revision}

    before = _load_before(args.before) if args.before else None
    sets = {"native": load_queries("dev-handbooks.jsonl"), "translated": load_queries("dev-crosslang.jsonl")}
    native_by_qid = {q["qid"]: q for q in sets["native"]}
    rows: list[dict[str, Any]] = []
    started = time.monotonic()
    with (
        mock.patch.object(answer_units, "revision_units", revision_units),
        mock.patch.object(unit_embeddings, "sentence_vectors", cached_vectors),
        mock.patch.object(extractive_answer, "stored_unit_vectors", lambda *a: {}),  # no index here
    ):
        if before is not None:
            patch_before = mock.patch.object(before, "sentence_vectors", cached_vectors)
            patch_before.start()
        for set_name, queries in sets.items():
            for q in queries:
                native = native_by_qid.get(q.get("source_qid", q["qid"]), q)["query"]
                if q["relevant"]:
                    refs = sorted(q["relevant"], key=lambda r: -q["relevant"][r])
                else:
                    refs = _closest_pages(q["query"], pages, q["corpus"])
                passages = _passages(refs, pages, native)
                for p in passages:
                    units_by_revision.setdefault(p.revision_id, answer_units.page_units(pages[p.ref]["body"]))
                language = detect_language(q["query"])
                qvec = query_vector(q["query"])
                row = {
                    "set": set_name,
                    "qid": q["qid"],
                    "corpus": q["corpus"],
                    "lang": q["lang"],
                    "answerable": bool(q["relevant"]),
                    "evidence": q.get("evidence") or "",
                }
                selection = extractive_answer.select_quotes(q["query"], language, passages, qvec, embedder)
                row["score"] = selection.score or 0.0
                row["threshold"] = selection.threshold
                row["best"] = asdict(selection.best) if selection.best is not None else {}
                row["units"] = _judge(q, [x.sentence for x in selection.quotes])
                if before is not None:
                    ranked = before.ranked_sentences(q["query"], language, passages)
                    quotes = before.best_sentences(q["query"], language, passages, ranked)
                    row["before"] = _judge(q, [x.sentence for x in quotes])
                    row["before"]["answered"] = bool(ranked) and before.sentences_answer(qvec, embedder, ranked)
                rows.append(row)
    elapsed = time.monotonic() - started
    if args.vectors:
        args.vectors.write_bytes(pickle.dumps(vectors))
    for r in rows:  # the served answer decision's own threshold (search/decisions/answer.py)
        r["units"]["answered"] = r["score"] >= r["threshold"]
    writers = ["units"] + (["before"] if before is not None else [])
    table = []
    for writer in writers:
        for set_name in ("native", "translated"):
            in_set = [r for r in rows if r["set"] == set_name]
            groups = Counter((r["corpus"], r["lang"]) for r in in_set)
            for corpus, lang in [*sorted(groups), ("all", "")]:
                group = [r for r in in_set if corpus == "all" or (r["corpus"], r["lang"]) == (corpus, lang)]
                table.append(_summary(writer, set_name, corpus, lang, group))
    print("\n### Extractive writer given the right pages (no retrieval; bench/ask_units.py)\n")
    print(
        md_table(
            [
                "writer",
                "set",
                "corpus",
                "question lang",
                "answerable",
                "answered",
                "evidence hit",
                "evidence in quotes if answered",
                "unanswerable",
                "no_answer",
                "words mean",
                "words p95",
                "over length",
            ],
            table,
        )
    )
    print("\n### Units writer: answerability threshold sweep (probability of the best unit; served one first)\n")
    sweep = []
    served = rows[0]["threshold"] if rows else 0.5
    for t in [served, *sorted({round(served * f, 4) for f in (0.5, 0.75, 1.5, 2.0, 3.0)})]:
        native = [r for r in rows if r["set"] == "native"]
        translated = [r for r in rows if r["set"] == "translated"]
        sweep.append(
            [
                t,
                mean(1.0 if r["score"] >= t else 0.0 for r in native if r["answerable"]),
                mean(0.0 if r["score"] >= t else 1.0 for r in native if not r["answerable"]),
                mean(1.0 if r["score"] >= t and r["units"]["covers"] else 0.0 for r in native if r["evidence"]),
                mean(1.0 if r["score"] >= t else 0.0 for r in translated if r["answerable"]),
                mean(1.0 if r["score"] >= t and r["units"]["covers"] else 0.0 for r in translated if r["evidence"]),
            ]
        )
    print(md_table(SWEEP_HEADERS, sweep))
    print(f"\n({len(rows)} questions in {elapsed:.0f} s; {len(vectors)} unit vectors)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "ask_units.json").write_text(json.dumps({"rows": rows, "sweep": sweep}, indent=2, ensure_ascii=False))


def _judge(q: dict[str, Any], quotes: list[str]) -> dict[str, Any]:
    text = " ".join(quotes)
    cover = coverage(q["evidence"], text) if q.get("evidence") else 0.0
    return {
        "covers": cover >= MIN_COVERAGE,
        "coverage": cover,
        "words": sum(len(x.split()) for x in quotes),
        "n_units": len(quotes),
        "quotes": quotes,
    }


def _summary(writer: str, set_name: str, corpus: str, lang: str, group: list[dict[str, Any]]) -> list[Any]:
    answerable = [r for r in group if r["answerable"]]
    unanswerable = [r for r in group if not r["answerable"]]
    judged = [r[writer] for r in answerable if r["evidence"]]
    answered = [j for j in judged if j["answered"]]
    words = [j["words"] for j in answered]
    return [
        writer,
        set_name,
        corpus,
        lang,
        len(answerable),
        mean(1.0 if r[writer]["answered"] else 0.0 for r in answerable),
        mean(1.0 if j["answered"] and j["covers"] else 0.0 for j in judged),
        mean(1.0 if j["covers"] else 0.0 for j in answered),
        len(unanswerable),
        mean(0.0 if r[writer]["answered"] else 1.0 for r in unanswerable),
        mean(words),
        percentile(words, 95),
        sum(1 for j in answered if j["words"] > MAX_WORDS or j["n_units"] > MAX_UNITS),
    ]


if __name__ == "__main__":
    main()
