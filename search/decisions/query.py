"""Is this query about the handbook, and is this page a result? One fitted decision.

Nearest neighbours always exist: a vector list returns its nearest chunks for any query,
gibberish included. Whether a query means something here is decided from named features of
the query, each read from what the reader may read or from fixed text the project ships:

- ``stand_out``: how much nearer the query its nearest readable chunk is than its ``STAND_OUT_RANK``-th
  nearest (the vector list's own rows). Not the nearest chunk's similarity itself: the more chunks a
  handbook has, the nearer its nearest one to anything, a keyboard mash included (bench.no_match
  measures it at two handbook sizes), while a passage that answers the query stands out of the rest
  at any size;
- ``workplace`` / ``everyday``: similarity of the nearest shipped sentence on the subjects handbooks
  cover, and on everyday subjects they do not (``search/embedding/sentence_sets.py``): a question on
  another subject is closer to a sentence on its own subject than to the handbook;
- ``handbook_question`` / ``other_query``: similarity of the nearest shipped query of each kind, query
  to query — the questions the calibration handbook answers, and the calibration queries on other
  subjects: what people type about a handbook reads like other such questions whatever the company;
- ``words``: the query is made of words — a keyword list found a readable chunk, or it has a stop-word
  (not a keyboard mash);
- ``unheld``: one of its words is held by no chunk the reader may read — weighed only by a decision
  that names it: the fitted ones do not (``search/calibration/query_fit.py`` says why).

``probability`` is the fitted model's (``search/calibration/query_fit.py``); the query is a
*confident* one from the ``result`` threshold. A query that is not confident is still answered when
its words carry it (a chunk holds most of them); one below ``clearly_off`` needs a chunk holding
every word. A page alone is confident by the same decision with its own nearest chunk. Vector
hits count from the ``vector_floor`` / ``centred_floor`` similarities.

Without a policy for the model (a new model before its first calibration, or an install whose
worker has not run it) nothing is confident on meaning: the words carry every match, as in keyword
search alone — every page the keyword list finds (any of the query's words, ranked by their IDF) is
a result, fused with the vector lists for its rank; a page only the vector lists found is not one
(their similarities mean nothing before a fit). So gibberish finds nothing, and a question whose
words are spread over a page, or has a word no page holds, still finds it: without a fitted
decision to tell a real question from one on another subject, no rule is stricter than keyword
search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from config.numbers import STAND_OUT_NO_FLOOR as NO_FLOOR
from config.numbers import STAND_OUT_RANK
from search.decisions.policy import Decision, decision_for

QUERY = "query"
FEATURES = ("stand_out", "workplace", "everyday", "handbook_question", "other_query", "words")


@dataclass(frozen=True)
class QueryFeatures:
    nearest: float  # similarity of the nearest readable chunk (the page decision reads it too)
    workplace: float
    everyday: float
    words: bool
    unheld: bool = False  # weighed by a decision that names it (the fitted ones do not: see query_fit)
    stand_out: float = 0.0
    handbook_question: float = 0.0
    other_query: float = 0.0

    def values(self) -> dict[str, float]:
        return {
            "nearest": self.nearest,
            "stand_out": self.stand_out,
            "workplace": self.workplace,
            "everyday": self.everyday,
            "handbook_question": self.handbook_question,
            "other_query": self.other_query,
            "words": float(self.words),
            "unheld": float(self.unheld),
        }


@dataclass(frozen=True)
class QueryDecision:
    confident: bool  # the query means something here: pages near in meaning are results
    clearly_off: bool  # clearly about something else: a chunk must hold every word to match
    probability: float | None  # None: no policy, keyword rules decided
    features: QueryFeatures | None = None


SAFE = QueryDecision(confident=False, clearly_off=False, probability=None)


def decide_query(
    features: QueryFeatures, decision: Decision | None, unheld: Callable[[], bool] | None = None
) -> QueryDecision:
    """The decision over ``features``. ``unheld``, when given, is asked only if the answer could
    change it (it reads the reader's word statistics; most queries are decided either way)."""
    if decision is None:
        return replace(SAFE, features=features)
    result, off = decision.threshold("result"), decision.threshold("clearly_off")
    if unheld is not None:
        features = replace(features, unheld=False)
    p = decision.probability(features.values())
    if unheld is not None:
        missing = replace(features, unheld=True)
        p_missing = decision.probability(missing.values())
        if _outcome(p, result, off) != _outcome(p_missing, result, off) and unheld():
            features, p = missing, p_missing
    confident, clearly_off = _outcome(p, result, off)
    return QueryDecision(confident=confident, clearly_off=clearly_off, probability=p, features=features)


def _outcome(p: float, result: float, off: float) -> tuple[bool, bool]:
    return p >= result, p < off


PAGE = "page"
PAGE_FEATURES = ("similarity", "behind", "coverage")


@dataclass(frozen=True)
class PageFeatures:
    """A result page of a confident query: its nearest chunk's similarity, how far behind the query's
    nearest chunk that is, and the share of the query's words (IDF) its best chunk holds."""

    similarity: float
    behind: float
    coverage: float

    def values(self) -> dict[str, float]:
        return {"similarity": self.similarity, "behind": self.behind, "coverage": self.coverage}


def page_close(features: PageFeatures, decision: Decision | None) -> bool:
    """Whether a result page matches closely (``close`` threshold) rather than loosely."""
    if decision is None:
        return False
    return decision.probability(features.values()) >= decision.threshold("close")


def page_decision(model: str) -> Decision | None:
    return decision_for(model, PAGE)


def query_decision(model: str) -> Decision | None:
    """The fitted query decision of ``model``, or None while it has no policy."""
    return decision_for(model, QUERY)


def stand_out(similarities: list[float], floor: float) -> float:
    """How much the nearest of ``similarities`` (best first) stands out of the ``STAND_OUT_RANK``-th; a
    shorter list was cut at ``floor``, which bounds the missing similarities from above."""
    if not similarities:
        return 0.0
    kth = similarities[STAND_OUT_RANK - 1] if len(similarities) >= STAND_OUT_RANK else floor
    return similarities[0] - kth


def vector_floors(decision: Decision | None) -> tuple[float, float]:
    """Least similarity of a vector-list hit and of a language-centred-list hit."""
    if decision is None:
        return NO_FLOOR, NO_FLOOR
    return decision.thresholds.get("vector_floor", NO_FLOOR), decision.thresholds.get("centred_floor", NO_FLOOR)
