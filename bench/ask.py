"""Ask benchmark on dev-handbooks (extractive mode, no LLM).

- answerable questions: share whose first citation is a relevant page, share answered at all;
- unanswerable questions (``relevant`` empty): share answered ``no_answer``;
- overhead p95: retrieval + passage selection + prompt assembly (no LLM), with cold caches (a
  fresh cache key prefix); the extractive answer step (the no-LLM writer) is timed separately;
- a sweep of the two answerability thresholds (passage and sentence similarity) to show the trade-off.

Run: python -m bench.ask   (after the corpora are loaded by bench.search or make bench)
"""

from __future__ import annotations

import json
import os
import time

from bench.common import RESULTS, ensure_corpora, load_queries, mean, percentile, refresh_index_statistics, setup

SCOPE = "bench-handbooks"


def main() -> None:
    # Cold caches: no query, translation or sentence vector cached by an earlier run is reused.
    os.environ["CACHE_KEY_PREFIX"] = f"bench-ask-{time.time_ns()}"
    setup()
    ensure_corpora(("18f-handbook", "etalab-guides", "betagouv-communaute"))
    refresh_index_statistics()  # under the fresh prefix: the word-translation vocabulary's version
    from django.contrib.auth.models import User

    from search import extractive_answer, prompts
    from search.answers import _question_vector, answer_question
    from search.answers import extractive_answer as build_extractive
    from search.passages import passages_for
    from search.text import detect_language

    user = User.objects.get(username=SCOPE)
    queries = load_queries("dev-handbooks.jsonl")
    rows = []
    overhead_ms = []  # retrieval + passage selection + prompt assembly: what surrounds the answer writer
    extractive_ms = []  # the no-LLM answer writer itself (sentence choice + sentence-similarity check)
    for q in queries:
        started = time.perf_counter()
        _retrieval, passages = passages_for(q["query"], user)
        language = detect_language(q["query"])
        prompts.answer_messages(q["query"], language, passages)
        overhead_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        build_extractive(q["query"], language, passages)
        extractive_ms.append((time.perf_counter() - started) * 1000)
        answer = answer_question(user=user, question=q["query"], rate_limit=False, use_cache=False, log=False)
        similarity = max((1 - p.vector_distance for p in passages if p.vector_distance is not None), default=0.0)
        vector, embedder = _question_vector(q["query"], passages)
        ranked = extractive_answer.ranked_sentences(q["query"], language, passages)
        sentence = extractive_answer.sentence_similarity(vector, ranked, embedder) if vector and ranked else 0.0
        rows.append(
            {
                "qid": q["qid"],
                "corpus": q["corpus"],
                "answerable": bool(q["relevant"]),
                "mode": answer.mode,
                "first": answer.citations[0].ref if answer.citations else None,
                "relevant": list(q["relevant"]),
                "similarity": similarity,
                "sentence_similarity": sentence,
            }
        )

    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    first_ok = mean(1.0 if r["first"] in r["relevant"] else 0.0 for r in answerable)
    answered = mean(1.0 if r["mode"] != "no_answer" else 0.0 for r in answerable)
    declined = mean(1.0 if r["mode"] == "no_answer" else 0.0 for r in unanswerable)
    invented = sum(1 for r in rows if r["first"] is not None and r["first"] not in _visible_refs(user))
    print("| metric | value | goal |\n|---|---|---|")
    print(f"| first citation relevant (answerable, n={len(answerable)}) | {first_ok:.3f} | ≥ 0.7 |")
    print(f"| answered (answerable) | {answered:.3f} | ≥ 0.9 |")
    print(f"| no_answer (unanswerable, n={len(unanswerable)}) | {declined:.3f} | ≥ 0.6 |")
    print(f"| invented citations | {invented} | 0 |")
    print(
        f"| overhead p50 / p95 (ms: retrieval + prompt assembly, no LLM) | {percentile(overhead_ms, 50):.1f} / "
        f"{percentile(overhead_ms, 95):.1f} | p95 ≤ 150 |"
    )
    print(
        f"| extractive answer step p50 / p95 (ms: the no-LLM writer, sentence check included) | "
        f"{percentile(extractive_ms, 50):.1f} / {percentile(extractive_ms, 95):.1f} | – |"
    )
    current = (extractive_answer.MIN_SIMILARITY, extractive_answer.MIN_SENTENCE_SIMILARITY)
    print(f"\nthreshold sweep (current: passage {current[0]}, sentence {current[1]}):")
    print("| min passage sim | min sentence sim | answered (answerable) | no_answer (unanswerable) |")
    print("|---|---|---|---|")
    for passage_min in (0.0, 0.84, 0.85, 0.855):
        for sentence_min in (0.0, 0.845, 0.85, 0.853, 0.855, 0.857, 0.86):

            def answers(r, p=passage_min, s=sentence_min):  # type: ignore[no-untyped-def]
                return r["similarity"] >= p and r["sentence_similarity"] >= s

            a = mean(1.0 if answers(r) else 0.0 for r in answerable)
            d = mean(0.0 if answers(r) else 1.0 for r in unanswerable)
            print(f"| {passage_min:.3f} | {sentence_min:.3f} | {a:.3f} | {d:.3f} |")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "ask.json").write_text(
        json.dumps(
            {
                "first_citation_relevant": first_ok,
                "answered": answered,
                "no_answer_unanswerable": declined,
                "invented_citations": invented,
                "overhead_p95_ms": percentile(overhead_ms, 95),
                "extractive_step_p95_ms": percentile(extractive_ms, 95),
                "rows": rows,
            },
            indent=2,
        )
    )


def _visible_refs(user) -> set[str]:  # type: ignore[no-untyped-def]
    from handbook.models import Page

    return set(Page.objects.visible_to(user).values_list("ref", flat=True))


if __name__ == "__main__":
    main()
