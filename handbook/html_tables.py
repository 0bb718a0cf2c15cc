"""Tables written in raw HTML inside Markdown, read row by row.

Handbooks exported from GitBook, Notion or Confluence often keep their tables as ``<table>`` markup.
The Markdown parser escapes raw HTML (``handbook/markdown.py``), so such a table reaches the page's
text as one paragraph of tags; read as sentences it would be quoted tags and all, its cells glued
across rows. Here each ``<tr>`` becomes a row of cell texts, with whether it is a header row and
its markup as written (the chunk text holds that markup, so a unit can be found in its chunk).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

# A table, or the part of one a paragraph holds (a blank line inside the markup splits it in
# paragraphs): from <table> or its first <tr> to </table> or the paragraph's end.
_TABLE_RE = re.compile(r"<(?:table|tr)\b.*?(?:</table\s*>|$)", re.IGNORECASE | re.DOTALL)
_ROW_RE = re.compile(r"<tr\b.*?</tr\s*>", re.IGNORECASE | re.DOTALL)
_THEAD_RE = re.compile(r"<thead\b.*?</thead\s*>", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class HtmlRow:
    cells: tuple[str, ...]
    header: bool  # in <thead>, or made of <th> cells only
    source: str  # the row's markup, as written


class _Cells(HTMLParser):
    """Text of each <td>/<th> of one row; tags inside a cell (links, emphasis, <br>) are dropped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.cells: list[str] = []
        self.kinds: list[str] = []
        self._open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("td", "th"):
            self.cells.append("")
            self.kinds.append(tag)
            self._open = True
        elif tag == "br" and self._open:
            self.cells[-1] += " "

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self._open = False

    def handle_data(self, data: str) -> None:
        if self._open:
            self.cells[-1] += data


def split_tables(text: str) -> list[str | list[HtmlRow]]:
    """The text in order: plain stretches as strings, each HTML table as its list of rows."""
    pieces: list[str | list[HtmlRow]] = []
    last = 0
    for match in _TABLE_RE.finditer(text):
        if match.start() > last:
            pieces.append(text[last : match.start()])
        pieces.append(table_rows(match.group(0)))
        last = match.end()
    if last < len(text):
        pieces.append(text[last:])
    return pieces


def has_table(text: str) -> bool:
    return "<t" in text.lower() and _TABLE_RE.search(text) is not None


def table_rows(markup: str) -> list[HtmlRow]:
    head = _THEAD_RE.search(markup)
    rows = []
    for match in _ROW_RE.finditer(markup):
        parser = _Cells()
        parser.feed(match.group(0))
        parser.close()
        cells = tuple(" ".join(c.split()) for c in parser.cells)  # the parser has decoded the entities once
        if not any(cells):
            continue
        in_head = head is not None and head.start() <= match.start() < head.end()
        rows.append(HtmlRow(cells, in_head or all(k == "th" for k in parser.kinds), match.group(0)))
    return rows
