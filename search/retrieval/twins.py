"""Linked translations in results: two twins a reader may read are one document, shown once.

Pages are linked with their translation (``handbook/translations/``). When both twins are among a
reader's results, only one is listed: the one in the reader's language, at the better-ranked
position of the two. Everything here works on results that were already read through the permission
filter: a twin the reader cannot read is never among them, so it never removes or moves anything.
With no linked pages among the results the list is returned unchanged (same objects, same order).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from handbook.models import Page
from search.retrieval.hits import PageHit


def twin_pairs(pages: Mapping[int, Any]) -> dict[int, int]:
    """page id → twin id, for pages of ``pages`` (readable results) whose twin is among them too."""
    pairs: dict[int, int] = {}
    for page_id, page in pages.items():
        twin = getattr(page, "translation_id", None)
        if twin is not None and twin != page_id and twin in pages:
            pairs[page_id] = twin
            pairs[twin] = page_id  # a link is symmetric; read it so even if one row lagged behind
    return pairs


def readable_twin_pairs(user: Any, page_ids: list[int]) -> tuple[dict[int, int], dict[int, str]]:
    """``twin_pairs`` and the pages' languages for results not yet read as pages (the API and CLI
    hit lists): both twins must be among ``page_ids`` and readable by ``user``, in SQL."""
    if not page_ids:
        return {}, {}
    rows = (
        Page.objects.visible_to(user)
        .filter(id__in=page_ids, translation_id__in=page_ids)
        .values_list("id", "translation_id", "language")
    )
    linked = {page_id: (twin, language) for page_id, twin, language in rows}
    pairs = {page_id: twin for page_id, (twin, _language) in linked.items() if twin in linked}
    return pairs, {page_id: language for page_id, (_twin, language) in linked.items()}


def _speaks(language: str, preferred: str) -> bool:
    return bool(preferred) and (language or "")[:2].lower() == preferred[:2].lower()


def collapse_twins(
    hits: list[PageHit], pairs: Mapping[int, int], language_of: Mapping[int, str], preferred: str
) -> list[PageHit]:
    """``hits`` (best first) with each pair of twins listed once.

    The twin in ``preferred`` (the reader's language) is kept, else the better-ranked one; it takes
    the better-ranked twin's place and score, so the list stays ordered by score.
    """
    if not pairs:
        return hits
    present = {hit.page_id: hit for hit in hits}
    out: list[PageHit] = []
    done: set[int] = set()
    for hit in hits:
        if hit.page_id in done:
            continue
        twin = present.get(pairs.get(hit.page_id, -1))
        if twin is None or twin.page_id in done:
            out.append(hit)
            done.add(hit.page_id)
            continue
        done.update((hit.page_id, twin.page_id))
        keep = (
            twin
            if _speaks(language_of.get(twin.page_id, ""), preferred)
            and not _speaks(language_of.get(hit.page_id, ""), preferred)
            else hit
        )
        out.append(hit if keep is hit else PageHit(keep.page_id, max(hit.score, keep.score), keep.chunks))
    return out


def collapsed_count(page_ids: Iterable[int], pairs: Mapping[int, int]) -> int:
    """How many documents these pages are, twins counted once (facet counts)."""
    ids = set(page_ids)
    return len(ids) - sum(1 for page_id in ids if pairs.get(page_id, -1) in ids) // 2


def twins_to_drop(
    page_order: list[int], pairs: Mapping[int, int], language_of: Mapping[int, str], preferred: str
) -> set[int]:
    """Ask: of each pair of twins both among the passages' pages (``page_order``: best passage
    first), the page whose passages go, so an answer never cites the same fact twice. The twin in
    ``preferred`` (the question's language) stays, else the one with the better passage."""
    drop: set[int] = set()
    for page_id in dict.fromkeys(page_order):
        twin = pairs.get(page_id)
        if twin is None or twin not in page_order or page_id in drop or twin in drop:
            continue
        prefer_twin = _speaks(language_of.get(twin, ""), preferred) and not _speaks(
            language_of.get(page_id, ""), preferred
        )
        drop.add(page_id if prefer_twin else twin)
    return drop
