"""Extractive answers: quote the sentences that best answer the question.

Never writes a word of its own: every sentence is a verbatim substring of a
passage the user may read, and carries that passage's citation.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.core.cache import cache

from search.embedders import Embedder
from search.passages import Passage
from search.text import content_words, split_sentences

logger = logging.getLogger(__name__)

MAX_SENTENCES = 3
MIN_WORDS = 4
# Weight of the passage order (retrieval rank) against word overlap when picking sentences: the
# best-ranked passage gives the first quote unless another passage shares clearly more words with
# the question (bench/ask.py: first citation relevant 0.699 at 0.4, 0.712 at 0.8).
RANK_PRIOR = 0.8
# Answerability, in two steps (thresholds are cosine similarities of the serving e5 vectors,
# measured on dev-handbooks by bench/ask.py, which prints the sweep):
# 1. the best passage must be about the question's subject at all (cheap: retrieval's distance);
# 2. one of the sentences we would quote must itself be close to the question. A passage about
#    "benefits" is near "pet insurance benefit", but none of its sentences says anything about
#    pets: passage similarity alone answered 2/3 of unanswerable questions, the sentence check
#    declines 2/3 of them while still answering 92 % of answerable ones.
MIN_SIMILARITY = 0.85
MIN_SENTENCE_SIMILARITY = 0.855
SENTENCE_CANDIDATES = 5  # best word-overlap sentences embedded for step 2 (one small batch)
SENTENCE_CACHE_TTL_S = 7 * 24 * 3600  # a sentence's vector never changes for a given model


@dataclass(frozen=True)
class Quote:
    sentence: str
    passage: Passage
    score: float


def _stems(words: list[str]) -> set[str]:
    # A crude stem (prefix) matches "congés"/"conge", "expenses"/"expense" across both languages.
    return {w[: max(4, len(w) - 2)] for w in words if len(w) >= 3}


def is_answerable(passages: list[Passage]) -> bool:
    if not passages:
        return False
    distances = [p.vector_distance for p in passages if p.vector_distance is not None]
    if distances:
        return 1.0 - min(distances) >= MIN_SIMILARITY
    # No vectors (embeddings off): a keyword match is all the evidence there is.
    return any(p.keyword_rank is not None for p in passages)


def ranked_sentences(question: str, language: str, passages: list[Passage]) -> list[Quote]:
    """Every quotable sentence of the passages, best first, each once."""
    question_stems = _stems(content_words(question, language))
    scored: list[Quote] = []
    for rank, passage in enumerate(passages):
        for position, sentence in enumerate(split_sentences(passage.text)):
            words = content_words(sentence, passage.language)
            # Table rows and multi-line list fragments read badly when quoted alone.
            if len(sentence.split()) < MIN_WORDS or not words or "\n" in sentence:
                continue
            overlap = len(question_stems & _stems(words)) / max(1, len(question_stems))
            # Earlier passages and earlier sentences in them are a weak prior.
            score = overlap + RANK_PRIOR / (1 + rank) + 0.05 / (1 + position)
            if not sentence.rstrip("”»\"')").endswith((".", "!", "?", "…")):
                score *= 0.6
            scored.append(Quote(sentence, passage, score))
    scored.sort(key=lambda q: -q.score)
    unique: list[Quote] = []
    seen: set[str] = set()
    for quote in scored:
        if quote.sentence not in seen:
            seen.add(quote.sentence)
            unique.append(quote)
    return unique


def best_sentences(
    question: str, language: str, passages: list[Passage], ranked: list[Quote] | None = None
) -> list[Quote]:
    """The 1-3 sentences to quote: the best one, then others that share words with the question."""
    if ranked is None:
        ranked = ranked_sentences(question, language, passages)
    chosen: list[Quote] = []
    for quote in ranked:
        # Beyond the first, a sentence must share words with the question to be worth quoting.
        if chosen and quote.score < 0.34 + RANK_PRIOR / (1 + len(passages)):
            break
        chosen.append(quote)
        if len(chosen) >= MAX_SENTENCES:
            break
    return chosen


def sentence_similarity(question_vector: Sequence[float], quotes: list[Quote], embedder: Embedder) -> float:
    """Highest cosine similarity between the question and the first candidate sentences."""
    sentences = list(dict.fromkeys(q.sentence for q in quotes[:SENTENCE_CANDIDATES]))
    if not sentences:
        return 0.0
    vectors = np.asarray(_sentence_vectors(sentences, embedder), dtype=np.float32)
    question = np.asarray(question_vector, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(question)
    return float(np.max(vectors @ question / np.where(norms == 0, 1, norms)))


def _sentence_vectors(sentences: list[str], embedder: Embedder) -> list[Sequence[float]]:
    """Vectors of the sentences; popular passages' sentences come from the cache (keyed by model + text)."""
    keys = {s: "sentvec:" + hashlib.sha256(f"{embedder.model_name}\n{s}".encode()).hexdigest() for s in sentences}
    try:
        cached = cache.get_many(list(keys.values()))
    except Exception:  # a cache outage only costs time
        cached = {}
    missing = [s for s in sentences if keys[s] not in cached]
    if missing:
        fresh = dict(zip(missing, embedder.embed_passages(missing), strict=True))
        try:
            cache.set_many({keys[s]: v for s, v in fresh.items()}, SENTENCE_CACHE_TTL_S)
        except Exception:
            logger.warning("sentence vector cache unavailable")
        cached.update({keys[s]: v for s, v in fresh.items()})
    return [cached[keys[s]] for s in sentences]


def sentences_answer(question_vector: Sequence[float] | None, embedder: Embedder | None, quotes: list[Quote]) -> bool:
    """Step 2 of answerability; without vectors (or if embedding fails) step 1 decides alone."""
    if question_vector is None or embedder is None:
        return True
    try:
        return sentence_similarity(question_vector, quotes, embedder) >= MIN_SENTENCE_SIMILARITY
    except Exception as exc:  # a provider hiccup must not turn answers into refusals
        logger.warning("sentence embedding failed, passage similarity decides: %s", exc)
        return True
