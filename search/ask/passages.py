"""The passages an answer may use: best chunks of the best pages the user may read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from config.numbers import ASK_MAX_CHUNKS_PER_PAGE as MAX_CHUNKS_PER_PAGE
from config.numbers import (
    FIRST_PAGE_CHUNKS,
    MAX_PASSAGE_CHARS,
    MAX_PASSAGES,
    OTHER_LANGUAGE_LOOKAHEAD,
    OTHER_LANGUAGE_PAGES,
)
from search.embedding.model_switch import query_embedder
from search.retrieval import resolve
from search.retrieval.hits import Retrieval
from search.retrieval.pipeline import retrieve
from search.retrieval.query import ParsedQuery
from search.retrieval.twins import twin_pairs, twins_to_drop

# What a passage keeps of its chunk (and of the heads, their language): a chunk's vectors and its
# revision's whole text are not read, for the up to forty chunks an Ask resolves.
PASSAGE_FIELDS = ("anchor", "heading", "text", "language", "content_hash", "revision__number")


@dataclass(frozen=True)
class Passage:
    number: int  # [n] as shown to the model and the reader
    passage_id: str  # stable while the text is unchanged: p-<content hash prefix>
    chunk_id: int
    page_id: int
    ref: str
    title: str
    url: str
    anchor: str
    heading: str
    text: str
    language: str
    revision_id: int
    revision_number: int
    content_hash: str
    score: float
    vector_distance: float | None
    keyword_rank: int | None
    # The question's vector as its retrieval computed it (one list shared by a question's passages):
    # Ask's sentence choice reuses it instead of embedding the question again through a cache
    # every person shares (its timing would tell who asked what).
    question_vector: list[float] | None = field(default=None, repr=False, compare=False)
    space_id: int = 0  # where the passage lives: the Ask log keeps the spaces a question reached
    # The question in the passages' other languages, as retrieval translated it for this asker (from
    # the words of pages they may read only): the quote choice matches a unit in another language
    # through it. Empty when every passage is in the question's language.
    question_translations: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)


def embedder_for(passages: list[Passage], known: Any = None) -> Any:
    """The serving embedder when these passages come with the question's meaning (retrieval computed
    its vector, or a passage came from a vector list); None otherwise (embeddings off). ``known``: the
    one their retrieval resolved, so an Ask reads which model serves once, not at every step."""
    if not any(p.question_vector or p.vector_distance is not None for p in passages):
        return None
    return known if known is not None else query_embedder()


def passages_for(
    question: str | ParsedQuery, user: Any, retrieval: Retrieval | None = None, language: str | None = None
) -> tuple[Retrieval, list[Passage]]:
    """Retrieve through the one permission-filtered path and pick bounded passages (``language``: the
    question's, when already detected)."""
    retrieval = retrieval or retrieve(question, user, language=language)
    picked: list[tuple[int, Any]] = []
    for rank, page_hit in enumerate(retrieval.pages):
        for hit in page_hit.chunks[: FIRST_PAGE_CHUNKS if rank == 0 else MAX_CHUNKS_PER_PAGE]:
            if len(picked) >= MAX_PASSAGES:
                break
            picked.append((page_hit.page_id, hit))
        if len(picked) >= MAX_PASSAGES:
            break
    # The best chunk of the first pages, to find those in another language than the question's;
    # read with the picked chunks in one statement.
    heads = [(ph.page_id, ph.best) for ph in retrieval.pages[:OTHER_LANGUAGE_LOOKAHEAD] if ph.chunks]
    heads = heads if OTHER_LANGUAGE_PAGES > 0 and retrieval.query_language else []
    chunks = resolve.chunks({h.chunk_id for _, h in picked + heads}, *PASSAGE_FIELDS, with_revision=True)
    language = retrieval.query_language
    others = [(pid, hit) for pid, hit in heads if getattr(chunks.get(hit.chunk_id), "language", language) != language]
    for item in others[:OTHER_LANGUAGE_PAGES]:
        if any(pid == item[0] for pid, _ in picked):
            continue
        # The last passage of a page that has several gives way (else the last one).
        picked_ids = [pid for pid, _ in picked]
        shared = [i for i, pid in enumerate(picked_ids) if picked_ids.count(pid) > 1]
        if len(picked) >= MAX_PASSAGES:
            del picked[shared[-1] if shared else -1]
        picked.append(item)
    picked.sort(key=lambda item: -item[1].score)
    pages = resolve.readable_pages(user, {pid for pid, _ in picked})
    # Two linked twins the asker may read state the same facts: only one of them is quoted.
    order = [pid for pid, _ in picked if pid in pages]
    languages = {pid: page.language for pid, page in pages.items()}
    dropped = twins_to_drop(order, twin_pairs(pages), languages, retrieval.query_language)
    passages: list[Passage] = []
    translations = _translations(retrieval, {chunk.language for chunk in chunks.values()})
    for page_id, hit in picked:
        if page_id in dropped:
            continue
        chunk, page = chunks.get(hit.chunk_id), pages.get(page_id)
        if chunk is None or page is None:
            continue
        passages.append(
            Passage(
                number=len(passages) + 1,
                passage_id=f"p-{chunk.content_hash[:12]}",
                chunk_id=chunk.pk,
                page_id=page.pk,
                ref=page.ref,
                title=page.title,
                url=page.get_absolute_url(),
                anchor=chunk.anchor,
                heading=chunk.heading,
                text=chunk.text[:MAX_PASSAGE_CHARS],
                language=chunk.language,
                revision_id=chunk.revision_id,
                revision_number=chunk.revision.number,
                content_hash=chunk.content_hash,
                score=hit.score,
                vector_distance=hit.vector_distance,
                keyword_rank=hit.keyword_rank,
                question_vector=retrieval.query_vector,
                space_id=page.space_id,
                question_translations=translations,
            )
        )
    return retrieval, passages


def _translations(retrieval: Retrieval, passage_languages: set[str]) -> dict[str, str]:
    """The question in the passages' other languages, as retrieval's translated list searched it (the
    same reader's words): none when retrieval did not translate (a phrase or an excluded word asks for
    those words exactly)."""
    translations = retrieval.translations or {}
    return {language: text for language, text in translations.items() if language in passage_languages}
