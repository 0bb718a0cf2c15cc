"""The snippet's marks live in ``search/retrieval/snippet.py`` (a room Ask may import too); this name
stays for imports written before the move."""

from search.retrieval.snippet import NEVER_MARKED, SNIPPET_CHARS, UNMARKED, highlight, marked_words

__all__ = ["NEVER_MARKED", "SNIPPET_CHARS", "UNMARKED", "highlight", "marked_words"]
