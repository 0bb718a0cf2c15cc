"""Extractive answers: quote the units of the passages that state the answer.

Never writes a word of its own: every quote is a unit of a passage the user
may read (a sentence, a list item with its lead-in, a table row with its
headers: ``handbook/answer_units.py``) and carries that passage's citation.

Choosing the quote looks for the answer, not only for shared words:

1. every unit of the passages gets a word score: the question's words it
   holds (its section heading and page title count half), each word weighted
   by how rare it is among the units at hand, with the question translated
   word by word for units in the other language; plus the kind of thing asked
   ("how many / combien" wants a number, "how long" a duration, "who" a
   person or team, "where" a place, tool or link); filler ("This page
   explains…", "see also") and code never compete;
2. every unit whose vector is stored at index time
   (``search/indexing/unit_vectors.py``) is scored again with its similarity to
   the question, and so are the best few by words even when not stored yet (a
   page saved a moment ago: those are embedded now);
3. the answer is the best unit, plus up to two more that score nearly as well,
   within 80 words;
4. answerability is decided from the best unit's score (words, kind and similarity together: an
   unanswerable question usually has close units that lack its key word, "pet insurance" beside
   "insurance"); a unit in another language, whose words are matched only through a sparse word
   translation, is judged by its similarity alone. The sweep in ``bench/ask.py`` calibrates both.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.text import content_words, words
from handbook.answer_units import Unit, passage_units
from handbook.inline_html import without_markup
from search.ask.asked_kind import KIND_PENALTY, asked_kind, kind_score
from search.ask.passages import Passage
from search.ask.unit_embeddings import unit_vectors
from search.indexing.embedders import Embedder
from search.indexing.unit_vectors import stored_unit_vectors

logger = logging.getLogger(__name__)

MAX_QUOTES = 3
MAX_WORDS = 80  # all quotes together: an answer, not a section
MIN_WORDS = 3
SHORTLIST = 4  # best units by words embedded per question (cold, each costs ~40 ms on 2 cores; cached afterwards)
# Score = words + SIMILARITY_WEIGHT × (cosine − SIMILARITY_BASE) + kind of thing asked + rank prior.
SIMILARITY_WEIGHT = 8.0
SIMILARITY_BASE = 0.8
CONTEXT_WEIGHT = 0.5  # a question word found only in the unit's heading path or page title
RANK_PRIOR = 0.15  # best-ranked passage first when units tie
NAME_WEIGHT = 2.0  # a question word written with a capital (Norvège, Paris, Slack) names what is asked about
NAME_PENALTY = 0.2  # a unit that holds none of the names the question asks about, when others do
OPENING_BONUS = 0.1  # the first statement of a section usually states its rule
SHORTLIST_OTHER_LANGUAGE = 2  # more units embedded when words cannot be matched across languages
PER_PASSAGE = 1  # and the best unit of every passage
# A second or third quote scores within this of the first. Before them, the statement right after
# the best one, which often completes it ("Ils sont référencés sur …"), is quoted when it is in the
# same section and the words allow.
EXTRA_QUOTE_MARGIN = 0.5
# Answerability: the best unit's score must reach MIN_ANSWER_SCORE. A unit in another language than
# the question's also clears it when its similarity reaches OTHER_LANGUAGE_MIN_SIMILARITY (each 0.01
# above counts as SIMILARITY_WEIGHT / 100). Measured on the dev sets by bench/ask.py, which prints
# the sweep.
MIN_ANSWER_SCORE = 1.05
OTHER_LANGUAGE_MIN_SIMILARITY = 0.82
# e5 puts vectors of different languages a little further apart: a unit in the other language gets
# this added when it competes for a quote with one in the question's language.
CROSS_LANGUAGE_OFFSET = 0.04
OTHER_LANGUAGE_QUOTE_MARGIN = 0.0  # how much less close (offset included) a quote in the other language may be
# The same gap where units compete for the best place: a unit in another language than the question's
# is compared by meaning as if this much closer. Its words are matched only through a sparse word
# translation, so without it a same-language unit on a neighbouring subject wins on shared words.
# Calibrated by bench/ask.py on the translated dev questions: 0.05 to 0.07 give the same answers and
# change no native one; from 0.08 native answers start to quote the other language.
OTHER_LANGUAGE_SCORE_OFFSET = 0.06


@dataclass(frozen=True)
class Quote:
    sentence: str  # the quoted unit, as shown to the reader
    passage: Passage
    score: float
    kind: str = "sentence"
    similarity: float | None = None


@dataclass
class Candidate:
    unit: Unit
    passage: Passage
    rank: int
    words: float = 0.0
    kind: float = 0.0
    similarity: float | None = None
    other_language: bool = False  # the unit is not in the question's language

    @property
    def score(self) -> float:
        semantic = 0.0
        if self.similarity is not None:
            offset = OTHER_LANGUAGE_SCORE_OFFSET if self.other_language else 0.0
            semantic = SIMILARITY_WEIGHT * (self.similarity + offset - SIMILARITY_BASE)
        return self.words + self.kind + semantic + RANK_PRIOR / (1 + self.rank)


def _stems(words: list[str]) -> set[str]:
    # A crude stem (prefix) matches "congés"/"conge", "expenses"/"expense" across both languages.
    return {w[: max(4, len(w) - 2)] for w in words if len(w) >= 3 or w.isdigit()}


# "France (hors Paris)", "all countries except Norway": the word after such a marker is what the
# unit is *not* about, so it must not count as the question's word there.
_EXCLUSION_RE = re.compile(
    r"\b(?:hors|sauf|except(?:\s+for)?|excepté|excluding|outside(?:\s+of)?|other\s+than|autres?\s+que|"
    r"à\s+l'exception\s+d[eu']?)\s+(?:(?:de|du|des|la|le|les|the|of)\s+|[ld]')?[\w-]+",
    re.IGNORECASE,
)


def _without_exclusions(text: str) -> str:
    return _EXCLUSION_RE.sub(" ", text)


def _names(question: str) -> set[str]:
    """Stems of the question's capitalised words past its first word: names of places, tools, teams."""
    tokens = re.findall(r"[^\W\d_][\w'-]*", question)
    return _stems([w for t in tokens[1:] if t[0].isupper() and not t.isupper() for w in words(t)])


def _question_stems(question: str, language: str, passages: list[Passage]) -> dict[str, set[str]]:
    """Question stems for units of each language: the question's own, plus its word translation."""
    own = _stems(content_words(question, language))
    stems = {language: own}
    for other in {p.language for p in passages} - {language}:
        translated = _translation(question, language, other)
        stems[other] = own | _stems(content_words(translated, other)) if translated else own
    return stems


def _translation(question: str, source: str, target: str) -> str:
    """The question in ``target`` as retrieval translated it (cached there); "" when there is none."""
    try:
        from search.retrieval.query_translation import query_translations

        return query_translations(question, source).get(target, "")
    except Exception as exc:  # a translation is a bonus
        logger.warning("question translation unavailable for quoting: %s", exc)
        return ""


def candidates(question: str, language: str, passages: list[Passage]) -> list[Candidate]:
    """Every quotable unit of the passages with its word and kind scores, best first."""
    units = passage_units(passages)
    pool: list[Candidate] = []
    seen: set[str] = set()
    for rank, passage in enumerate(passages):
        for unit in units.get(passage.number, []):
            if unit.filler or unit.text in seen or len(unit.text.split()) < MIN_WORDS:
                continue
            seen.add(unit.text)
            pool.append(Candidate(unit, passage, rank, other_language=passage.language != language))
    if not pool:  # nothing but filler: better than nothing
        for rank, passage in enumerate(passages):
            pool.extend(
                Candidate(u, passage, rank, other_language=passage.language != language)
                for u in units.get(passage.number, [])
                if u.text not in seen
            )
    question_stems = _question_stems(question, language, passages)
    unit_stems = [_stems(content_words(_without_exclusions(c.unit.text), c.passage.language)) for c in pool]
    context_stems = [_stems(content_words(f"{c.unit.heading} {c.passage.title}", c.passage.language)) for c in pool]
    # A word's weight: how rare it is among the units at hand (a word every unit has picks none).
    frequency: dict[str, int] = {}
    for s in unit_stems:
        for stem in s:
            frequency[stem] = frequency.get(stem, 0) + 1
    asked = asked_kind(question)
    names = _names(question)
    # When the question names something (Paris, Slack) that some units name too, the others are
    # about something else: "per diem for Paris" is the Paris row, not the day-trip meal limit.
    named = bool(names) and any(names & own for own in unit_stems)
    for c, own, context in zip(pool, unit_stems, context_stems, strict=True):
        wanted = question_stems.get(c.passage.language) or question_stems[language]
        weights = {
            w: math.log(1 + len(pool) / (1 + frequency.get(w, 0))) * (NAME_WEIGHT if w in names else 1.0)
            for w in wanted
        }
        total = sum(weights.values()) or 1.0
        held = sum(weights[w] for w in wanted & own) + CONTEXT_WEIGHT * sum(
            weights[w] for w in (wanted & context) - own
        )
        c.words = held / total
        c.kind = kind_score(asked, c.unit)
        if named and not names & own:
            c.kind -= NAME_PENALTY
        if c.unit.text.rstrip().endswith((":", "?")):
            c.kind -= KIND_PENALTY  # a lead-in or a question restates; it does not answer
        elif c.unit.section_index == 0:
            c.kind += OPENING_BONUS
    pool.sort(key=lambda c: -c.score)
    return pool


def score_by_meaning(
    question_vector: Sequence[float], pool: list[Candidate], shortlist: list[Candidate], embedder: Embedder
) -> list[Candidate]:
    """Similarity to the question for every unit whose vector is stored, and for the shortlist (embedded
    now when not stored: a page saved a moment ago); those compete, the shortlist first."""
    stored = stored_unit_vectors([(c.passage.chunk_id, c.unit.text) for c in pool], embedder.model_name)
    listed = {id(c) for c in shortlist}
    competing = shortlist + [c for c in pool if id(c) not in listed and (c.passage.chunk_id, c.unit.text) in stored]
    for c, cosine in zip(competing, _cosines(question_vector, competing, embedder, stored), strict=True):
        c.similarity = cosine
    return competing


def _cosines(
    question_vector: Sequence[float],
    units: list[Candidate],
    embedder: Embedder,
    stored: dict[tuple[int, str], list[float]],
) -> list[float]:
    keys = [(c.passage.chunk_id, c.unit.text) for c in units]
    vectors = np.asarray(unit_vectors(keys, embedder, stored), dtype=np.float32)
    question = np.asarray(question_vector, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(question)
    return (vectors @ question / np.where(norms == 0, 1, norms)).tolist()


@dataclass
class Selection:
    quotes: list[Quote]
    score: float | None  # answerability score of the best unit; None without vectors

    @property
    def answerable(self) -> bool:
        if not self.quotes:
            return False
        if _ALWAYS.get():
            return True
        if self.score is None:  # no vectors (embeddings off, provider down): word evidence decides
            return self.quotes[0].score > RANK_PRIOR
        return self.score >= MIN_ANSWER_SCORE


_ALWAYS: contextvars.ContextVar[bool] = contextvars.ContextVar("answer_always", default=False)
_LAST_SCORE: contextvars.ContextVar[float] = contextvars.ContextVar("last_answerability_score", default=0.0)
_LAST_BEST: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("last_best_unit")


@contextlib.contextmanager
def answer_always() -> Iterator[None]:
    """Answer whatever the answerability score (bench/ask.py sweeps the threshold over such answers)."""
    token = _ALWAYS.set(True)
    try:
        yield
    finally:
        _ALWAYS.reset(token)


def last_answerability_score() -> float:
    """The answerability score of the last selection made in this context (bench/ask.py)."""
    return _LAST_SCORE.get()


def last_best_unit() -> dict[str, Any]:
    """Similarity, word score and language of the last selection's best unit (bench/ask.py)."""
    return dict(_LAST_BEST.get({}))


def answerability_score(unit: Candidate, language: str) -> float:
    if unit.passage.language == language or unit.similarity is None:
        return unit.score
    by_meaning = MIN_ANSWER_SCORE + SIMILARITY_WEIGHT * (unit.similarity - OTHER_LANGUAGE_MIN_SIMILARITY)
    return max(unit.score, by_meaning)


def select_quotes(
    question: str,
    language: str,
    passages: list[Passage],
    question_vector: Sequence[float] | None = None,
    embedder: Embedder | None = None,
    reorder: Callable[[list[Candidate]], None] | None = None,
) -> Selection:
    """The units to quote and the answerability score of the best one (``reorder``: quote_learning.py)."""
    if not passages:
        return Selection([], None)
    pool = candidates(question, language, passages)
    if not pool:
        return Selection([], None)
    size = SHORTLIST + (SHORTLIST_OTHER_LANGUAGE if any(p.language != language for p in passages) else 0)
    shortlist = pool[:size]
    # Each passage's best units are embedded too: the answer may share no word with the question
    # ("minimum password length" / "At least 14 characters") yet sit in a passage retrieval found.
    for passage in passages:
        own = [c for c in pool if c.passage is passage][:PER_PASSAGE]
        shortlist.extend(c for c in own if c not in shortlist)
    scored = False
    if question_vector is not None and embedder is not None:
        try:
            shortlist = score_by_meaning(question_vector, pool, shortlist, embedder)
            scored = True
        except Exception as exc:  # a provider hiccup must not turn answers into refusals
            logger.warning("unit embedding failed, words decide: %s", exc)
    shortlist.sort(key=lambda c: -c.score)
    if reorder is not None and scored:  # a learnt order of the compared units; answerability stays as shipped
        reorder(shortlist)
    best = shortlist[0]
    chosen = [best]
    words = len(best.unit.text.split())
    following = _following(best, pool)
    if following is not None and words + len(following.unit.text.split()) <= MAX_WORDS:
        chosen.append(following)
        words += len(following.unit.text.split())
    for c in shortlist[1:]:
        if len(chosen) >= MAX_QUOTES or c.score < best.score - EXTRA_QUOTE_MARGIN:
            break
        if c in chosen or words + len(c.unit.text.split()) > MAX_WORDS:
            continue
        chosen.append(c)
        words += len(c.unit.text.split())
    _quote_the_other_language(best, chosen, shortlist, language)
    chosen.sort(key=lambda c: (c is not best, c.rank, c.unit.position))
    quotes = _quotes(chosen)
    # Whether the passages answer at all: judged on every unit compared with the question by meaning.
    score = max(answerability_score(c, language) for c in shortlist if c.similarity is not None) if scored else None
    _LAST_SCORE.set(score if score is not None else 0.0)
    _LAST_BEST.set(
        {"similarity": best.similarity, "words": best.words, "other_language": best.passage.language != language}
    )
    return Selection(quotes, score)


def _quote_the_other_language(
    best: Candidate, chosen: list[Candidate], shortlist: list[Candidate], language: str
) -> None:
    """When every quote is in the question's language, the best unit of a page in another language
    takes the last place if it is nearly as close to the question: a bilingual handbook often
    states a rule in one language only, and the reader sees both (the quote says its language)."""
    if best.similarity is None or any(c.passage.language != language for c in chosen):
        return
    others = [c for c in shortlist if c.passage.language != language and c.similarity is not None]
    if not others:
        return
    other = max(others, key=lambda c: c.score)
    if other.similarity + CROSS_LANGUAGE_OFFSET < best.similarity - OTHER_LANGUAGE_QUOTE_MARGIN:
        return
    kept = chosen[: MAX_QUOTES - 1]  # the weakest of the extra quotes gives way, but only to a quote that fits
    if sum(len(c.unit.text.split()) for c in kept) + len(other.unit.text.split()) <= MAX_WORDS:
        chosen[:] = [*kept, other]


def _quotes(chosen: list[Candidate]) -> list[Quote]:
    """Quotes of the chosen units; a list's lead-in is quoted once, before its first item."""
    quotes: list[Quote] = []
    leads: set[str] = set()
    for c in chosen:
        text, item = c.unit.text, without_markup(c.unit.source)
        if c.unit.kind == "item" and text != item and text.endswith(item):
            lead = text[: len(text) - len(item)]
            if lead in leads:
                text = item
            leads.add(lead)
        quotes.append(Quote(_cap(text), c.passage, c.score, c.unit.kind, c.similarity))
    return quotes


def _following(best: Candidate, pool: list[Candidate]) -> Candidate | None:
    """The unit after the best one in the same passage and section, if it can be quoted."""
    if best.unit.kind == "row":  # the next row is another case, not a continuation
        return None
    for c in pool:
        if (
            c.passage is best.passage
            and c.unit.position == best.unit.position + 1
            and c.unit.anchor == best.unit.anchor
            and c.unit.kind != "row"
        ):
            return c
    return None


def _cap(text: str) -> str:
    """A unit longer than the answer's word budget is cut (still verbatim, marked with an ellipsis)."""
    tokens = text.split()
    if len(tokens) <= MAX_WORDS:
        return text
    return " ".join(tokens[: MAX_WORDS - 1]) + " …"  # the ellipsis counts as a word of the budget
