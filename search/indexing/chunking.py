"""Markdown-aware chunking of handbook pages for hybrid search.

Design choices (and why):

* Sections are cut at top-level headings from the markdown-it token stream, so
  a ``# comment`` inside a code fence is never a heading, and each chunk's
  ``anchor`` is the very id ``render_markdown`` puts on that heading.
* Packing is done per section: editing a paragraph can only change chunks of
  its own section, so re-indexing re-embeds little (hashes elsewhere are stable).
* Code blocks and table rows are atomic; an oversized code block stays whole
  and an oversized table is split between rows (header repeated) so each piece
  stays readable on its own.
* Prose over ``max_chars`` is split at sentence ends, then at word boundaries.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from config.numbers import CHUNK_MAX_CHARS, CHUNK_TARGET_CHARS, MAX_HEADING_CHARS
from core.text import split_sentences
from handbook.markdown import Block, Piece, markdown_blocks

__all__ = ["HEADING_SEPARATOR", "ChunkDraft", "chunk_markdown"]

HEADING_SEPARATOR = " › "


@dataclass(frozen=True)
class ChunkDraft:
    """One chunk to store. ``heading`` is the heading path ("Expenses › Per
    diems"), ``anchor`` the id of the nearest heading as rendered; both are ""
    before the first heading. ``text`` is plain text without the heading path;
    ``content_hash`` is sha256 hex of heading, a newline, then text."""

    ordinal: int
    heading: str
    anchor: str
    text: str
    content_hash: str


@dataclass(frozen=True)
class _Unit:
    """Packing unit: text plus the joiner used when glued to the previous unit."""

    text: str
    sep: str


@dataclass
class _Section:
    heading: str
    anchor: str
    blocks: list[Block]


def _content_hash(heading: str, text: str) -> str:
    return hashlib.sha256(f"{heading}\n{text}".encode()).hexdigest()


# --------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------


def _sections(blocks: list[Block]) -> list[_Section]:
    path: list[tuple[int, str]] = []  # (level, text) of the enclosing headings
    current = _Section("", "", [])
    sections = [current]
    for block in blocks:
        if block.kind != "heading":
            current.blocks.append(block)
            continue
        # A heading closes every open heading of the same or deeper level.
        while path and path[-1][0] >= block.level:
            path.pop()
        path.append((block.level, block.text))
        heading = HEADING_SEPARATOR.join(text for _, text in path if text)
        if len(heading) > MAX_HEADING_CHARS:
            heading = heading[: MAX_HEADING_CHARS - 1] + "…"
        current = _Section(heading, block.anchor, [])
        sections.append(current)
    # Heading-only sections carry no text to search: they yield nothing.
    return [s for s in sections if s.blocks]


# --------------------------------------------------------------------------
# Splitting oversized blocks into units
# --------------------------------------------------------------------------


def _hard_wrap(text: str, max_chars: int) -> list[str]:
    """Last resort for a single run-on sentence: cut at spaces (or anywhere)."""
    out: list[str] = []
    current = ""
    for word in text.split():
        while len(word) > max_chars:  # a single giant "word" (URL, hash, ...)
            if current:
                out.append(current)
                current = ""
            out.append(word[:max_chars])
            word = word[max_chars:]
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= max_chars:
            current = candidate
        else:
            out.append(current)
            current = word
    if current:
        out.append(current)
    return out


def _prose_units(text: str, first_sep: str, max_chars: int) -> list[_Unit]:
    if len(text) <= max_chars:
        return [_Unit(text, first_sep)]
    parts: list[str] = []
    for sentence in split_sentences(text):  # the project's one sentence splitter
        parts.extend([sentence] if len(sentence) <= max_chars else _hard_wrap(sentence, max_chars))
    return [_Unit(part, first_sep if i == 0 else " ") for i, part in enumerate(parts)]


def _table_units(rows: tuple[Piece, ...], max_chars: int) -> list[_Unit]:
    """Groups of whole rows, each starting with the header row."""
    header, body = rows[0].text, rows[1:]
    groups: list[str] = []
    current = header
    for row in body:
        candidate = f"{current}\n{row.text}"
        # Always put at least one body row with the header, even if oversized.
        if len(candidate) <= max_chars or current == header:
            current = candidate
        else:
            groups.append(current)
            current = f"{header}\n{row.text}"
    groups.append(current)
    return [_Unit(group, "\n\n") for group in groups]


def _block_units(block: Block, max_chars: int) -> list[_Unit]:
    if len(block.text) <= max_chars or block.kind == "code":
        return [_Unit(block.text, "\n\n")]
    if block.kind == "table":
        return _table_units(block.pieces, max_chars)
    # Paragraphs, lists, quotes: split between pieces (list items, inner
    # paragraphs, code blocks, rows), then prose pieces at sentences.
    units: list[_Unit] = []
    for i, piece in enumerate(block.pieces):
        sep = "\n\n" if i == 0 else "\n"
        if piece.kind == "prose":
            units.extend(_prose_units(piece.text, sep, max_chars))
        else:
            units.append(_Unit(piece.text, sep))
    return units


# --------------------------------------------------------------------------
# Packing
# --------------------------------------------------------------------------


def _pack(units: list[_Unit], target_chars: int, max_chars: int) -> list[str]:
    chunks: list[str] = []
    current = ""
    last = len(units) - 1
    for i, unit in enumerate(units):
        if not current:
            current = unit.text
            continue
        candidate = current + unit.sep + unit.text
        # Past target only to absorb the section's last unit, so a section
        # does not end with a tiny orphan chunk.
        if len(candidate) <= target_chars or (i == last and len(candidate) <= max_chars):
            current = candidate
        else:
            chunks.append(current)
            current = unit.text
    if current:
        chunks.append(current)
    return [chunk.strip() for chunk in chunks if chunk.strip()]


def chunk_markdown(
    body: str, *, target_chars: int = CHUNK_TARGET_CHARS, max_chars: int = CHUNK_MAX_CHARS
) -> list[ChunkDraft]:
    """Split a Markdown page into search chunks (ordinals 0..n-1)."""
    if target_chars <= 0 or max_chars < target_chars:
        raise ValueError("need 0 < target_chars <= max_chars")
    drafts: list[ChunkDraft] = []
    for section in _sections(markdown_blocks(body)):
        units = [u for block in section.blocks for u in _block_units(block, max_chars)]
        for text in _pack(units, target_chars, max_chars):
            drafts.append(
                ChunkDraft(
                    ordinal=len(drafts),
                    heading=section.heading,
                    anchor=section.anchor,
                    text=text,
                    content_hash=_content_hash(section.heading, text),
                )
            )
    return drafts
