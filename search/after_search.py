"""What a search leaves behind: a suggestion, the miss log, the search log, a translation for next time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from config.numbers import SUGGEST_BELOW
from search.insights.logs import search_log_record, search_miss_record
from search.retrieval.query_translation import request_translations
from search.retrieval.suggest import did_you_mean
from search.selectors import SearchOutcome
from search.statistics.scopes import reader_of


@dataclass(frozen=True)
class AfterSearch:
    suggestion: str = ""  # a corrected query, when little matched
    log_key: str | None = None  # the search log a result opened is reported against


def after_search(outcome: SearchOutcome, user: Any, *, typing: bool, replayed: bool) -> AfterSearch:
    """What a search leaves behind: a suggestion when little matched (from words of pages ``user``
    may read, as the search's own reader saw them); for a search someone asked for (not ``typing``),
    the miss log when nothing matched, the model's translation of the query for its next search
    (never awaited) and, on its first page not ``replayed`` (history restored), the search log (no
    user is stored in either log)."""
    shown = outcome.shown
    if shown.error:
        return AfterSearch()
    suggestion = ""
    if shown.total < SUGGEST_BELOW:
        reader = outcome.reader if outcome.reader is not None else reader_of(user)
        suggestion = did_you_mean(outcome.query, reader) or ""
    if typing:
        return AfterSearch(suggestion)
    if not shown.total:
        search_miss_record(query=outcome.query, language=shown.query_language, user=user)
    request_translations(query=outcome.query, user_id=user.pk)
    if outcome.asked_page != 1 or replayed:  # further pages are the same search, not recorded again
        return AfterSearch(suggestion)
    listed = [(r.page_id, r.space_id) for r in shown.results]
    log = search_log_record(query=outcome.query, language=shown.query_language, results=listed)
    return AfterSearch(suggestion, str(log.key) if log else None)
