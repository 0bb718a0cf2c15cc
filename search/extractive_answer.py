"""Extractive answers: quote the sentences that best answer the question.

Never writes a word of its own: every sentence is a verbatim substring of a
passage the user may read, and carries that passage's citation.
"""

from __future__ import annotations

from dataclasses import dataclass

from search.passages import Passage
from search.text import content_words, split_sentences

MAX_SENTENCES = 3
MIN_WORDS = 4
# Weight of the passage order (retrieval rank) against word overlap when picking sentences.
RANK_PRIOR = 0.4
# Answerability: the best passage must be this close to the question in meaning
# (cosine similarity of e5 vectors). Measured on dev-handbooks by bench/ask.py: at 0.855, 97 % of
# answerable questions are answered and a third of unanswerable ones get no_answer; no single
# retrieval signal we tried (similarity, its margin, IDF coverage) separates them better.
MIN_SIMILARITY = 0.855


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


def best_sentences(question: str, language: str, passages: list[Passage]) -> list[Quote]:
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
    chosen: list[Quote] = []
    seen: set[str] = set()
    for quote in scored:
        if quote.sentence in seen:
            continue
        # Beyond the first, a sentence must share words with the question to be worth quoting.
        if chosen and quote.score < 0.34 + RANK_PRIOR / (1 + len(passages)):
            break
        chosen.append(quote)
        seen.add(quote.sentence)
        if len(chosen) >= MAX_SENTENCES:
            break
    return chosen
