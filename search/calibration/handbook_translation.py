"""The calibration questions translated word by word with the calibration handbook's own words.

Serving, Ask's quote choice matches a unit written in another language than the question through the
question's word translation, which retrieval makes from the words the asker may read
(``search/lexicon/word_translation.py``). The answer decision's fit runs the same quote choice over the
calibration handbook, so its questions are translated the same way, from that handbook's words: its
words of each language (in at least ``LEXICON_MIN_CHUNKS`` passages), embedded by the model, centred
on their language's mean, the nearest word of the other language kept as serving keeps it
(``word_translation.nearest_words``). Without it, no unit in the other language would share a word with
the question while fitting, while it does when serving.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from config.numbers import LEXICON_MIN_CHUNKS, MAX_QUERY_WORDS
from search.calibration.calibration_set import CalibrationSet
from search.calibration.query_fit import CalibrationHandbook
from search.embedding.embedders import Embedder
from search.lexicon.word_counts import content_words
from search.lexicon.word_shape import looks_like_a_word, vocabulary_triples
from search.lexicon.word_translation import nearest_words
from search.lexicon.word_vectors import unit_rows


class HandbookTranslation:
    def __init__(self, calibration: CalibrationSet, handbook: CalibrationHandbook, embedder: Embedder) -> None:
        self.handbook, self.embedder = handbook, embedder
        passages: dict[str, Counter[str]] = {}
        for passage in calibration.passages:
            passages.setdefault(passage.language, Counter()).update(set(content_words(passage.text, passage.language)))
        self.words = {
            language: sorted(w for w, n in counts.items() if n >= LEXICON_MIN_CHUNKS)
            for language, counts in passages.items()
        }
        self.known = {language: set(words) for language, words in self.words.items()}
        self.triples = {language: vocabulary_triples(words) for language, words in self.words.items()}
        self.means: dict[str, np.ndarray] = {}
        self.centred: dict[str, np.ndarray] = {}
        for language, words in self.words.items():
            if not words:
                continue
            vectors = handbook.query_vectors(words, embedder)
            self.means[language] = vectors.mean(axis=0)
            self.centred[language] = unit_rows(vectors - self.means[language])

    def translations(self, text: str, source: str) -> dict[str, str]:
        """The question in each other language of the handbook: {language: its translated words}."""
        if source not in self.centred:
            return {}
        found = {target: self._translate(text, source, target) for target in self.centred if target != source}
        return {target: translated for target, translated in found.items() if translated}

    def _translate(self, text: str, source: str, target: str) -> str:
        asked = list(dict.fromkeys(content_words(text, source)))[:MAX_QUERY_WORDS]
        # As serving: a string neither language holds and not shaped like a word has no translation.
        kept = [
            w
            for w in asked
            if w in self.known[source]
            or w in self.known[target]
            or looks_like_a_word(w, self.triples[source], self.triples[target])
        ]
        if not kept:
            return ""
        units = unit_rows(self.handbook.query_vectors(kept, self.embedder) - self.means[source])
        return nearest_words(units @ self.centred[target].T, self.words[target])
