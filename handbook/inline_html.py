"""HTML written in a page's Markdown, as the reader of a quote should not see it.

Exported handbooks carry layout HTML inside their Markdown (``<summary>``, ``<mark style=…>``, an
anchor ``<a id=…></a>``, ``<!-- comments -->``): answer units (``statements/answer_units.py``) show their
text without it, and a line that is nothing but tags is no unit at all.
"""

from __future__ import annotations

import re

import nh3

_WORD_RE = re.compile(r"\w+")
_TAG_RE = re.compile(r"</?[a-zA-Z][^<>]*>")
# HTML written in the Markdown (``<summary>``, ``<mark style=…>``, an anchor ``<a id=…></a>``) is
# layout, not words: the reader is shown the text without it. Only HTML element names count, so a
# placeholder such as ``<nom_de_la_liste>`` in a command's description stays.
_ELEMENTS = "|".join(
    sorted(
        nh3.ALLOWED_TAGS | {"button", "font", "iframe", "input", "label", "main", "section", "script", "style", "svg"}
    )
)
_HTML_RE = re.compile(
    rf"<!--.*?(?:-->|$)"  # a comment, closed or cut off by the sentence's end
    rf"|</?(?:{_ELEMENTS})(?:[\s/][^<>]*)?(?:>|$)",  # a tag, closed or cut off
    re.IGNORECASE | re.DOTALL,
)
_BREAK_RE = re.compile(r"\s*<br\s*/?>\s*", re.IGNORECASE)  # a line break typed in a table cell


def without_typed_breaks(text: str) -> str:
    """A line break typed in a table cell (``<br>``) read as a space."""
    return _BREAK_RE.sub(" ", text)


def without_markup(text: str) -> str:
    """The text as a reader sees it: HTML tags and comments written in the Markdown left out."""
    if "<" not in text:
        return text
    return " ".join(_HTML_RE.sub(" ", text).split())


def is_markup(text: str) -> bool:
    """Nothing but HTML tags (``<div class="…">``): not a statement."""
    return not _WORD_RE.search(_TAG_RE.sub(" ", text))
