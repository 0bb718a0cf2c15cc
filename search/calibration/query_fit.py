"""Fit the query decision (``search/decisions/query.py``) for one embedding model.

Every calibration query (``calibration_set.py``) gets the decision's features as retrieval reads
them, computed over the calibration handbook instead of the reader's pages: how much its nearest
passage stands out, its nearest workplace and everyday sentence, its nearest shipped handbook
question and query on another subject (never itself nor its passage's other questions), whether it
is made of words the passages hold (Postgres' own stemming, as the keyword lists). Not whether a
word of it is held by no passage: the calibration handbook is small and lacks a word of most
queries, answerable or not, which a real handbook holds — learnt here, it would say nothing true.
Answerable questions are positives, no-match queries negatives; a logistic regression
over standardised features (folded back onto the raw features) gives the probability.

Thresholds, each by a stated rule over out-of-fold probabilities (the fitted model never judges
the questions it learnt from):
- ``result``: the highest that leaves at most ``MAX_EMPTY_SHARE`` of the answerable questions empty
  — the others are each either confident or carried by their words (a passage holds
  ``KEYWORD_ALONE_COVERAGE`` of their words' IDF). Not "none": one odd question (a typo on a word
  the small calibration handbook lacks, a question in the other language, which the product's
  translated word list would carry) would otherwise set it for every model;
- ``clearly_off``: beneath every answerable question, carried or not;
- ``vector_floor``: the least similarity of a question to the passage that answers it, same
  language; ``centred_floor``: the same for questions in the other language, language-centred by the
  model's fitted α (``retrieval_fit.py``, fitted first).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db import connection
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from config.numbers import (
    CALIBRATION_FOLDS,
    FIT_MAX_ITERATIONS,
    KEYWORD_ALONE_COVERAGE,
    MAX_EMPTY_SHARE,
    STAND_OUT_RANK,
)
from config.numbers import QUERY_FIT_REGULARISATION as REGULARISATION
from config.numbers import STAND_OUT_NO_FLOOR as NO_FLOOR
from core.languages import ALL_STOPWORDS, text_search_config
from core.text import detect_language, fold_accents, words
from search.calibration.calibration_set import CalibrationSet
from search.calibration.standardised import Standardised
from search.decisions.policy import Decision
from search.decisions.query import FEATURES, QueryFeatures, stand_out
from search.embedding.embedders import Embedder
from search.embedding.sentence_sets import EVERYDAY, HANDBOOK_QUESTIONS, OTHER_QUERIES, WORKPLACE
from search.indexing.pipeline import passage_text


@dataclass(frozen=True)
class Example:
    text: str
    language: str
    features: QueryFeatures
    carried: bool  # a passage holds most of its words: found by words alone
    label: int  # 1: answerable, 0: no-match


def lexemes(text: str, language: str) -> set[str]:
    """The stemmed words of ``text`` as Postgres indexes them (accents folded, as chunks are)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT array(SELECT lexeme FROM unnest(to_tsvector(%s::regconfig, %s)))",
            [text_search_config(language), fold_accents(text)],
        )
        return set(cursor.fetchone()[0])


def _unit(vectors: list[list[float]]) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.where(norms == 0, 1, norms)


@dataclass
class CalibrationHandbook:
    """The calibration handbook's passages as the model and Postgres see them."""

    vectors: np.ndarray
    ids: list[str]
    languages: list[str]
    held: list[set[str]]
    idf: dict[str, float]
    means: dict[str, np.ndarray]
    asked: dict[str, np.ndarray] = field(default_factory=dict)  # query vectors, embedded once per fit
    units: dict[str, np.ndarray] = field(default_factory=dict)  # answer-unit vectors, the same

    def query_vectors(self, texts: list[str], embedder: Embedder) -> np.ndarray:
        """Unit vectors of ``texts`` as queries (each embedded once for all the decisions' fits)."""
        return self._remembered(self.asked, texts, embedder.embed_queries)

    def unit_vectors(self, texts: list[str], embedder: Embedder) -> np.ndarray:
        """Unit vectors of answer units ``texts``, embedded as passages (as the index stores them), once per fit."""
        return self._remembered(self.units, texts, embedder.embed_passages)

    def _remembered(
        self, memo: dict[str, np.ndarray], texts: list[str], embed: Callable[[list[str]], Any]
    ) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in memo))
        if missing:
            memo.update(zip(missing, _unit(embed(missing)), strict=True))
        if not texts:
            return np.zeros((0, self.vectors.shape[1]), dtype=np.float32)
        return np.stack([memo[t] for t in texts])

    def coverage_of(self, terms: set[str], passage: int) -> float:
        """The share of the query words' IDF passage number ``passage`` holds (as the keyword lists weigh)."""
        if not terms:
            return 0.0
        weights = {t: self.idf.get(t, math.log(1 + len(self.held))) for t in terms}
        return sum(w for t, w in weights.items() if t in self.held[passage]) / sum(weights.values())

    def coverage(self, terms: set[str]) -> float:
        """The best share of the query words' IDF one passage holds."""
        return max((self.coverage_of(terms, i) for i in range(len(self.held))), default=0.0)


def calibration_handbook(calibration: CalibrationSet, embedder: Embedder) -> CalibrationHandbook:
    texts = [passage_text(p.heading_path, p.text) for p in calibration.passages]
    vectors = _unit(embedder.embed_passages(texts))
    held = [lexemes(f"{p.heading_path} {p.text}", p.language) for p in calibration.passages]
    frequency: dict[str, int] = {}
    for own in held:
        for term in own:
            frequency[term] = frequency.get(term, 0) + 1
    idf = {t: math.log(1 + len(held) / n) for t, n in frequency.items()}
    languages = [p.language for p in calibration.passages]
    means = {lang: vectors[[i for i, x in enumerate(languages) if x == lang]].mean(axis=0) for lang in set(languages)}
    return CalibrationHandbook(vectors, [p.id for p in calibration.passages], languages, held, idf, means)


def _left_out(calibration: CalibrationSet) -> list[frozenset[str]]:
    """Per calibration query (questions, then no-match queries), the shipped queries its
    ``handbook_question`` / ``other_query`` features must not see: itself, and a question's
    companions on the same passage. A new query is never in the shipped sets; a calibration one
    compared with itself or its paraphrases would teach the fit a closeness no real query has."""
    by_passage: dict[str, set[str]] = {}
    for question in calibration.questions:
        by_passage.setdefault(question.passage or "", set()).add(question.text.strip())
    return [frozenset(by_passage[q.passage or ""]) for q in calibration.questions] + [
        frozenset({query.strip()}) for query, _language in calibration.no_match
    ]


def _examples(  # noqa: PLR0913 - the material and what each example may not see
    texts: list[str],
    labels: list[int],
    left_out: list[frozenset[str]],
    handbook: CalibrationHandbook,
    embedder: Embedder,
    floor: float,
) -> tuple[list[Example], np.ndarray]:
    vectors = handbook.query_vectors(texts, embedder)
    every_term = set().union(*handbook.held)
    out = []
    for text, label, vector, unseen in zip(texts, labels, vectors, left_out, strict=True):
        language = detect_language(text)
        terms = lexemes(text, language)
        similarities = sorted((handbook.vectors @ vector).tolist(), reverse=True)
        listed = [x for x in similarities[:STAND_OUT_RANK] if x >= floor]  # as the floored vector list
        features = QueryFeatures(
            nearest=similarities[0],
            stand_out=stand_out(listed, floor),
            workplace=WORKPLACE.nearest(vector, embedder),
            everyday=EVERYDAY.nearest(vector, embedder),
            handbook_question=HANDBOOK_QUESTIONS.nearest(vector, embedder, leaving_out=unseen),
            other_query=OTHER_QUERIES.nearest(vector, embedder, leaving_out=unseen),
            words=bool(terms & every_term) or any(w in ALL_STOPWORDS for w in words(text)),
        )
        carried = handbook.coverage(terms) >= KEYWORD_ALONE_COVERAGE - 1e-9
        out.append(Example(text, language, features, carried, label))
    return out, vectors


def _floors(
    calibration: CalibrationSet, handbook: CalibrationHandbook, question_vectors: np.ndarray, centring: float
) -> tuple[float, float]:
    """Least similarity of a question to its answering passage: plain (same language), centred (other)
    by the fitted ``centring`` (the retrieval entry's α, fitted first: the floor holds for that list)."""
    index = {pid: i for i, pid in enumerate(handbook.ids)}
    plain, centred = [], []
    for question, vector in zip(calibration.questions, question_vectors, strict=True):
        i = index[question.passage or ""]
        if handbook.languages[i] == question.language:
            plain.append(float(handbook.vectors[i] @ vector))
        elif question.language in handbook.means:
            moved = vector - centring * handbook.means[question.language]
            centred.append(float(handbook.vectors[i] @ (moved / (np.linalg.norm(moved) or 1.0))))
    return (min(plain) if plain else NO_FLOOR), (min(centred) if centred else NO_FLOOR)


def fit_query_decision(
    calibration: CalibrationSet, handbook: CalibrationHandbook, embedder: Embedder, centring: float
) -> tuple[Decision, list[Example]]:
    """The fitted query decision of ``embedder``'s model, and the examples it was fitted on (``centring``:
    the model's fitted α, which the language-centred list and so its floor are computed with)."""
    texts = [q.text for q in calibration.questions] + [q for q, _lang in calibration.no_match]
    labels = [1] * len(calibration.questions) + [0] * len(calibration.no_match)
    question_vectors = handbook.query_vectors([q.text for q in calibration.questions], embedder)
    vector_floor, centred_floor = _floors(calibration, handbook, question_vectors, centring)
    examples, _vectors = _examples(texts, labels, _left_out(calibration), handbook, embedder, vector_floor)
    x = np.asarray([[e.features.values()[name] for name in FEATURES] for e in examples], dtype=np.float64)
    y = np.asarray(labels)
    standardised = Standardised.of(x)
    model = LogisticRegression(C=REGULARISATION, class_weight="balanced", max_iter=FIT_MAX_ITERATIONS)
    folds = StratifiedKFold(n_splits=CALIBRATION_FOLDS, shuffle=True, random_state=0)
    held_out = cross_val_predict(model, standardised(x), y, cv=folds, method="predict_proba")[:, 1]
    model.fit(standardised(x), y)
    weights, intercept = standardised.raw(model)
    answerable = [(p, e) for p, e in zip(held_out, examples, strict=True) if e.label == 1]
    uncarried = sorted(p for p, e in answerable if not e.carried)
    allowed = int(MAX_EMPTY_SHARE * len(answerable))
    result = uncarried[min(allowed, len(uncarried) - 1)] if uncarried else min(p for p, _e in answerable)
    clearly_off = min(p for p, _e in answerable)
    nonsense = held_out[y == 0]
    report = {
        "examples": {"answerable": int(y.sum()), "no_match": int((y == 0).sum())},
        "held_out": {
            "brier": round(float(brier_score_loss(y, held_out)), 4),
            "log_loss": round(float(log_loss(y, held_out)), 4),
            "no_match_not_confident": round(float((nonsense < result).mean()), 4),
            "answerable_empty": sum(1 for p, e in answerable if p < result and not e.carried),
            "no_match_clearly_off": round(float((nonsense < clearly_off).mean()), 4),
            "answerable_carried_by_words": round(sum(e.carried for _p, e in answerable) / len(answerable), 4),
        },
        "rules": {
            "result": f"highest threshold leaving at most {MAX_EMPTY_SHARE:.0%} of the answerable questions empty",
            "clearly_off": "beneath every answerable question",
            "vector_floor": "least similarity of a question to its answering passage, same language",
            "centred_floor": "the same, language-centred, for questions in the other language",
        },
    }
    thresholds = {
        "result": float(result),
        "clearly_off": float(min(clearly_off, result)),
        "vector_floor": vector_floor,
        "centred_floor": centred_floor,
    }
    return Decision(FEATURES, weights, intercept, thresholds, report), examples
