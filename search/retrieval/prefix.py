"""Search-as-you-type: page titles and headings that hold the words typed so far, by prefix.

Not a search: no embedding, no statistics, no fusion. Small statements over the prefix indexes
of search migrations 0020 (titles) and 0022 (a heading's own words), each testing the reader's
visible pages (``visible_pages``, the full search's set and SQL forms) before ranking and
``LIMIT``. The order depends only on the row itself (how many typed words it holds, its
length), never on other pages, so nothing hidden can move what a reader sees.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from django.urls import get_script_prefix, reverse

from config.numbers import MIN_PREFIX, PAGE_URL_CACHE_SIZE
from config.numbers import PREFIX_ALL_WORDS_CANDIDATES as ALL_WORDS_CANDIDATES
from config.numbers import PREFIX_ANY_WORD_CANDIDATES as ANY_WORD_CANDIDATES
from config.numbers import PREFIX_HEADINGS as HEADINGS
from config.numbers import PREFIX_MAX_INPUT_CHARS as MAX_INPUT_CHARS
from config.numbers import PREFIX_MAX_TERMS as MAX_TERMS
from config.numbers import PREFIX_MAX_WORD_CHARS as MAX_WORD_CHARS
from config.numbers import PREFIX_TITLES as TITLES
from core.db_router import read_connection
from core.languages import ALL_STOPWORDS
from core.prepared import prepared_cursor
from core.text import words
from search.indexing.chunking import HEADING_SEPARATOR
from search.retrieval.keyword import pages_way_in
from search.retrieval.visibility import VisiblePages, visible_pages


@dataclass(frozen=True)
class PrefixHit:
    page_id: int
    title: str
    url: str
    heading: str = ""  # the matched heading (its innermost part); "" for a title


@dataclass(frozen=True)
class PrefixMatches:
    terms: list[str] = field(default_factory=list)
    pages: list[PrefixHit] = field(default_factory=list)
    headings: list[PrefixHit] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.pages or self.headings)


def typed_terms(text: str) -> list[str]:
    """The words to match, folded as the index folds them; the last one is being typed.

    Stop-words go (of any handbook language: "how do I" matches nothing useful) unless the line
    has nothing else, and a last word too short to narrow anything waits for its next letter. The
    last word is kept even when it is a stop-word so far ("le" on its way to "leave").
    """
    typed = words(text[:MAX_INPUT_CHARS])
    if not typed:
        return []
    *done, last = typed
    kept = [w for w in done if w not in ALL_STOPWORDS and len(w) > 1]
    if len(last) >= MIN_PREFIX:
        kept.append(last)
    elif not kept:  # nothing but stop-words so far ("how do I"): they are what there is to match
        kept = [w for w in done if len(w) > 1]
    return list(dict.fromkeys(w[:MAX_WORD_CHARS] for w in kept))[-MAX_TERMS:]


def _tsquery(terms: list[str], operator: str) -> str:
    # Terms are letters and digits only (``words``): quoting is all a tsquery needs.
    return f" {operator} ".join(f"'{term}':*" for term in terms)


def prefix_matches(*, user: Any, text: str, space: str = "", language: str = "") -> PrefixMatches:
    """Titles and headings of pages ``user`` may read that hold the typed words (see ``typed_terms``)."""
    terms = typed_terms(text)
    if not terms:
        return PrefixMatches()
    visible = visible_pages(user)
    if not visible:
        return PrefixMatches(terms=terms)
    # Prepared: the same few statement texts run on every keystroke, with new words (core/prepared.py).
    with prepared_cursor(read_connection()) as cursor:
        pages = _titles(cursor, terms, visible, space, language)
        headings = _headings(cursor, terms, visible, space, language)
    return PrefixMatches(terms=terms, pages=pages, headings=headings)


def _filters(space: str, language: str, language_column: str) -> tuple[str, list[Any]]:
    sql, params = "", []
    if space:
        sql += " AND p.space_id = (SELECT id FROM handbook_space WHERE slug = %s)"
        params.append(space)
    if language:
        sql += f" AND {language_column} = %s"
        params.append(language)
    return sql, params


def _ranked(
    select: str, vector: str, where: str, params: list[Any], terms: list[str], *, every: bool
) -> tuple[str, list[Any]]:
    """The capped candidates holding every typed word (``every``) or any of them, with ``held``, how
    many words each holds. ``vector`` is the indexed expression (the way in); ``where`` tests visibility.
    Computing a candidate's vector is most of a statement's time: the caps stay small."""
    if every:
        sql = f"SELECT {select}, {len(terms)} AS held {where} AND {vector} @@ to_tsquery('simple', %s)"
        return f"{sql} LIMIT {ALL_WORDS_CANDIDATES}", [*params, _tsquery(terms, "&")]  # noqa: S608
    return (
        f"""
        SELECT cand.*, (SELECT count(*) FROM unnest(%s::tsquery[]) t WHERE cand.v @@ t) AS held FROM (
            SELECT {select}, {vector} AS v {where} AND {vector} @@ to_tsquery('simple', %s)
            LIMIT {ANY_WORD_CANDIDATES}
        ) cand
        """,  # noqa: S608 - our own SQL; values are parameters
        [[f"'{term}':*" for term in terms], *params, _tsquery(terms, "|")],
    )


def _best(
    terms: list[str], limit: int, run: Callable[[bool], list[tuple[Any, ...]]], *, fill: bool = True
) -> list[tuple[Any, ...]]:
    """Rows holding every typed word; only when they are too few (and ``fill``), then rows holding
    most of them (a second, costlier statement: common words match many rows)."""
    rows = run(True)
    if fill and len(rows) < limit and len(terms) > 1:
        rows += [row for row in run(False) if row not in rows]
    return rows[:limit]


def _titles(cursor: Any, terms: list[str], visible: VisiblePages, space: str, language: str) -> list[PrefixHit]:
    # A reader of few pages: their ids are the way in (primary key); otherwise the title index.
    visible_sql, visible_params = visible.clause("p.id" if pages_way_in(visible) else "(p.id + 0)")
    filter_sql, filter_params = _filters(space, language, "p.language")

    def run(every: bool) -> list[tuple[Any, ...]]:
        sql, params = _ranked(
            "p.id, p.title, p.slug, s.slug AS space_slug",
            "to_tsvector('simple', search_fold(p.title))",
            f"FROM handbook_page p JOIN handbook_space s ON s.id = p.space_id"
            f" WHERE NOT p.is_template AND {visible_sql}{filter_sql}",
            [*visible_params, *filter_params],
            terms,
            every=every,
        )
        cursor.execute(
            f"SELECT id, title, slug, space_slug FROM ({sql}) ranked ORDER BY held DESC, length(title), id LIMIT %s",  # noqa: S608
            [*params, TITLES],
        )
        return cursor.fetchall()

    return [
        PrefixHit(pid, title, _page_url(space_slug, slug)) for pid, title, slug, space_slug in _best(terms, TITLES, run)
    ]


def _headings(cursor: Any, terms: list[str], visible: VisiblePages, space: str, language: str) -> list[PrefixHit]:
    visible_sql, visible_params = visible.clause("c.page_id" if pages_way_in(visible) else "(c.page_id + 0)")
    filter_sql, filter_params = _filters(space, language, "c.language")

    def run(every: bool) -> list[tuple[Any, ...]]:
        sql, params = _ranked(
            "c.page_id, c.ordinal, c.heading, c.anchor, p.title, p.slug, s.slug AS space_slug",
            "to_tsvector('simple', search_heading_leaf(c.heading))",
            "FROM search_chunk c JOIN handbook_page p ON p.id = c.page_id JOIN handbook_space s ON s.id = p.space_id"
            # Not a page's top heading that only repeats its title (already in the titles' list).
            f" WHERE c.heading <> '' AND c.heading <> p.title AND {visible_sql}{filter_sql}",
            [*visible_params, *filter_params],
            terms,
            every=every,
        )
        # A heading split over several chunks is one hit (its first chunk); then the best of them.
        cursor.execute(
            f"""
            SELECT page_id, heading, anchor, title, slug, space_slug FROM (
                SELECT DISTINCT ON (page_id, anchor) * FROM ({sql}) ranked ORDER BY page_id, anchor, ordinal
            ) one ORDER BY held DESC, length(heading), page_id, ordinal LIMIT %s
            """,  # noqa: S608 - our own SQL
            [*params, HEADINGS],
        )
        return cursor.fetchall()

    return [
        PrefixHit(
            pid,
            title,
            f"{_page_url(space_slug, slug)}#{anchor}" if anchor else _page_url(space_slug, slug),
            heading.rsplit(HEADING_SEPARATOR, 1)[-1],
        )  # fmt: skip
        # A heading holding one word of several says little, and common words match thousands of
        # chunks: headings hold every typed word.
        for pid, heading, anchor, title, slug, space_slug in _best(terms, HEADINGS, run, fill=False)
    ]


def _page_url(space_slug: str, page_slug: str) -> str:
    return _reversed_page_url(get_script_prefix(), space_slug, page_slug)


@lru_cache(maxsize=PAGE_URL_CACHE_SIZE)
def _reversed_page_url(script_prefix: str, space_slug: str, page_slug: str) -> str:
    # Remembered: a keystroke lists up to ten pages, and ``reverse`` was a tenth of its Python time.
    # A URL depends on the slugs and the script prefix only (both in the key).
    return reverse("page_detail", kwargs={"space_slug": space_slug, "page_slug": page_slug})
