"""A page's opening ``# <title>`` heading, kept in step with its title when the page is renamed.

Most pages open with their title as an H1 (the page view shows it once, as the header). A
rename that left it alone would show the old name under the new one, and keep it in the
index; only a heading that is exactly a title the page had is rewritten, never other text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# An ATX H1 on the first non-blank line: up to three spaces, "#", the text, optional closing #s.
_ATX_H1 = re.compile(r"\A((?:[ \t]*\n)*)[ ]{0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*(?=\n|\Z)")
# A setext H1: the text on the first non-blank line, underlined with "=".
_SETEXT_H1 = re.compile(r"\A((?:[ \t]*\n)*)[ ]{0,3}(\S[^\n]*?)[ \t]*\n[ ]{0,3}=+[ \t]*(?=\n|\Z)")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
# Characters that would turn a title into emphasis, a link or code inside a heading.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>!#|~])")


def _plain(heading: str) -> str:
    """The heading's text as a reader sees it: backslash escapes undone, spaces collapsed."""
    return " ".join(_ESCAPED.sub(r"\1", heading).split())


def title_as_heading_text(title: str) -> str:
    """The title escaped so that the heading renders as exactly the title."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(title.split()))


def retitled(body: str, old_titles: Iterable[str], new_title: str) -> str | None:
    """``body`` with its opening H1 set to ``new_title`` when that H1 is one of ``old_titles``.

    None when the body does not open with such a heading (or already names the new title):
    the caller then keeps the text as it is.
    """
    wanted = {" ".join(t.split()) for t in old_titles if t.strip()}
    for pattern in (_ATX_H1, _SETEXT_H1):
        match = pattern.match(body)
        if match is None:
            continue
        text = _plain(match.group(2))
        if text not in wanted or text == " ".join(new_title.split()):
            return None
        return f"{match.group(1)}# {title_as_heading_text(new_title)}{body[match.end() :]}"
    return None
