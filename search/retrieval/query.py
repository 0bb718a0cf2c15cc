"""Parse what a person types into a search box.

Plain words are optional (OR) — natural questions must not come back empty
because one word is missing from the page — while ``"quoted phrases"`` are
required and ``-word`` / ``-"phrase"`` exclude. Words are accent-folded and
reduced to letters and digits, so nothing the user types reaches
``to_tsquery`` as syntax.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from django.utils.translation import gettext

from config.numbers import QUERY_MAX_CHARS as MAX_QUERY_CHARS
from config.numbers import QUERY_MAX_EXCLUDED as MAX_EXCLUDED
from config.numbers import QUERY_MAX_PHRASES as MAX_PHRASES
from config.numbers import QUERY_MAX_TERMS as MAX_TERMS
from core.text import fold_accents

_TOKEN = re.compile(r'(-?)"([^"]*)"|(-?)(\S+)')
_WORD = re.compile(r"[0-9a-z]+")


class QueryError(ValueError):
    """The query cannot be searched; the message is shown to the user."""


@dataclass
class ParsedQuery:
    raw: str
    terms: list[str] = field(default_factory=list)  # optional words
    phrases: list[list[str]] = field(default_factory=list)  # required phrases
    excluded: list[list[str]] = field(default_factory=list)  # words or phrases that must not appear

    @property
    def is_empty(self) -> bool:
        return not (self.terms or self.phrases)

    @property
    def positive_words(self) -> list[str]:
        return self.terms + [w for phrase in self.phrases for w in phrase]


def clean_query(text: str) -> str:
    """Drop control characters, collapse whitespace, enforce the length limit."""
    if text is None:
        return ""
    cleaned = "".join(" " if unicodedata.category(ch).startswith("C") else ch for ch in str(text))
    cleaned = " ".join(cleaned.split())
    if len(cleaned) > MAX_QUERY_CHARS:
        raise QueryError(
            gettext("Your search is too long (%(length)d characters); the limit is %(limit)d.")
            % {"length": len(cleaned), "limit": MAX_QUERY_CHARS}
        )
    return cleaned


def _words(text: str) -> list[str]:
    return _WORD.findall(fold_accents(text).lower())


def parse_query(text: str) -> ParsedQuery:
    raw = clean_query(text)
    parsed = ParsedQuery(raw=raw)
    for match in _TOKEN.finditer(raw):
        negated_phrase, phrase, negated_word, word = match.groups()
        if phrase is not None:
            words = _words(phrase)
            if not words:
                continue
            if negated_phrase:
                parsed.excluded.append(words)
            elif len(words) == 1:
                parsed.terms.append(words[0])
            else:
                parsed.phrases.append(words)
        else:
            words = _words(word)
            if negated_word and words and len(word) > 1:
                parsed.excluded.append(words if len(words) > 1 else words[:1])
            else:
                parsed.terms.extend(words)
    # Keep the order, drop repeats, bound the work a single query can ask for.
    parsed.terms = list(dict.fromkeys(parsed.terms))[:MAX_TERMS]
    parsed.phrases = parsed.phrases[:MAX_PHRASES]
    parsed.excluded = parsed.excluded[:MAX_EXCLUDED]
    return parsed


def _phrase(words: list[str]) -> str:
    return "(" + " <-> ".join(words) + ")" if len(words) > 1 else words[0]


def tsquery_text(parsed: ParsedQuery, *, require_all: bool = False) -> str:
    """Text for ``to_tsquery``: (t1 | t2 …) & phrase… & !excluded…

    Only ``[0-9a-z]`` words and our own operators appear, so the user cannot
    inject tsquery syntax. ``to_tsquery`` then stems and drops stop-words with
    the configuration of each chunk's language.
    """
    parts: list[str] = [_phrase(p) for p in parsed.phrases]
    if parsed.terms and require_all:
        parts.append("(" + " & ".join(parsed.terms) + ")")
    elif parsed.terms:
        # Words stay optional next to a required phrase: OR-ed with the phrases
        # they match nothing new, but they still count towards the rank.
        parts.append("(" + " | ".join(parsed.terms + [_phrase(p) for p in parsed.phrases]) + ")")
    parts.extend("!" + _phrase(p) for p in parsed.excluded)
    return " & ".join(parts)
