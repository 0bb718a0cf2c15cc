"""Ask's quote ranker, refitted from verified answers.

An editor's verified answer says which units of a page answer a question. Every such pick is a
lesson for the quote ranker (``search/ask/extractive.py``): among the units of that page, the
picked ones should rank first. A logistic regression over each unit's features — the shipped
score itself, its word score, kind-of-thing-asked score, similarity to the question, whether it
opens its section, where it sits in its section — learns from the picks; with the shipped score among
the features and L2 regularisation, few picks leave the shipped order nearly as it is.

- **No side channel.** Only picks on pages every active member of staff may read teach it, so the
  learnt order (one for everybody) is a function of content everyone may read. The fit keeps the
  pages that taught it, and a reader gets the learnt order only while they may read every one of
  them (their visible pages, as every read path reads them): a page restricted after the fit changes
  nothing for those who can no longer read it (they get the shipped order) until the next fit, which
  leaves it out.
- **Used only when it helps.** It serves once ``MIN_ANSWERS`` verified answers teach it, and only
  when, held out (each answer left out in turn), its first unit is a picked one at least as often
  as the shipped ranker's. The fit report says both figures.
- **Only the order.** Whether the passages answer at all stays the fitted answer decision's.
- Refitted by a task after verified answers change; one fit per embedding model.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db.models import F
from sklearn.linear_model import LogisticRegression

from config.numbers import FIT_MAX_ITERATIONS
from config.numbers import QUOTE_REFIT_MIN_ANSWERS as MIN_ANSWERS
from core import fitted
from handbook.models import Page
from handbook.permissions import pages_everyone_reads
from search.ask.extractive import Candidate, candidates, score_by_meaning
from search.ask.passages import Passage
from search.decisions.answer import answer_decision, unit_score
from search.embedding.model_switch import query_embedder
from search.models import Chunk, QuoteRankerFit, VerifiedAnswer
from search.retrieval.visibility import visible_pages
from search.verified.wording import question_vector, unit_hash

logger = logging.getLogger(__name__)

FEATURES = ("shipped", "words", "kind_held", "similarity", "has_similarity", "opening", "early_in_section")


def features(c: Candidate) -> list[float]:
    return [
        c.score,
        c.words,
        c.kind,
        c.similarity if c.similarity is not None else 0.0,
        1.0 if c.similarity is not None else 0.0,
        1.0 if c.unit.section_index == 0 else 0.0,
        1.0 / (1 + c.unit.section_index),
    ]


def _page_passages(page: Page, vector: list[float] | None) -> list[Passage]:
    revision = page.published_revision
    if revision is None:  # no published text: nothing to quote
        return []
    chunks = Chunk.objects.filter(page=page, revision_id=revision.pk).order_by("ordinal")
    return [
        Passage(
            number=i + 1,
            passage_id=f"p-{c.content_hash[:12]}",
            chunk_id=c.pk,
            page_id=page.pk,
            ref=page.ref,
            title=page.title,
            url=page.get_absolute_url(),
            anchor=c.anchor,
            heading=c.heading,
            text=c.text,
            language=c.language,
            revision_id=c.revision_id,
            revision_number=revision.number,
            content_hash=c.content_hash,
            score=1.0,
            vector_distance=None,
            keyword_rank=None,
            question_vector=vector,
            space_id=page.space_id,
        )
        for i, c in enumerate(chunks)
    ]


def lesson(verified: VerifiedAnswer, embedder: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The features of every quotable unit of the verified page, and which ones the editor picked."""
    page = verified.page
    if page is None:  # a gap, not an answer
        return None
    vector, _model = question_vector(verified.question) if embedder is not None else (None, "")
    passages = _page_passages(page, vector)
    model = embedder.model_name if embedder is not None else None
    pool = candidates(verified.question, verified.language, passages, model) if passages else []
    if not pool:
        return None
    decision = answer_decision(embedder.model_name) if embedder is not None else None
    if vector is not None and embedder is not None and decision is not None:
        score_by_meaning(vector, pool, pool, embedder)
        for c in pool:  # the "shipped" feature is the answer decision's own score, as Ask ranks
            c.fitted = unit_score(c.features(), decision)
    picked = {row["hash"] for row in verified.units}
    labels = np.asarray([unit_hash(c.unit.text) in picked for c in pool], dtype=np.int8)
    if not labels.any() or labels.all():
        return None
    return np.asarray([features(c) for c in pool], dtype=np.float64), labels


def _fit(lessons: list[tuple[np.ndarray, np.ndarray]]) -> LogisticRegression:
    x = np.vstack([f for f, _ in lessons])
    y = np.concatenate([labels for _, labels in lessons])
    return LogisticRegression(C=1.0, class_weight="balanced", max_iter=FIT_MAX_ITERATIONS).fit(x, y)


def _first_is_picked(lessons: list[tuple[np.ndarray, np.ndarray]], score: Callable[[np.ndarray], np.ndarray]) -> float:
    hits = [labels[int(np.argmax(score(f)))] for f, labels in lessons]
    return float(np.mean(hits)) if hits else 0.0


def quote_ranker_fit() -> QuoteRankerFit | None:
    """Refit the ranker for the serving embedding model from the verified answers everyone may read."""
    started = time.monotonic()
    embedder = query_embedder()
    model = embedder.model_name if embedder is not None else ""
    everyone = pages_everyone_reads()
    answers = VerifiedAnswer.objects.filter(
        kind=VerifiedAnswer.Kind.ANSWER, page_id__in=everyone, revision_id=F("page__published_revision_id")
    ).select_related("page__published_revision")
    taught = [(verified.page_id, found) for verified in answers if (found := lesson(verified, embedder)) is not None]
    lessons = [found for _page_id, found in taught]
    shipped = _first_is_picked(lessons, lambda f: f[:, 0])
    learnt_held_out = 0.0
    if len(lessons) >= 2:
        hits = []
        for i, (f, labels) in enumerate(lessons):
            others = lessons[:i] + lessons[i + 1 :]
            hits.append(labels[int(np.argmax(_fit(others).decision_function(f)))])
        learnt_held_out = float(np.mean(hits))
    report: dict[str, Any] = {
        "answers": len(lessons),
        "units": int(sum(len(labels) for _f, labels in lessons)),
        "features": list(FEATURES),
        "held_out_first_unit_picked": {"shipped": round(shipped, 3), "learnt": round(learnt_held_out, 3)},
        "min_answers": MIN_ANSWERS,
        "rule": "picks on pages every active account may read",
        "seconds": round(time.monotonic() - started, 2),
    }
    weights: dict[str, Any] = {}
    if len(lessons) >= 2:
        fitted = _fit(lessons)
        weights = {
            "coef": fitted.coef_[0].round(6).tolist(),
            "intercept": float(fitted.intercept_[0]),
            "pages": sorted({page_id for page_id, _found in taught}),  # who may be served it: their readers
        }
        report["weights"] = dict(zip(FEATURES, weights["coef"], strict=True))
    in_use = bool(weights) and len(lessons) >= MIN_ANSWERS and learnt_held_out >= shipped
    fit, _created = QuoteRankerFit.objects.update_or_create(
        model=model, defaults={"weights": weights, "report": report, "in_use": in_use}
    )
    logger.info("quote ranker refitted for %s: %s", model or "no embedder", report)
    return fit


@dataclass(frozen=True)
class LearntRanker:
    coef: np.ndarray
    pages: frozenset[int]  # the pages whose verified answers taught it


def _read(model: str) -> LearntRanker | None:
    row = QuoteRankerFit.readable().filter(model=model, in_use=True).values_list("weights", flat=True).first()
    if row and row.get("coef") and isinstance(row.get("pages"), list):
        return LearntRanker(np.asarray(row["coef"], dtype=np.float64), frozenset(int(p) for p in row["pages"]))
    return None


def learnt_weights(model: str) -> LearntRanker | None:
    """The in-use ranker for ``model`` (``core/fitted.py`` keeps it), or None: the shipped order. A fit
    stored without the pages that taught it is not served (nobody can tell who may get it)."""
    return fitted.current(QuoteRankerFit.KIND, model, _read)


def learnt_order(shortlist: list[Candidate], model: str, reader: Any = None) -> None:
    """Sort ``shortlist`` best first by the learnt ranker, when one is in use for ``model`` and
    ``reader`` may read every page that taught it (no reader: the shipped order)."""
    ranker = learnt_weights(model)
    if ranker is None or reader is None or len(ranker.coef) != len(FEATURES) or not shortlist:
        return
    if not ranker.pages <= set(visible_pages(reader)):
        return
    scores = np.asarray([features(c) for c in shortlist]) @ ranker.coef
    order = np.argsort(-scores, kind="stable")
    shortlist[:] = [shortlist[i] for i in order]
