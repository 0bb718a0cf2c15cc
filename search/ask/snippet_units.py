"""The units a search result's snippet shows: Ask must not do worse than the snippet under the best result.

The search page shows, under its best result, a window of the best passage around the question's first
content word (``search/retrieval/snippet.py``). When that window holds a unit the answer decision scores
higher than the units Ask compared by words, Ask would have done worse than the snippet: so the
snippet's units are always compared by meaning (``search/ask/extractive.py``).
"""

from __future__ import annotations

from search.retrieval.query import ParsedQuery, QueryError, parse_query
from search.retrieval.snippet import snippet_window
from statements.answer_units import Unit

# The question as Ask parsed it once, or its text alone (a caller that did not parse it).
Question = ParsedQuery | str


def in_snippet(question: Question, text: str, units: list[Unit]) -> list[Unit]:
    """The units of a passage of ``text`` that its snippet for ``question`` shows, whole or in part."""
    try:
        words = question.positive_words if isinstance(question, ParsedQuery) else parse_query(question).positive_words
    except QueryError:
        return []
    window = snippet_window(text, words)
    shown: list[Unit] = []
    for unit in units:
        start = text.find(unit.source)
        if start >= 0 and start < window[1] and start + len(unit.source) > window[0]:
            shown.append(unit)
    return shown
