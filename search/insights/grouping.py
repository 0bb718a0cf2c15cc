"""Questions and searches grouped by similar wording, so near-duplicates are counted together.

Wordings are first merged when they are the same once folded (case, accents, punctuation);
then, when the serving query embedder is at hand, a wording joins the group of the first more
frequent one whose question vector is close enough (cosine ``similarity_threshold()``). Vectors
are cached by wording (the Insights page is read by editors only; searches keep their own
per-person cache). Without an embedder, or when it fails, the folded-text groups stand.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.core.cache import cache

from config.numbers import GROUP_VARIANTS_SHOWN, REJECTED_SEVERAL
from config.numbers import GROUPING_BATCH as BATCH
from config.numbers import GROUPING_MAX_EMBEDDED as MAX_EMBEDDED
from config.numbers import GROUPING_VECTOR_TTL_S as VECTOR_TTL_S
from search.decisions.same_question import fold, similarity_threshold
from search.embedding.model_switch import query_embedder

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Mention:
    """One asked question or submitted search (no person)."""

    text: str
    kind: str  # "ask" | "search"
    at: datetime
    spaces: tuple[int, ...] = ()
    outcome: str = ""  # for an ask: "no_answer", "rejected" (answered, rated "not helpful") or ""


@dataclass
class Group:
    text: str  # the most frequent wording
    count: int = 0
    asks: int = 0
    searches: int = 0
    no_answer: int = 0  # asks that got no answer
    rejected: int = 0  # asks whose answer the asker rated "not helpful"
    last_seen: datetime | None = None
    spaces: list[int] = field(default_factory=list)  # most mentioned first
    variants: list[str] = field(default_factory=list)  # other wordings, most frequent first

    @property
    def answered_badly(self) -> bool:
        return self.rejected >= REJECTED_SEVERAL

    @property
    def unanswered(self) -> bool:
        """Not to be listed as answered: every ask got no answer, or answers were rejected several times."""
        return self.answered_badly or (self.asks > 0 and self.no_answer == self.asks)


def _embedder():
    try:
        return query_embedder()
    except Exception as exc:  # grouping by folded text is still useful
        logger.warning("no query embedder for the Insights grouping: %s", exc)
        return None


def vectors(texts: list[str]) -> tuple[np.ndarray, str] | None:
    """Unit question vectors of ``texts`` (one row each) and the model's name, or None."""
    embedder = _embedder() if texts else None
    if embedder is None:
        return None
    model = embedder.model_name
    keys = ["insights:qv:" + hashlib.sha256((model + "\n" + t).encode()).hexdigest() for t in texts]
    try:
        found = cache.get_many(keys)
    except Exception:
        found = {}
    missing = [i for i, key in enumerate(keys) if key not in found]
    try:
        for start in range(0, len(missing), BATCH):
            batch = missing[start : start + BATCH]
            made = embedder.embed_queries([texts[i] for i in batch])
            fresh = {keys[i]: vector for i, vector in zip(batch, made, strict=True)}
            found.update(fresh)
            try:
                cache.set_many(fresh, VECTOR_TTL_S)
            except Exception as exc:
                logger.warning("Insights vector cache unavailable: %s", exc)
    except Exception as exc:
        logger.warning("question vectors unavailable for the Insights grouping: %s", exc)
        return None
    matrix = np.asarray([found[key] for key in keys], dtype=np.float32)
    if matrix.ndim != 2 or len({len(found[key]) for key in keys}) != 1:
        return None
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms), model


def group_mentions(mentions: list[Mention], *, use_vectors: bool = True) -> list[Group]:
    """Groups, most mentioned first (then most recent)."""
    by_fold: dict[str, list[Mention]] = {}
    for mention in mentions:
        key = fold(mention.text)
        if key:
            by_fold.setdefault(key, []).append(mention)
    keys = sorted(by_fold, key=lambda k: (-len(by_fold[k]), -max(m.at for m in by_fold[k]).timestamp(), k))
    leaders: list[int] = list(range(len(keys)))  # each folded wording's group: the index of its leader
    embedded = keys[:MAX_EMBEDDED]
    found = vectors(embedded) if use_vectors and len(embedded) > 1 else None
    if found is not None:
        matrix, model = found
        threshold = similarity_threshold(model)
        heads: list[int] = []
        for i in range(len(embedded)):
            if heads:
                scores = matrix[heads] @ matrix[i]
                best = int(np.argmax(scores))
                if scores[best] >= threshold:
                    leaders[i] = heads[best]
                    continue
            heads.append(i)
    clusters: dict[int, list[Mention]] = {}
    for i, key in enumerate(keys):
        clusters.setdefault(leaders[i], []).extend(by_fold[key])
    groups = [_group(members) for members in clusters.values()]
    groups.sort(key=lambda g: (-g.count, -(g.last_seen.timestamp() if g.last_seen else 0), g.text))
    return groups


def _group(members: list[Mention]) -> Group:
    wordings = Counter(" ".join(m.text.split()) for m in members)
    ranked = [text for text, _n in wordings.most_common()]
    variants: list[str] = []
    seen = {fold(ranked[0])}
    for text in ranked[1:]:
        if fold(text) not in seen:
            seen.add(fold(text))
            variants.append(text)
    spaces = Counter(space for m in members for space in m.spaces)
    return Group(
        text=ranked[0],
        count=len(members),
        asks=sum(1 for m in members if m.kind == "ask"),
        searches=sum(1 for m in members if m.kind == "search"),
        no_answer=sum(1 for m in members if m.outcome == "no_answer"),
        rejected=sum(1 for m in members if m.outcome == "rejected"),
        last_seen=max(m.at for m in members),
        spaces=[space for space, _n in spaces.most_common()],
        variants=variants[:GROUP_VARIANTS_SHOWN],
    )
