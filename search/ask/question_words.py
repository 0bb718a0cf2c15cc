"""The question's words as the quote choice (``search/ask/extractive.py``) matches them with a unit's:
crude stems, the names it asks about, its word translation for units in another language, and the
words a unit names only to exclude them."""

from __future__ import annotations

import re

from config.numbers import QUESTION_WORD_MIN_CHARS
from core.text import content_words, prefix_stem, words
from search.ask.passages import Passage


def stems(tokens: list[str]) -> set[str]:
    return {prefix_stem(w) for w in tokens if len(w) >= QUESTION_WORD_MIN_CHARS or w.isdigit()}


# "France (hors Paris)", "all countries except Norway": the word after such a marker is what the
# unit is *not* about, so it must not count as the question's word there.
_EXCLUSION_RE = re.compile(
    r"\b(?:hors|sauf|except(?:\s+for)?|excepté|excluding|outside(?:\s+of)?|other\s+than|autres?\s+que|"
    r"à\s+l'exception\s+d[eu']?)\s+(?:(?:de|du|des|la|le|les|the|of)\s+|[ld]')?[\w-]+",
    re.IGNORECASE,
)


def without_exclusions(text: str) -> str:
    return _EXCLUSION_RE.sub(" ", text)


def names_asked(question: str) -> set[str]:
    """Stems of the question's capitalised words past its first word: names of places, tools, teams."""
    tokens = re.findall(r"[^\W\d_][\w'-]*", question)
    return stems([w for t in tokens[1:] if t[0].isupper() and not t.isupper() for w in words(t)])


def question_stems(question: str, language: str, passages: list[Passage]) -> dict[str, set[str]]:
    """Question stems for units of each language: the question's own, plus its translation as the
    passages carry it (retrieval's, for this asker: ``search/ask/passages.py``)."""
    own = stems(content_words(question, language))
    found = {language: own}
    translations = next((p.question_translations for p in passages if p.question_translations), {})
    for other in {p.language for p in passages} - {language}:
        translated = translations.get(other, "")
        found[other] = own | stems(content_words(translated, other)) if translated else own
    return found
