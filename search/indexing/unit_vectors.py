"""Answer-unit vectors, computed at index time and read by Ask.

Ask scores the units of its passages (``statements/answer_units.py``) against the question with the
embedding model. Embedding them at question time cost a model call per unit, and a cache of
those vectors shared by everyone made Ask faster for units someone else had asked about lately.
So once a page's chunks are embedded, a bulk task embeds the units of each chunk with the serving
query model and stores them here; Ask reads them by (chunk, unit text) and embeds at question time
only what is not stored yet (a page saved a moment ago).

A unit vector is written only while its chunk still exists (a chunk's text never changes: an edit
replaces the row), and the page's ``IndexState.units_model`` says the page is done for that model (the sweep
queues what is not).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from django.db import connection

from config.numbers import ANSWER_UNITS_RULES_VERSION as RULES_VERSION
from handbook.models import Page
from search.embedding.embedders import bulk_slices, passages_in_slices
from search.embedding.model_switch import query_embedder
from search.models import Chunk, IndexState, UnitVector
from statements.answer_units import chunk_units, revision_units


def units_mark(model: str) -> str:
    """What ``IndexState.units_model`` holds once a page's units are stored: the model, and the version
    of the rule that cut the units (a new rule leaves units unstored until the sweep has run)."""
    return f"{model}#units-v{RULES_VERSION}"


def text_hash(text: str) -> str:
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


def page_units_embed(*, page_id: int) -> int:
    """Store the vectors of the units of the page's chunks that have none; returns how many."""
    return pages_units_embed([page_id])


def pages_units_embed(page_ids: list[int]) -> int:
    """The same for many pages, whose units share full batches (a bulk load); returns how many."""
    embedder = query_embedder()
    if embedder is None:
        return 0
    model = embedder.model_name
    chunks = list(
        Chunk.objects.filter(page_id__in=page_ids).values_list(
            "id", "page_id", "revision_id", "anchor", "heading", "text"
        )
    )
    by_revision = revision_units({revision_id for _id, _page, revision_id, *_rest in chunks})
    wanted: dict[tuple[int, str], str] = {}
    for chunk_id, _page, revision_id, anchor, heading, text in chunks:
        for unit in chunk_units(by_revision.get(revision_id, []), anchor, heading, text):
            wanted.setdefault((chunk_id, text_hash(unit.text)), unit.text)
    have: set[tuple[int, str]] = set()
    stale: list[int] = []  # another model's (a completed switch), or no longer a unit of its chunk
    rows = UnitVector.objects.filter(chunk_id__in=[c[0] for c in chunks]).values_list(
        "id", "chunk_id", "text_hash", "model"
    )
    for pk, chunk_id, digest, of_model in rows:
        if of_model == model and (chunk_id, digest) in wanted:
            have.add((chunk_id, digest))
        else:
            stale.append(pk)
    if stale:
        UnitVector.objects.filter(id__in=stale).delete()
    missing = [(key, text) for key, text in wanted.items() if key not in have]
    written = 0
    batches = bulk_slices(embedder, missing)  # full batches across pages, as for chunks
    distinct = [list(dict.fromkeys(text for _key, text in batch)) for batch in batches]
    for batch, texts, vectors in zip(batches, distinct, passages_in_slices(embedder, distinct), strict=True):
        by_text = dict(zip(texts, vectors, strict=True))
        written += _insert([(chunk_id, h, by_text[text]) for (chunk_id, h), text in batch], model)
    revisions_of: dict[int, set[int]] = {page_id: set() for page_id in page_ids}
    for _id, page_id, revision_id, *_rest in chunks:
        revisions_of[page_id].add(revision_id)
    for page_id, revisions in revisions_of.items():
        if not revisions:  # an empty page has no unit to wait for
            IndexState.objects.filter(page_id=page_id).update(units_model=units_mark(model))
        elif len(revisions) == 1:  # done for the revision read; a reindex since then has reset the mark
            IndexState.objects.filter(page_id=page_id, revision_id=revisions.pop()).update(
                units_model=units_mark(model)
            )
    return written


def _insert(rows: list[tuple[int, str, Sequence[float]]], model: str) -> int:
    """Insert the vectors whose chunk still exists (a reindex may have replaced it meanwhile)."""
    if not rows:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO search_unitvector (chunk_id, model, text_hash, embedding)
            SELECT c.id, %s, r.text_hash, r.embedding::vector
            FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS r(chunk_id, text_hash, embedding)
            JOIN search_chunk c ON c.id = r.chunk_id
            ON CONFLICT (chunk_id, model, text_hash) DO NOTHING
            """,
            [
                model,
                [chunk_id for chunk_id, _h, _v in rows],
                [h for _c, h, _v in rows],
                ["[" + ",".join(f"{float(x):.7g}" for x in vector) + "]" for _c, _h, vector in rows],
            ],
        )
        return cursor.rowcount


def stored_unit_vectors(units: Iterable[tuple[int, str]], model: str) -> dict[tuple[int, str], list[float]]:
    """{(chunk id, unit text): vector} for the units stored for ``model``; the others are left out.

    Callers pass only chunks the reader may read (Ask's passages), so what is read here, and how long
    it takes, depends on nothing else.
    """
    keys = {(chunk_id, text_hash(text)): (chunk_id, text) for chunk_id, text in units}
    if not keys:
        return {}
    rows = UnitVector.objects.filter(
        chunk_id__in={c for c, _h in keys}, model=model, text_hash__in={h for _c, h in keys}
    ).values_list("chunk_id", "text_hash", "embedding")
    return {keys[(c, h)]: [float(x) for x in vector] for c, h, vector in rows if (c, h) in keys}


def pages_needing_units(model: str | None = None):
    """Indexed pages whose unit vectors are not stored for the serving query model."""
    if model is None:
        embedder = query_embedder()
        if embedder is None:
            return Page.objects.none()
        model = embedder.model_name
    return (
        Page.objects.published()
        .filter(index_state__status=IndexState.Status.INDEXED)
        .exclude(index_state__units_model=units_mark(model))
    )
