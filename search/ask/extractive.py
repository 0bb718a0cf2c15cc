"""Extractive answers: quote the units of the passages that state the answer.

Never writes a word of its own: every quote is a unit of a passage the user
may read (a sentence, a list item with its lead-in, a table row with its
headers: ``statements/answer_units.py``) and carries that passage's citation.

Choosing the quote looks for the answer, not only for shared words:

1. every unit of the passages gets a word score: the question's words it
   holds, each word weighted by how rare it is among the units at hand (a name the question writes
   with a capital weighs more), with the question translated word by word for units in the other
   language; and whether it holds the kind of thing asked ("how many / combien" wants a number, "how
   long" a duration, "who" a person or team, "where" a place, tool or link:
   ``search/ask/fitted_kind.py``). The answer decision's fitted weights of these two make a unit's
   evidence, which orders the units before they are compared by meaning. Filler ("This page
   explains…", "see also") and code never compete;
2. every unit whose vector is stored at index time
   (``search/indexing/unit_vectors.py``) is compared with the question by meaning, and so are the
   best few by words even when not stored yet (a page saved a moment ago: those are embedded now);
   the model's fitted answer decision (``search/decisions/answer.py``) then scores each from its
   words, kind, similarity and language;
3. the answer is the best unit (the units the search snippet under the best result shows are always
   compared: ``search/ask/snippet_units.py``); when the decision is sure of it, up to two
   more that it is sure of too and that each state something the quotes before them do not, within
   80 words (one fact, well quoted: an unsure answer is its best unit alone);
4. the passages answer the question when their best unit is an answer (the decision's threshold,
   fitted per embedding model by ``manage.py calibrate``). Without a policy for the model yet, the
   evidence chooses (weighed as the bundled model's decision weighs it) with a prior for the
   best-ranked passages, and decides (an answer when some unit holds more than the prior), and no
   answer is sure.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from config.numbers import ASK_MAX_WORDS as MAX_WORDS
from config.numbers import ASK_MIN_WORDS as MIN_WORDS
from config.numbers import ASK_NAME_WEIGHT, ASK_OPENING_BONUS, ASK_RANK_PRIOR, MAX_QUOTES
from config.numbers import ASK_SHORTLIST as SHORTLIST
from config.numbers import ASK_SHORTLIST_OTHER_LANGUAGE as SHORTLIST_OTHER_LANGUAGE
from config.numbers import ASK_UNITS_PER_PASSAGE as PER_PASSAGE
from core.text import content_words
from handbook.inline_html import without_markup
from search.ask.asked_kind import asked_kind, kind_match
from search.ask.fitted_kind import feature_kind, kind_score
from search.ask.passages import Passage
from search.ask.question_words import names_asked, question_stems, stems, without_exclusions
from search.ask.snippet_units import Question, in_snippet
from search.ask.unit_embeddings import unit_vectors
from search.decisions.answer import (
    ANSWER,
    UnitFeatures,
    answer_decision,
    evidence_decision,
    is_sure,
    unit_score,
    weigh_evidence,
)
from search.decisions.policy import Decision
from search.embedding.embedders import Embedder
from search.indexing.unit_vectors import stored_unit_vectors
from statements.answer_units import Unit, passage_units

logger = logging.getLogger(__name__)

# Extra quotes come only with a sure answer, and each is sure itself (search/decisions/answer.py).
# Before them, the statement right after the best one, which often completes it ("Ils sont
# référencés sur …"), is quoted when it is in the same section and sure too. Words only (no policy
# yet) no answer is sure: its best unit is quoted alone.


@dataclass(frozen=True)
class Quote:
    sentence: str  # the quoted unit, as shown to the reader
    passage: Passage
    score: float
    kind: str = "sentence"
    similarity: float | None = None
    # An unsure lead is shown in its context: the units next to it in its passage's section.
    before: str = ""
    after: str = ""


@dataclass
class Candidate:
    unit: Unit
    passage: Passage
    rank: int
    words: float = 0.0
    kind: float = 0.0  # 1: holds the kind of thing asked; -1: lacks the number asked for, or leads in; plus an opening
    evidence: float = 0.0  # the decision's weights over the features above, in words (the words alone without one)
    kind_match: float = 0.0  # 1: holds the kind asked; -1: holds none of it; 0: nothing in particular asked
    similarity: float | None = None
    other_language: bool = False  # the unit is not in the question's language
    fitted: float | None = None  # the answer decision's logit, once compared by meaning
    said: frozenset[str] = frozenset()  # the unit's word stems beyond the question's: what it states

    @property
    def score(self) -> float:
        """The fitted logit; before (or without a policy) the evidence with the passage's rank prior."""
        if self.fitted is not None:
            return self.fitted
        return self.evidence + ASK_RANK_PRIOR / (1 + self.rank)

    def features(self) -> UnitFeatures:
        return UnitFeatures(self.words, self.kind, self.similarity or 0.0, self.other_language, self.kind_match)


def candidates(question: str, language: str, passages: list[Passage], model: str | None = None) -> list[Candidate]:
    """Every quotable unit of the passages with its evidence (weighed by ``model``'s decision, else the
    bundled model's, with the passage's rank prior), best first."""
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
    asked_stems = question_stems(question, language, passages)
    unit_stems = [stems(content_words(without_exclusions(c.unit.text), c.passage.language)) for c in pool]
    # A word's weight: how rare it is among the units at hand (a word every unit has picks none).
    frequency: dict[str, int] = {}
    for s in unit_stems:
        for stem in s:
            frequency[stem] = frequency.get(stem, 0) + 1
    asked, fitted_kind = asked_kind(question), feature_kind(question)
    names = names_asked(question)
    weighing = evidence_decision(model)
    for c, own in zip(pool, unit_stems, strict=True):
        wanted = asked_stems.get(c.passage.language) or asked_stems[language]
        weights = {
            w: math.log(1 + len(pool) / (1 + frequency.get(w, 0))) * (ASK_NAME_WEIGHT if w in names else 1.0)
            for w in wanted
        }
        total = sum(weights.values()) or 1.0
        c.words = sum(weights[w] for w in wanted & own) / total
        c.said = frozenset(own - wanted)
        c.kind_match = kind_match(asked, c.unit)
        c.kind = kind_score(fitted_kind, c.unit)
        if c.unit.text.rstrip().endswith((":", "?")):
            c.kind -= 1.0  # a lead-in or a question restates; it does not answer
        elif c.unit.section_index == 0:
            c.kind += ASK_OPENING_BONUS
        c.evidence = weigh_evidence(c.features(), weighing)
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


@dataclass(frozen=True)
class BestUnit:
    """What the decision saw of the best unit it compared: the bench reads why a question was (not) answered."""

    similarity: float | None
    words: float
    other_language: bool


@dataclass(frozen=True)
class Selection:
    """The decision on a question's units: the would-be quotes (whatever the threshold), how likely the
    passages answer, and whether they do. Ask answers from it; the bench and tests read the same value."""

    quotes: Sequence[Quote]
    score: float | None  # probability that the best unit answers; None: not compared by meaning
    threshold: float = 1.0  # the answer decision's
    lead: float | None = None  # the fitted probability of the quoted lead unit; None: not compared by meaning
    sure: bool = False  # the decision is sure the lead states the answer
    best: BestUnit | None = None  # the best unit compared; None: no unit

    @property
    def answerable(self) -> bool:
        if not self.quotes:
            return False
        if self.score is None:  # no vectors or no policy yet: the evidence decides
            return self.quotes[0].score > ASK_RANK_PRIOR
        return self.score >= self.threshold


def select_quotes(
    question: str,
    language: str,
    passages: list[Passage],
    question_vector: Sequence[float] | None = None,
    embedder: Embedder | None = None,
    reorder: Callable[[list[Candidate]], None] | None = None,
) -> Selection:
    """The units to quote and the answerability score of the best one (``reorder``: quote_learning.py)."""
    model = embedder.model_name if embedder is not None else None
    pool = candidates(question, language, passages, model) if passages else []
    decision = answer_decision(model) if model is not None else None
    return decide(question, language, passages, pool, question_vector, embedder, decision, reorder)


def decide(
    question: Question,
    language: str,
    passages: list[Passage],
    pool: list[Candidate],
    question_vector: Sequence[float] | None,
    embedder: Embedder | None,
    decision: Decision | None,
    reorder: Callable[[list[Candidate]], None] | None = None,
) -> Selection:
    """The decision on the passages' units (``pool``, from ``candidates``): which to quote, and whether
    and how surely they answer. ``question``: as parsed once by the asking (or its text); ``decision``:
    the embedder's fitted answer decision (None: words decide)."""
    if not passages or not pool:
        return Selection([], None)
    size = SHORTLIST + (SHORTLIST_OTHER_LANGUAGE if any(p.language != language for p in passages) else 0)
    shortlist = pool[:size]
    # Each passage's best units are embedded too: the answer may share no word with the question
    # ("minimum password length" / "At least 14 characters") yet sit in a passage retrieval found.
    for passage in passages:
        own = [c for c in pool if c.passage is passage][:PER_PASSAGE]
        shortlist.extend(c for c in own if c not in shortlist)
    # and the units the search snippet under the best result shows: compared by meaning, so the decision
    # never leads with a unit it scores below one of them (a learnt order from verified answers still may)
    first = passages[0]
    shown = {id(u) for u in in_snippet(question, first.text, [c.unit for c in pool if c.passage is first])}
    snippet = [c for c in pool if c.passage is first and id(c.unit) in shown]
    shortlist.extend(c for c in snippet if c not in shortlist)
    scored = False
    if question_vector is not None and embedder is not None and decision is not None:
        try:
            shortlist = score_by_meaning(question_vector, pool, shortlist, embedder)
            scored = True
        except Exception as exc:  # a provider hiccup must not turn answers into refusals
            logger.warning("unit embedding failed, words decide: %s", exc)
    if scored and decision is not None:
        for c in shortlist:
            c.fitted = unit_score(c.features(), decision)
    shortlist.sort(key=lambda c: -c.score)
    if reorder is not None and scored:  # a learnt order of the compared units; answerability stays as fitted
        reorder(shortlist)
    best = shortlist[0]
    chosen = [best]
    judged = decision if scored else None
    lead = judged.probability(best.features().values()) if judged is not None else None
    lead_sure = judged is not None and lead is not None and is_sure(lead, judged)
    if judged is not None and lead_sure:
        words = len(best.unit.text.split())
        following = _following(best, pool)
        if (
            following is not None
            and _sure(following, judged)
            and _adds(following, chosen)
            and words + _words(following) <= MAX_WORDS
        ):
            chosen.append(following)
            words += _words(following)
        for c in shortlist[1:]:
            if len(chosen) >= MAX_QUOTES:
                break
            if c in chosen or words + _words(c) > MAX_WORDS or not _sure(c, judged) or not _adds(c, chosen):
                continue
            chosen.append(c)
            words += _words(c)
        _quote_the_other_language(best, chosen, shortlist, language, judged)
    chosen.sort(key=lambda c: (c is not best, c.rank, c.unit.position))
    quotes = _quotes(chosen)
    if not lead_sure:  # a passage to check, not an answer: the likely unit in its context
        before, after = _context(best, pool)
        quotes[0] = replace(quotes[0], before=before, after=after)
    # Whether the passages answer at all: the best probability among the units compared by meaning.
    score = None
    if scored and decision is not None:
        score = max(decision.probability(c.features().values()) for c in shortlist if c.similarity is not None)
    threshold = decision.threshold(ANSWER) if decision is not None else 1.0
    seen = BestUnit(best.similarity, best.words, best.passage.language != language)
    return Selection(quotes, score, threshold, lead, lead_sure, seen)


def _words(c: Candidate) -> int:
    return len(c.unit.text.split())


def _adds(c: Candidate, chosen: list[Candidate]) -> bool:
    """Whether the unit states something the quotes chosen do not: a word of its own beyond the question's."""
    return bool(c.said - frozenset().union(*(q.said for q in chosen)))


def _sure(c: Candidate, decision: Decision) -> bool:
    """Whether the decision is sure this unit states the answer; a unit not compared by meaning is not."""
    return c.similarity is not None and is_sure(decision.probability(c.features().values()), decision)


def _quote_the_other_language(
    best: Candidate, chosen: list[Candidate], shortlist: list[Candidate], language: str, decision: Decision
) -> None:
    """When every quote is in the question's language, the best unit of a page in another language
    takes the last place if the decision is sure of it too: a bilingual handbook often states a rule
    in one language only, and the reader sees both (the quote says its language)."""
    if any(c.passage.language != language for c in chosen):
        return
    others = [c for c in shortlist if c.passage.language != language and c.similarity is not None]
    if not others:
        return
    other = max(others, key=lambda c: c.score)
    if not _sure(other, decision):
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


def _context(unit: Candidate, pool: list[Candidate]) -> tuple[str, str]:
    """The units just before and after ``unit`` in its passage's section, each kept only while the
    whole stays within the answer's word budget (table rows are other cases: a row stands alone)."""
    if unit.unit.kind == "row":
        return "", ""
    near = {
        c.unit.position: c.unit.text
        for c in pool
        if c.passage is unit.passage and c.unit.anchor == unit.unit.anchor and c.unit.kind != "row"
    }
    words, around = len(unit.unit.text.split()), []
    for text in (near.get(unit.unit.position - 1, ""), near.get(unit.unit.position + 1, "")):
        fits = words + len(text.split()) <= MAX_WORDS
        words += len(text.split()) if fits else 0
        around.append(text if fits else "")
    return around[0], around[1]


def _cap(text: str) -> str:
    """A unit longer than the answer's word budget is cut (still verbatim, marked with an ellipsis)."""
    tokens = text.split()
    if len(tokens) <= MAX_WORDS:
        return text
    return " ".join(tokens[: MAX_WORDS - 1]) + " …"  # the ellipsis counts as a word of the budget
