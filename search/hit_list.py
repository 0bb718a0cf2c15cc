"""Hits as plain records (ref, title, anchor, score, space, language, snippet, url): what the
``search`` command prints and the REST API and MCP tools answer with."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language

from config.numbers import SEARCH_DEFAULT_LIMIT as DEFAULT_LIMIT
from core import languages
from search.retrieval import resolve
from search.retrieval.hits import Retrieval
from search.retrieval.pipeline import retrieve
from search.retrieval.query import parse_query
from search.retrieval.snippet import highlight
from search.retrieval.twins import collapse_twins, readable_twin_pairs

MODES = ("hybrid", "keyword", "vector")


@dataclass
class Hit:
    ref: str
    title: str
    anchor: str
    score: float
    space: str
    language: str
    snippet: str
    url: str = ""  # the page's address on the site, with the passage's anchor

    def as_json(self, *, full: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ref": self.ref,
            "title": self.title,
            "anchor": self.anchor,
            "score": round(self.score, 6),
        }
        if full:
            out.update(space=self.space, language=self.language, snippet=self.snippet, url=self.url)
        return out


def _plain(snippet: str) -> str:
    """The highlighted snippet as plain text on one line: drop our <mark> tags, undo the escaping."""
    return " ".join(html.unescape(re.sub(r"</?mark>", "", snippet)).split())


def run_search(
    text: str,
    user: Any,
    *,
    limit: int = DEFAULT_LIMIT,
    offset: int = 0,
    mode: str = "hybrid",
    snippets: bool = True,
) -> tuple[Retrieval, list[Hit]]:
    """Retrieve for ``user`` and resolve ``limit`` pages from rank ``offset``. Raises QueryError."""
    if not getattr(user, "is_active", False):
        # An inactive user may read nothing: answer without running the legs at all.
        return Retrieval(parse_query(text), [], languages.DEFAULT.code), []
    retrieval = retrieve(text, user, use_vectors=mode != "keyword", use_keywords=mode != "vector")
    # Linked translations the user may read both of are one result, in the request's language
    # (search/retrieval/twins.py); the list is the one counted too (search_json's total).
    pairs, language_of = readable_twin_pairs(user, [h.page_id for h in retrieval.pages])
    retrieval.pages = collapse_twins(retrieval.pages, pairs, language_of, get_language() or "")
    window = retrieval.pages[offset : offset + limit]
    # Visible pages only, again: a page unpublished since the retrieval query is dropped, never shown.
    pages = resolve.readable_pages(
        user, [h.page_id for h in window], "id", "ref", "title", "language", "slug", "space__slug"
    )
    fields = ["id", "anchor", "text"] if snippets else ["id", "anchor"]
    chunks = resolve.chunks([h.best.chunk_id for h in window], *fields)
    words = retrieval.query.positive_words
    hits: list[Hit] = []
    for page_hit in window:
        page = pages.get(page_hit.page_id)
        if page is None:
            continue
        chunk = chunks.get(page_hit.best.chunk_id)
        anchor = chunk.anchor if chunk else ""
        hits.append(
            Hit(
                ref=page.ref,
                title=page.title,
                anchor=anchor,
                score=page_hit.score,
                space=page.space.slug,
                language=page.language,
                snippet=_plain(highlight(chunk.text, words)) if (snippets and chunk) else "",
                url=page.get_absolute_url() + (f"#{anchor}" if anchor else ""),
            )
        )
    return retrieval, hits


def search_json(
    text: str, user: Any, *, limit: int = DEFAULT_LIMIT, offset: int = 0, mode: str = "hybrid"
) -> tuple[dict[str, Any], int]:
    """The ``--json`` object for one query (the REST API answers with the same one) and how many
    pages were found in all. Raises QueryError for a query that cannot be searched."""
    if parse_query(text).is_empty:
        return {"query": text, "results": []}, 0
    retrieval, hits = run_search(text, user, limit=limit, offset=offset, mode=mode)
    return {"query": text, "results": [h.as_json() for h in hits]}, len(retrieval.pages)
