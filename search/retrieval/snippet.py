"""The snippet under a search result: a window of the best passage around the query's words, the
words marked.

Only content words are marked. Stop-words never are, not even when the query holds nothing else
("how to" marks nothing): a mark says "this is what you asked about", and "the" or "de" on every
line hides the words that matter. Marking may leave out a few function words more than the
retrieval's stop-word lists do (``UNMARKED``): those lists decide what a search matches, which is
measured on the dev sets; which words are marked decides nothing about what is found.
"""

from __future__ import annotations

import html
import re

from django.utils.safestring import SafeString, mark_safe

from config.numbers import SNIPPET_CHARS, SNIPPET_LEAD_PARTS, SNIPPET_OPEN_STEM_CHARS
from core import languages
from core.text import fold_accents, prefix_stem

# Function words the stop-word lists keep (the retrieval matches them) that a mark would only
# dilute: prepositions and quantifiers of rate, place and manner. Folded, lowercase.
_UNMARKED = """
per vs versus among amongst across around toward towards onto beside besides despite unless
although though whereas whilst throughout
lors contre durant envers hors malgre sauf outre ainsi tel telle tels telles chacun chacune
environ dessus dessous
"""
UNMARKED = frozenset(_UNMARKED.split())
NEVER_MARKED = languages.ALL_STOPWORDS | UNMARKED


def marked_words(words: list[str]) -> list[str]:
    """The query words worth a mark: content words only, none when the query has none."""
    return [w for w in words if len(w) >= 2 and fold_accents(w).lower() not in NEVER_MARKED]


def _spans(folded: str, words: list[str]) -> list[tuple[int, int]]:
    """Where the query's content words occur in ``folded`` text, in order, not overlapping."""
    stems = sorted({prefix_stem(w) for w in marked_words(words)}, key=len, reverse=True)
    spans: list[tuple[int, int]] = []
    for stem in stems:
        tail = r"\w*" if len(stem) > SNIPPET_OPEN_STEM_CHARS else r"s?\b"
        for match in re.finditer(r"\b" + re.escape(stem) + tail, folded):
            if not any(s <= match.start() < e for s, e in spans):
                spans.append((match.start(), match.end()))
    return sorted(spans)


def _window(text: str, spans: list[tuple[int, int]], limit: int) -> tuple[int, int]:
    start = 0
    if spans and spans[0][0] > limit // SNIPPET_LEAD_PARTS:
        start = text.rfind(" ", 0, spans[0][0] - limit // SNIPPET_LEAD_PARTS) + 1
    end = min(len(text), start + limit)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    return start, end


def _marks(text: str, words: list[str]) -> list[tuple[int, int]]:
    folded = fold_accents(text).lower()
    if len(folded) != len(text):  # folding changed lengths (œ → oe): fall back to no marks
        return []
    return _spans(folded, words)


def snippet_window(text: str, words: list[str], limit: int = SNIPPET_CHARS) -> tuple[int, int]:
    """Where in ``text`` the snippet for the query ``words`` starts and ends (what ``highlight`` shows)."""
    return _window(text, _marks(text, words), limit)


def highlight(text: str, words: list[str], limit: int = SNIPPET_CHARS) -> SafeString:
    """An HTML-escaped window of ``text`` around the first content word of the query, its matches in <mark>.

    Matching is by accent-folded prefix (``conge`` marks "congés"), done here
    rather than with ``ts_headline`` because documents are folded before
    ``to_tsvector`` and the headline would show folded text. A stem of three letters or
    fewer marks the word itself only ("vpn", not a longer word that begins with it).
    """
    spans = _marks(text, words)
    start, end = _window(text, spans, limit)
    out, cursor = [], start
    for s, e in spans:
        if s < start or e > end:
            continue
        out.append(html.escape(text[cursor:s]))
        out.append("<mark>" + html.escape(text[s:e]) + "</mark>")
        cursor = e
    out.append(html.escape(text[cursor:end]))
    prefix = "… " if start > 0 else ""
    suffix = " …" if end < len(text) else ""
    return mark_safe(prefix + "".join(out) + suffix)  # noqa: S308 - every piece is escaped above
