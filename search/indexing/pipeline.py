"""Keep a page's chunks true to its published revision.

``page_reindex`` is what the Celery task runs. It is idempotent and safe to run
twice, late, or after a newer save:

1. a revision that is no longer the published one is ignored (stale task);
2. chunks are replaced in one transaction, so the index always matches one
   revision: keyword search works as soon as that commits;
3. only chunks whose text changed (content hash) lose their vector and are
   embedded again, in batches, outside the transaction; a vector is written
   only if its chunk still has the text it was computed from.

A failed embedding leaves the page keyword-searchable and marked ``failed``;
the task retries and the sweep heals what is left.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from config.numbers import STORED_ERROR_CHARS
from core.text import fold_accents
from handbook.models import Page, text_search_config
from search.embedding.embedders import EmbeddingError, bulk_slices, get_embedder, passages_in_slices
from search.embedding.model_switch import ensure_serving_model, is_switching, try_complete_switch
from search.indexing.chunking import chunk_markdown
from search.models import Chunk, IndexState
from search.statistics.scopes import page_scope
from search.statistics.term_statistics import refresh_after_indexing

logger = logging.getLogger(__name__)


@dataclass
class ReindexResult:
    status: str  # "indexed" | "stale" | "removed" | "pending" | "failed" | "missing"
    chunks: int = 0
    embedded: int = 0
    reused: int = 0


def _state_for(page: Page) -> IndexState:
    state, _created = IndexState.objects.get_or_create(page=page)
    return state


def _write_search_vectors(chunk_ids: list[int], *, title: str, language: str) -> None:
    """Title weighted A, heading path B, body D; accents folded like queries are."""
    if not chunk_ids:
        return
    config = text_search_config(language)
    rows = Chunk.objects.filter(id__in=chunk_ids).values_list("id", "heading", "text")
    with connection.cursor() as cursor:
        cursor.executemany(
            """
            UPDATE search_chunk SET search_vector =
                setweight(to_tsvector(%s::regconfig, %s), 'A')
                || setweight(to_tsvector(%s::regconfig, %s), 'B')
                || setweight(to_tsvector(%s::regconfig, %s), 'D')
            WHERE id = %s
            """,
            [
                (config, fold_accents(title), config, fold_accents(heading), config, fold_accents(text), chunk_id)
                for chunk_id, heading, text in rows
            ],
        )


def _replace_chunks(page: Page, revision_id: int, model_name: str) -> tuple[int, int] | None:
    """Upsert the page's chunks for ``revision_id``; None if the revision is stale."""
    with transaction.atomic():
        # Row lock on the page: two reindexes of one page never interleave.
        locked = Page.objects.select_for_update().filter(pk=page.pk).first()
        if locked is None or locked.published_revision_id != revision_id or not locked.is_published:
            return None
        if locked.is_template:  # marked a template since the task was queued: its own task removes it
            return None
        page = locked
        drafts = chunk_markdown(page.body)
        existing: dict[str, list[Chunk]] = {}
        for chunk in Chunk.objects.filter(page=page).order_by("ordinal"):
            existing.setdefault(chunk.content_hash, []).append(chunk)

        keep: list[Chunk] = []
        create: list[Chunk] = []
        for draft in drafts:
            same = existing.get(draft.content_hash)
            if same:
                chunk = same.pop(0)
                chunk.ordinal, chunk.anchor, chunk.heading = draft.ordinal, draft.anchor, draft.heading
                chunk.revision_id, chunk.language = revision_id, page.language
                keep.append(chunk)
            else:
                create.append(
                    Chunk(
                        page=page,
                        revision_id=revision_id,
                        ordinal=draft.ordinal,
                        heading=draft.heading,
                        anchor=draft.anchor,
                        text=draft.text,
                        language=page.language,
                        content_hash=draft.content_hash,
                    )
                )
        stale_ids = [chunk.id for chunks in existing.values() for chunk in chunks]
        Chunk.objects.filter(id__in=stale_ids).delete()
        # Ordinals are not unique in the table, so kept and new rows can be written in any order.
        Chunk.objects.bulk_update(keep, ["ordinal", "anchor", "heading", "revision", "language"])
        Chunk.objects.bulk_create(create)
        # The title is part of every chunk's vector: rewrite all (cheap, no model involved).
        _write_search_vectors([c.id for c in keep + create], title=page.title, language=page.language)
        state = _state_for(page)
        state.revision_id = revision_id
        state.chunk_count = len(drafts)
        state.embedding_model = model_name
        state.units_model = ""  # the revision's units are stored again (search/indexing/unit_vectors.py)
        state.status = IndexState.Status.PENDING if model_name else IndexState.Status.INDEXED
        state.error = ""
        state.save()
        return len(drafts), len(keep)


def _needs_vector(page: Page, model_name: str, switching: bool):
    chunks = Chunk.objects.filter(page=page)
    if switching:  # building the next model's vectors while the old ones serve
        return chunks.exclude(next_embedding_model=model_name)
    return chunks.filter(Q(embedding__isnull=True) | ~Q(embedding_model=model_name))


def _embed_missing(pages: list[Page], model_name: str) -> dict[int, int]:
    """Embed the chunks of ``pages`` that lack a vector of ``model_name``; {page id: vectors written}.

    Texts go to the embedder in ``bulk_slices``: a remote endpoint gets full
    batches, several at once, whichever page they come from (a bulk load of small pages included).
    """
    embedder = get_embedder()
    assert embedder is not None
    switching = is_switching(model_name)
    pending: list[tuple[int, int, str, str, str]] = []
    for page in pages:
        pending.extend(
            (page.pk, *row)
            for row in _needs_vector(page, model_name, switching)
            .order_by("ordinal")
            .values_list("id", "heading", "text", "content_hash")
        )
    done: dict[int, int] = {}
    slices = bulk_slices(embedder, pending)
    texts = [[passage_text(heading, text) for _p, _id, heading, text, _h in rows] for rows in slices]
    for rows, vectors in zip(slices, passages_in_slices(embedder, texts), strict=True):
        written = _write_vectors(
            [
                (chunk_id, content_hash, vector)
                for (_p, chunk_id, _h, _t, content_hash), vector in zip(rows, vectors, strict=True)
            ],
            model_name,
            switching,
        )
        page_of = {chunk_id: page_id for page_id, chunk_id, *_rest in rows}
        for chunk_id in written:
            done[page_of[chunk_id]] = done.get(page_of[chunk_id], 0) + 1
    return done


def _write_vectors(rows: list[tuple[int, str, list[float]]], model_name: str, switching: bool) -> list[int]:
    """One UPDATE for many chunks; a vector is written only if its chunk still holds the text it was
    computed from (an edit meanwhile replaced it). Returns the ids written."""
    if switching:  # building the next model's vectors while the old ones serve
        assignments = "next_embedding = r.vector::vector, next_embedding_model = %s"
        params: list[str | datetime] = [model_name]
    else:
        assignments = "embedding = r.vector::vector, embedding_model = %s, embedded_at = %s"
        params = [model_name, timezone.now()]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            UPDATE search_chunk c SET {assignments}
            FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS r(id, content_hash, vector)
            WHERE c.id = r.id AND c.content_hash = r.content_hash
            RETURNING c.id
            """,  # noqa: S608 - the assignments are one of two fixed strings
            [
                *params,
                [chunk_id for chunk_id, _h, _v in rows],
                [content_hash for _c, content_hash, _v in rows],
                ["[" + ",".join(f"{float(x):.7g}" for x in vector) + "]" for _c, _h, vector in rows],
            ],
        )
        return [row[0] for row in cursor.fetchall()]


def passage_text(heading: str, text: str) -> str:
    """What the embedder sees: the heading path gives a chunk its context."""
    return f"{heading}\n{text}" if heading else text


@dataclass
class _WordsIndexed:
    """A page whose chunks and keyword index match ``revision_id``; its vectors may still be missing."""

    page: Page
    revision_id: int
    total: int
    reused: int


def _index_words(page_id: int, revision_id: int | None, model_name: str) -> ReindexResult | _WordsIndexed:
    """Replace the page's chunks and their tsvectors (committed: keyword search finds it now)."""
    page = Page.objects.filter(pk=page_id).select_related("space").first()
    if page is None:
        return ReindexResult("missing")
    if not page.is_published or page.deleted_at is not None or page.is_template:  # templates are never found
        page_unindex(page=page)
        return ReindexResult("removed")
    if revision_id is None:
        revision_id = page.published_revision_id
    if revision_id is None or revision_id != page.published_revision_id:  # None: never, the page is published
        logger.info(
            "reindex page=%s revision=%s: stale (published is %s)", page_id, revision_id, page.published_revision_id
        )
        return ReindexResult("stale")
    replaced = _replace_chunks(page, revision_id, model_name)
    if replaced is None:
        return ReindexResult("stale")
    return _WordsIndexed(page, revision_id, *replaced)


def _refresh_statistics(indexed: list[_WordsIndexed]) -> None:
    """Word statistics of each scope the pages count in, once per scope (a group is mostly one)."""
    seen: set[tuple[int, tuple[int, ...]] | None] = set()
    for step in indexed:
        scope = page_scope(step.page.pk)
        key = (scope[0], tuple(scope[1])) if scope else None
        if key not in seen:
            seen.add(key)
            refresh_after_indexing(step.page.pk)


def _embed_pages(indexed: list[_WordsIndexed], model_name: str) -> list[ReindexResult]:
    """Embed the missing vectors of pages whose words are indexed, then record each page's state."""
    ensure_serving_model(model_name)
    try:
        embedded = _embed_missing([step.page for step in indexed], model_name)
    except EmbeddingError as exc:
        for step in indexed:
            IndexState.objects.filter(page=step.page, revision_id=step.revision_id).update(
                status=IndexState.Status.FAILED, error=str(exc)[:STORED_ERROR_CHARS], updated_at=timezone.now()
            )
        raise
    switching = is_switching(model_name)
    results = []
    for step in indexed:
        missing = _needs_vector(step.page, model_name, switching).count()
        if switching and missing == 0:
            try_complete_switch(model_name)
        status = IndexState.Status.INDEXED if missing == 0 else IndexState.Status.PENDING
        IndexState.objects.filter(page=step.page, revision_id=step.revision_id).update(
            status=status, embedded_count=step.total - missing, error="", updated_at=timezone.now()
        )
        results.append(
            ReindexResult(status, chunks=step.total, embedded=embedded.get(step.page.pk, 0), reused=step.reused)
        )
    return results


def page_reindex(*, page_id: int, revision_id: int | None) -> ReindexResult:
    return pages_reindex([page_id], revision_id=revision_id)[page_id]


def pages_reindex(page_ids: list[int], *, revision_id: int | None = None) -> dict[int, ReindexResult]:
    """Reindex pages: {page id: result}. ``revision_id`` (one page only): the revision the task was for.

    Each page's words are indexed first, page by page, so keyword search finds every page before
    its vectors exist; then the vectors of all of them are computed together (a bulk load's pages
    share full batches).
    """
    if revision_id is not None and len(page_ids) != 1:
        raise ValueError("revision_id names the revision of one page")
    embedder = get_embedder()
    model_name = embedder.model_name if embedder else ""
    results: dict[int, ReindexResult] = {}
    indexed: list[_WordsIndexed] = []
    for page_id in dict.fromkeys(page_ids):
        step = _index_words(page_id, revision_id, model_name)
        if isinstance(step, ReindexResult):
            results[page_id] = step
        else:
            indexed.append(step)
    _refresh_statistics(indexed)
    if not model_name:
        for step in indexed:
            results[step.page.pk] = ReindexResult("indexed", chunks=step.total, reused=step.reused)
    elif indexed:
        for step, result in zip(indexed, _embed_pages(indexed, model_name), strict=True):
            results[step.page.pk] = result
    return results


def page_unindex(*, page: Page) -> None:
    with transaction.atomic():
        deleted, _by_model = Chunk.objects.filter(page=page).delete()
        IndexState.objects.filter(page=page).delete()
    if deleted:
        refresh_after_indexing(page.pk)  # its words no longer count in its scope


def pages_needing_index(model_name: str | None = None):
    """Published pages (templates aside) whose index is missing, stale, failed, pending or of another model."""
    if model_name is None:
        embedder = get_embedder()
        model_name = embedder.model_name if embedder else ""
    published = Page.objects.published().filter(is_template=False)
    healthy = (
        Q(index_state__status=IndexState.Status.INDEXED)
        & Q(index_state__revision_id=F("published_revision_id"))
        & Q(index_state__embedding_model=model_name)
    )
    return published.exclude(healthy)
