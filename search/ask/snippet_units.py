"""The units a search result's snippet shows: Ask must not do worse than the snippet under the best result.

The search page shows, under its best result, a window of the best passage around the question's first
content word (``search/snippet.py``, a room Ask may not import: the window is placed here by the same
rule, and a test holds the two together). When that window holds a unit the answer decision scores
higher than the units Ask compared by words, Ask would have done worse than the snippet: so the
snippet's units are always compared by meaning (``search/ask/extractive.py``).
"""

from __future__ import annotations

import re

from analysis.answer_units import Unit
from core import languages
from core.text import fold_accents, prefix_stem
from search.retrieval.query import QueryError, parse_query

SNIPPET_CHARS = 240  # search/snippet.py's window


def snippet_window(question: str, text: str) -> tuple[int, int] | None:
    """Where in ``text`` the search snippet for ``question`` starts and ends; None without a question."""
    try:
        asked = parse_query(question).positive_words
    except QueryError:
        return None
    folded = fold_accents(text).lower()
    stems = {prefix_stem(w) for w in asked if len(w) >= 2 and fold_accents(w).lower() not in languages.ALL_STOPWORDS}
    if len(folded) != len(text):  # folding changed lengths: the snippet marks nothing, its window starts at 0
        stems = set()
    first = min(
        (
            m.start()
            for s in stems
            for m in re.finditer(r"\b" + re.escape(s) + (r"\w*" if len(s) > 3 else r"s?\b"), folded)
        ),
        default=None,
    )
    start = 0
    if first is not None and first > SNIPPET_CHARS // 3:
        start = text.rfind(" ", 0, first - SNIPPET_CHARS // 3) + 1
    end = min(len(text), start + SNIPPET_CHARS)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    return start, end


def in_snippet(question: str, text: str, units: list[Unit]) -> list[Unit]:
    """The units of a passage of ``text`` that its snippet for ``question`` shows, whole or in part."""
    window = snippet_window(question, text)
    if window is None:
        return []
    shown: list[Unit] = []
    for unit in units:
        start = text.find(unit.source)
        if start >= 0 and start < window[1] and start + len(unit.source) > window[0]:
            shown.append(unit)
    return shown
