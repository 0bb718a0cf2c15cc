"""Ask's quote candidates, dumped once, for studying the quote choice and the no-answer decision offline.

For every question of ``dev-handbooks.jsonl`` (native) and ``dev-crosslang.jsonl`` (translated), asked
as the ``bench-handbooks`` user: the passages Ask retrieves, and every candidate unit of them with the
features the quote choice reads (word score, kind of thing asked, similarity to the question, passage
rank, language, unit kind) and the label the measure gives it (the share of the evidence's content
words the unit holds, whether it is on a relevant page). ``bench/ask.py`` stays the measure of the
product; this dump lets a change to the choice be tried on the same candidates in seconds.

Run: python -m bench.ask_pool   (writes bench/results/ask_pool.pkl)
"""

from __future__ import annotations

import os
import pickle
import time
from typing import Any

from bench.ask import SCOPE, coverage
from bench.common import RESULTS, ensure_corpora, load_queries, setup


def main() -> None:
    os.environ["CACHE_KEY_PREFIX"] = f"bench-ask-pool-{time.time_ns()}"
    setup()
    ensure_corpora(("18f-handbook", "etalab-guides", "betagouv-communaute"))
    from bench.common import refresh_index_statistics

    refresh_index_statistics()
    from django.contrib.auth.models import User

    from core.text import detect_language
    from search.ask import extractive
    from search.ask.passages import embedder_for, passages_for

    user = User.objects.get(username=SCOPE)
    sets = {"native": load_queries("dev-handbooks.jsonl"), "translated": load_queries("dev-crosslang.jsonl")}
    out: list[dict[str, Any]] = []
    for set_name, queries in sets.items():
        for q in queries:
            language = detect_language(q["query"])
            _retrieval, passages = passages_for(q["query"], user)
            embedder = embedder_for(passages)
            model = embedder.model_name if embedder is not None else None
            pool = extractive.candidates(q["query"], language, passages, model) if passages else []
            vector = passages[0].question_vector if passages else None
            if pool and vector is not None and embedder is not None:
                # every unit compared by meaning (stored, else embedded now), as the choice may use any
                stored = extractive.stored_unit_vectors(
                    [(c.passage.chunk_id, c.unit.text) for c in pool], embedder.model_name
                )
                for c, cosine in zip(pool, extractive._cosines(vector, pool, embedder, stored), strict=True):
                    c.similarity = cosine
            relevant = set(q["relevant"])
            evidence = q.get("evidence") or ""
            out.append(
                {
                    "set": set_name,
                    "qid": q["qid"],
                    "query": q["query"],
                    "language": language,
                    "corpus": q["corpus"],
                    "relevant": q["relevant"],
                    "evidence": evidence,
                    "passages": [
                        {"ref": p.ref, "score": p.score, "language": p.language, "distance": p.vector_distance}
                        for p in passages
                    ],
                    "units": [
                        {
                            "text": c.unit.text,
                            "kind": c.unit.kind,
                            "heading": c.unit.heading,
                            "title": c.passage.title,
                            "ref": c.passage.ref,
                            "rank": c.rank,
                            "position": c.unit.position,
                            "anchor": c.unit.anchor,
                            "section_index": c.unit.section_index,
                            "filler": c.unit.filler,
                            "language": c.passage.language,
                            "words": c.words,
                            "kind_score": c.kind,
                            "similarity": c.similarity,
                            "relevant": c.passage.ref in relevant,
                            "coverage": coverage(evidence, c.unit.text) if evidence else 0.0,
                        }
                        for c in pool
                    ],
                }
            )
            print(f"{set_name} {q['qid']}: {len(passages)} passages, {len(pool)} units", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "ask_pool.pkl").write_bytes(pickle.dumps(out))
    print(f"(pool: {RESULTS / 'ask_pool.pkl'})")


if __name__ == "__main__":
    main()
