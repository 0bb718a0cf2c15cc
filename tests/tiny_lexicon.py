"""The word-translation statistics of a handbook of a few pages, for the fixtures that need them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from search.lexicon import word_translation as lexicon


def tiny_lexicon(monkeypatch: Any) -> Iterator[None]:
    """Every word counts and one page per language is enough; no table is left over, before or after.

    For an autouse fixture: ``yield from tiny_lexicon(monkeypatch)``.
    """
    monkeypatch.setattr(lexicon, "MIN_CHUNKS", 1)
    monkeypatch.setattr(lexicon, "MIN_LANGUAGE_CHUNKS", 1)
    lexicon.forget()
    yield
    lexicon.forget()
