"""Search results as people see them: pages with a snippet, a passage link, facets.

``run_search`` is one search, top to bottom: parse, retrieve, the readable result set, the page
shown. It is the search of the web, the API, MCP and the CLI (``search_pages`` is its page);
what a search leaves behind (logs, a suggestion) is ``search/after_search.py``. Everything shown
is taken from pages the searching user may read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils.safestring import SafeString
from django.utils.translation import get_language

from config.numbers import MAX_PER_PAGE, RESULT_PASSAGES, SEARCH_DEFAULT_LIMIT, SUMMARY_FALLBACK_CHARS
from core import languages
from core.text import split_sentences
from handbook.models import LANGUAGES
from search.retrieval import resolve
from search.retrieval.confidence import confident_count
from search.retrieval.hits import Filters, PageHit
from search.retrieval.pipeline import retrieve
from search.retrieval.query import ParsedQuery, QueryError, parse_query
from search.retrieval.snippet import highlight
from search.retrieval.twins import collapse_twins, collapsed_count, twin_pairs
from summaries.selectors import summaries_for_pages


@dataclass
class ResultPassage:
    chunk_id: int
    anchor: str
    heading: str


@dataclass
class SearchResult:
    page_id: int
    ref: str
    title: str
    url: str
    anchor: str
    space_slug: str
    space_title: str
    space_id: int
    language: str
    updated_at: datetime
    score: float
    snippet: SafeString
    passages: list[ResultPassage]
    summary: str = ""

    @property
    def passage_url(self) -> str:
        return f"{self.url}#{self.anchor}" if self.anchor else self.url


@dataclass
class SearchPage:
    query: str
    results: list[SearchResult]
    total: int
    page: int
    per_page: int
    facets: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)
    query_language: str = languages.DEFAULT.code
    error: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    # The first ``confident`` of the ``total`` results are confident; the rest are loosely related
    # (search/retrieval/confidence.py).
    confident: int = 0

    @property
    def loosely_related(self) -> int:
        return self.total - self.confident

    @property
    def has_next(self) -> bool:
        return self.page * self.per_page < self.total

    @property
    def has_previous(self) -> bool:
        return self.page > 1


@dataclass(frozen=True)
class SearchOutcome:
    """A search as asked (the words typed, the page number asked for), the page it shows and the
    reader it was searched as (its scopes; None when nothing was searched), which what the search
    leaves behind reuses."""

    query: str
    asked_page: int
    shown: SearchPage
    reader: Any = None


def run_search(
    user: Any,
    query: str,
    filters: Filters | None = None,
    page: int = 1,
    *,
    per_page: int = SEARCH_DEFAULT_LIMIT,
    with_summaries: bool = True,
    ui_language: str | None = None,
) -> SearchOutcome:
    """Hits, counts, snippets and facets of ``query`` for ``user``. Of two linked twins the one in
    ``ui_language`` (default: the request's active language) is listed."""
    filters = filters or Filters()
    per_page = max(1, min(per_page, MAX_PER_PAGE))
    page = max(1, page)
    try:
        parsed = parse_query(query)
    except QueryError as exc:
        return SearchOutcome(query, page, SearchPage(query, [], 0, page, per_page, error=str(exc)))
    # One result set for everything shown: the count, the facets and the listed pages are all
    # taken from it, so "14 pages found" never sits beside a facet of 13. A filter narrows that
    # set (it does not run a second search that would rank and cut differently).
    retrieval = retrieve(parsed, user)
    found = resolve.readable_result_pages(user, [h.page_id for h in retrieval.pages])
    hits = [h for h in retrieval.pages if h.page_id in found]  # a page deleted or hidden meanwhile is not counted
    # Linked translations among these readable results are one document (search/retrieval/twins.py).
    twins = twin_pairs(found)
    facets = _facets([found[h.page_id] for h in hits], filters.space, filters.language, twins)
    hits = [h for h in hits if _passes(found[h.page_id], filters)]
    # After the filters: a reader who asks for French pages gets the French twin.
    languages_of = {pid: p.language for pid, p in found.items()}
    hits = collapse_twins(hits, twins, languages_of, ui_language or get_language() or "")
    # A page number past the end shows the last page (its number says so), not "no page matches".
    number = min(page, max(1, -(-len(hits) // per_page)))
    window = hits[(number - 1) * per_page : number * per_page]
    shown = SearchPage(
        query=parsed.raw,
        results=_results(window, found, parsed, with_summaries=with_summaries),
        total=len(hits),
        page=number,
        per_page=per_page,
        facets=facets,
        query_language=retrieval.query_language,
        timings=retrieval.timings,
        # Counted over the readable, filtered results, as the total is.
        confident=confident_count(hits, retrieval),
    )
    return SearchOutcome(query, page, shown, retrieval.reader)


def _passes(page: resolve.ResultPage, filters: Filters) -> bool:
    return (not filters.space or page.space_slug == filters.space) and (
        not filters.language or page.language == filters.language
    )


def _results(
    window: list[PageHit], found: dict[int, resolve.ResultPage], parsed: ParsedQuery, *, with_summaries: bool
) -> list[SearchResult]:
    """The listed pages with their best passage's snippet, up to three passages and a summary."""
    chunks = resolve.chunks(
        [c.chunk_id for h in window for c in h.chunks[:RESULT_PASSAGES]], "id", "anchor", "heading", "text"
    )
    summaries = summaries_for_pages([h.page_id for h in window]) if with_summaries else {}
    words = parsed.positive_words  # highlight marks the content words among them (search/retrieval/snippet.py)
    results = []
    for hit in window:
        page = found[hit.page_id]
        # The page is counted, so it is listed: re-chunked since the search, it has no snippet.
        best = chunks.get(hit.best.chunk_id)
        summary = summaries.get(page.pk)
        results.append(
            SearchResult(
                page_id=page.pk,
                ref=page.ref,
                title=page.title,
                url=page.get_absolute_url(),
                anchor=best.anchor if best else "",
                space_slug=page.space_slug,
                space_title=page.space_title,
                space_id=page.space_id,
                language=page.language,
                updated_at=page.updated_at,
                score=hit.score,
                snippet=highlight(best.text if best else "", words),
                passages=[
                    ResultPassage(c.pk, c.anchor, c.heading)
                    for c in (chunks.get(h.chunk_id) for h in hit.chunks[:RESULT_PASSAGES])
                    if c is not None
                ],
                summary=_first_sentence(summary.text) if summary else "",
            )
        )
    return results


def _facets(
    pages: list[resolve.ResultPage], space: str | None, language: str | None, twins: dict[int, int] | None = None
) -> dict[str, list[tuple[str, str, int]]]:
    """Counts per space and per language over the result set.

    Each list is narrowed by the other list's active filter, not by its own, so a
    value's count is what clicking it shows, and the active value's count is the total.
    Two linked twins both under one value count once there, as they are listed once (search/retrieval/twins.py).
    """
    in_language = [p for p in pages if not language or p.language == language]
    in_space = [p for p in pages if not space or p.space_slug == space]
    spaces = Counter((p.space_slug, p.space_title) for p in in_language)
    counts = Counter(p.language for p in in_space)
    if twins:
        for key in spaces:
            spaces[key] = collapsed_count((p.pk for p in in_language if p.space_slug == key[0]), twins)
        for code in counts:
            counts[code] = collapsed_count((p.pk for p in in_space if p.language == code), twins)
    names = dict(LANGUAGES)
    return {
        "space": [(slug, title, n) for (slug, title), n in spaces.most_common()],
        "language": [(code, str(names.get(code, code)), n) for code, n in counts.most_common()],
    }


def _first_sentence(text: str) -> str:
    sentences = split_sentences(text)
    return sentences[0] if sentences else text[:SUMMARY_FALLBACK_CHARS]


def search_pages(
    *,
    user: Any,
    query: str,
    space: str | None = None,
    language: str | None = None,
    page: int = 1,
    per_page: int = SEARCH_DEFAULT_LIMIT,
    with_summaries: bool = True,
    ui_language: str | None = None,
) -> SearchPage:
    """Hits, counts, snippets and facets — all from pages ``user`` may read. Of two linked twins
    the one in ``ui_language`` (default: the request's active language) is listed."""
    filters = Filters(space=space, language=language)
    outcome = run_search(
        user, query, filters, page, per_page=per_page, with_summaries=with_summaries, ui_language=ui_language
    )
    return outcome.shown
