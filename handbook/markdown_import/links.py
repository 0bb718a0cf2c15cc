"""Finding and rewriting the link targets of a Markdown text (code left alone)."""

from __future__ import annotations

import re
from collections.abc import Callable

from handbook.markdown_import.cleanup import _FENCE, _INLINE_CODE

# "](target)" or "](target "title")" of links and images; "[label]: target" definitions.
_INLINE_TARGET = re.compile(
    r"""\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)((?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\))"""
)
_DEFINITION = re.compile(r"""^( {0,3}\[[^\]\n]+\]:[ \t]*)(<[^>\n]*>|\S+)""", re.MULTILINE)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")

# What ``replace`` returns to turn a link into its text (an image into its alt text, a reference
# definition into nothing): the export does it to links whose target its reader may not see.
UNLINK = "\x01unlink\x01"
_TITLE = r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?"""
_UNLINKED_INLINE = re.compile(r"!?\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*" + re.escape(UNLINK) + _TITLE + r"\s*\)")
_UNLINKED_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*" + re.escape(UNLINK) + r"[^\n]*\n?", re.MULTILINE)


def is_external(target: str) -> bool:
    return bool(_SCHEME.match(target))


def rewrite_targets(text: str, replace: Callable[[str], str | None]) -> str:
    """``replace(target)`` gives the new target, None to keep it, or ``UNLINK`` to keep only the link's
    text; code spans and blocks are untouched."""
    kept: list[str] = []

    def hold(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"\x00{len(kept) - 1}\x00"

    text = _FENCE.sub(hold, text)
    text = _INLINE_CODE.sub(hold, text)

    def inline(match: re.Match[str]) -> str:
        raw = match.group(1)
        target = raw[1:-1] if raw.startswith("<") else raw
        new = replace(target)
        return match.group(0) if new is None else f"]({new}{match.group(2)}"

    def definition(match: re.Match[str]) -> str:
        raw = match.group(2)
        target = raw[1:-1] if raw.startswith("<") else raw
        new = replace(target)
        return match.group(0) if new is None else match.group(1) + new

    text = _INLINE_TARGET.sub(inline, text)
    text = _DEFINITION.sub(definition, text)
    if UNLINK in text:
        text = _UNLINKED_INLINE.sub(lambda m: m.group(1), text)
        text = _UNLINKED_DEFINITION.sub("", text)
        text = text.replace(UNLINK, "")  # a link shape the patterns above miss keeps no target either
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)


def link_targets(text: str) -> list[str]:
    found: list[str] = []
    rewrite_targets(text, lambda target: found.append(target))
    return found
