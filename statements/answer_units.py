"""Answer units: the pieces of a page that can state a fact on their own.

A chunk's plain text has lost the page's structure (a table row is its cells
glued with spaces, a list item has lost its lead-in), so units are read from
the page's Markdown, section by section:

- a sentence of a paragraph or quote;
- a list item, prefixed with the sentence that introduces the list when it
  ends with a colon ("Cards are issued to employees who: travel for work more
  than four times a year, or");
- a table row with its column headers and the table's heading
  ("Barème 2026 — Destination: Norvège; Indemnité par jour: 70 €"), in plain text too.

Code blocks, shell commands, headings and navigation (lines that are mostly
links, "see also") are never units; page-introduction sentences ("This page
explains…") are marked as filler so that they are quoted only when nothing
else is left. Each unit keeps ``source``: its text as the chunker wrote it, so
that the units of a passage are the units whose source is in the passage.

Answers (``search/ask/extractive.py``) and extractive summaries
(``summaries/extractive.py``) quote these units.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from cachetools import LRUCache

from config.numbers import ANSWER_UNITS_PAGE_CACHE_SIZE as _PAGE_CACHE_SIZE
from config.numbers import CODE_LINE_SHARE, MAX_ITEM_WORDS, MAX_LEAD_WORDS, NAVIGATION_LINK_SHARE
from core.text import split_sentences
from handbook.html_tables import has_table, split_tables
from handbook.inline_html import is_markup, without_markup, without_typed_breaks
from handbook.markdown import parse_tokens
from handbook.models import Revision

__all__ = ["Unit", "chunk_units", "page_units", "passage_units", "revision_units", "sentence_units"]


@dataclass(frozen=True)
class Unit:
    text: str  # what is quoted to the reader
    kind: str  # "sentence" | "item" | "row"
    anchor: str  # id of the section's top-level heading ("" before the first one)
    heading: str  # heading path of the section, nearest last ("Expenses › Per diems")
    source: str  # the unit's text as it appears in the chunk text
    filler: bool = False  # page introductions and pointers elsewhere: quoted only as a last resort
    has_link: bool = False
    position: int = 0  # document order
    cells: tuple[str, ...] = ()  # a table row's cells
    header: tuple[str, ...] = ()  # a table row's column headers
    section_index: int = 0  # order within its section (0: the section's opening statement)


# "This page explains…", "Cette page précise…", "See also…", "Pour en savoir plus…"
_FILLER_RE = re.compile(
    r"""^(?:
        (?:this|the\ following|the\ present)\s+(?:page|section|guide|document|article|policy|handbook|chapter)\b
            .{0,80}?\b(?:explains?|describes?|covers?|outlines?|summari[sz]es|presents?|lists?|sets?\ out|
            contains?|gives?|provides?|walks?|is\ about|will\ help|helps?)\b
      | (?:cette|la\ pr[eé]sente|ce|le\ pr[eé]sent)\s+(?:page|section|fiche|charte|guide|document|article|rubrique)\b
            .{0,80}?\b(?:explique|d[eé]crit|pr[eé]sente|pr[eé]cise|r[eé]sume|d[eé]taille|regroupe|rassemble|
            donne|permet|vise|a\ pour)\b
      | (?:see|read)\s+(?:also|more|the\ page|our)\b
      | for\ (?:more|further)\s+(?:information|details|info)\b
      | (?:learn|read)\s+more\b
      | related\ (?:pages?|links?|reading)\b
      | (?:voir|voyez)\s+(?:aussi|[eé]galement|la\ page)\b
      | pour\ (?:en\ savoir|plus\ d'information|plus\ de\ d[eé]tails|aller\ plus\ loin)\b
      # The page's own dates: "Ce contenu a été mis à jour le 2 octobre 2020.", "Last updated: …"
      | (?:this|the)\s+(?:page|content|document|article|guide)\s+(?:was\s+)?(?:last\s+)?(?:updated|reviewed|modified)\b
      | last\s+(?:updated|reviewed|modified)\b
      | (?:ce|cet)\s+(?:contenu|article|document|guide|page)\s+a\s+[eé]t[eé]\s+
            (?:mis\s+[aà]\s+jour|modifi[eé]|relu|publi[eé])\b
      | (?:derni[eè]re\s+(?:mise\s+[aà]\s+jour|modification|relecture)|mis\s+[aà]\s+jour\s+le)\b
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# Sections that only point elsewhere.
_POINTER_HEADING_RE = re.compile(
    r"^(?:related|see also|voir aussi|[àa] voir|liens?(?: utiles)?|useful links|links|resources|ressources|"
    r"further reading|pour aller plus loin|r[eé]f[eé]rences|references|sources)\b",
    re.IGNORECASE,
)
_COMMAND_RE = re.compile(
    r"^\s*(?:\$\s|#!|(?:sudo|npm|npx|pip|pip3|git|curl|wget|docker|kubectl|brew|apt|apt-get|yarn|"
    r"python3|ssh|scp|chmod|wg-quick)\s)"
)


def _inline(token: Any) -> tuple[str, int, int]:
    """(plain text, characters inside links, characters of inline code) of an inline token."""
    parts: list[str] = []
    link_chars = code_chars = 0
    in_link = 0
    for child in token.children or []:
        if child.type == "link_open":
            in_link += 1
        elif child.type == "link_close":
            in_link = max(0, in_link - 1)
        elif child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content)
            if in_link:
                link_chars += len(child.content)
            if child.type == "code_inline":
                # An inline shell command makes the whole line a command.
                code_chars += len(token.content) if _COMMAND_RE.match(child.content) else len(child.content)
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "hardbreak":
            parts.append("\n")
    return "".join(parts).strip(), link_chars, code_chars


def _is_navigation(text: str, link_chars: int) -> bool:
    return link_chars > 0 and link_chars >= NAVIGATION_LINK_SHARE * max(1, len(text.strip(" .;:-–—•")))


def _is_code(text: str, code_chars: int) -> bool:
    return bool(_COMMAND_RE.match(text)) or (code_chars > 0 and code_chars >= CODE_LINE_SHARE * len(text))


def is_filler(text: str) -> bool:
    return bool(_FILLER_RE.match(text.lstrip("*_ ")))


class _Walker:
    """One pass over the token stream, emitting units in document order."""

    def __init__(self) -> None:
        self.units: list[Unit] = []
        self.path: list[tuple[int, str]] = []
        self.anchor = ""
        self.last_paragraph = ""  # the previous top-level paragraph (a list's or table's lead-in)
        self.leads: list[str] = []  # lead-in of each open list
        self.item_text: list[str] = []  # first text of each open list item
        self.rows: list[list[str]] = []
        self.row: list[str] | None = None
        self.table_lead = ""
        self.in_section = 0

    @property
    def heading(self) -> str:
        return " › ".join(text for _, text in self.path if text)

    def add(
        self,
        text: str,
        kind: str,
        source: str,
        *,
        filler: bool = False,
        has_link: bool = False,
        cells: tuple[str, ...] = (),
        header: tuple[str, ...] = (),
    ) -> None:
        text, source = without_markup(without_typed_breaks(text)).strip(), source.strip()
        if is_markup(text):
            return
        if self.path and _POINTER_HEADING_RE.match(self.path[-1][1]):
            filler = True
        self.units.append(
            Unit(
                text,
                kind,
                self.anchor,
                self.heading,
                source,
                filler or is_filler(text),
                has_link,
                len(self.units),
                cells,
                header,
                self.in_section,
            )
        )
        self.in_section += 1

    def sentences(self, text: str, link_chars: int, code_chars: int) -> None:
        if _is_code(text, code_chars):
            return
        navigation = _is_navigation(text, link_chars)
        for sentence in split_sentences(text):
            self.add(sentence, "sentence", sentence, filler=navigation, has_link=link_chars > 0)

    def carried_by_items(self, lead: str) -> None:
        """A list's lead-in is quoted with each of its items; on its own ("The notice must state:") it
        says nothing, so it becomes filler."""
        last = self.units[-1] if self.units else None
        if last and last.kind == "sentence" and last.text.endswith(":") and lead.strip().endswith(last.text):
            self.units[-1] = replace(last, filler=True)

    def list_item(self, text: str, link_chars: int, code_chars: int) -> None:
        if _is_code(text, code_chars):
            return
        navigation = _is_navigation(text, link_chars)
        lead = self.leads[-1] if self.leads else ""
        if len(text.split()) > MAX_ITEM_WORDS:
            pieces = split_sentences(text)
            for i, piece in enumerate(pieces):
                quoted = f"{lead} {piece}" if lead and i == 0 else piece
                self.add(quoted, "item", piece, filler=navigation, has_link=link_chars > 0)
            return
        quoted = f"{lead} {text}" if lead else text
        self.add(quoted, "item", text, filler=navigation, has_link=link_chars > 0)

    def table(self) -> None:
        rows, self.rows = self.rows, []
        if len(rows) < 2:
            for row in rows:
                cells = [c for c in row if c]
                self.add("; ".join(cells), "row", " ".join(cells))
            return
        self.table_rows(rows[0], [(row, " ".join(c for c in row if c)) for row in rows[1:]])

    def table_rows(self, header: list[str] | tuple[str, ...], body: list[tuple[Any, str]]) -> None:
        """A unit per body row (its cells, and the text the chunk holds for it): each cell named by its
        column header, the table's heading (or lead-in) first."""
        caption = self.path[-1][1] if self.path else self.table_lead.rstrip(" :")
        for row, source in body:
            cells = [c for c in row if c]
            if not cells:
                continue
            parts = []
            for i, cell in enumerate(row):
                if not cell:
                    continue
                name = header[i] if i < len(header) else ""
                parts.append(f"{name}: {cell}" if name and name != cell else cell)
            text = "; ".join(parts)
            self.add(
                f"{caption} — {text}" if caption else text,
                "row",
                source,
                cells=tuple(row),
                header=tuple(header),
            )

    def paragraph(self, text: str, link_chars: int, code_chars: int) -> None:
        """A paragraph's sentences; a table written in HTML inside it (an exported handbook's) is read
        row by row, like a Markdown table, instead of as sentences of tags."""
        if not has_table(text):
            self.sentences(text, link_chars, code_chars)
            return
        for piece in split_tables(text):
            if isinstance(piece, str):
                if piece.strip():
                    self.sentences(piece.strip(), 0, 0)
                continue
            header = next((row.cells for row in piece if row.header), ())
            self.table_lead = self.last_paragraph if self.last_paragraph.rstrip().endswith(":") else ""
            self.table_rows(header, [(row.cells, row.source) for row in piece if not row.header])

    def walk(self, tokens: list[Any]) -> list[Unit]:
        stack: list[str] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            kind = token.type
            if kind == "heading_open":
                title, _links, _code = _inline(tokens[i + 1]) if i + 1 < len(tokens) else ("", 0, 0)
                if token.level == 0:
                    level = int(token.tag[1])
                    while self.path and self.path[-1][0] >= level:
                        self.path.pop()
                    self.path.append((level, title))
                    self.anchor = str(token.attrGet("id") or "")
                self.in_section = 0
                self.last_paragraph = ""
                i += 3  # heading_open, inline, heading_close
                continue
            if kind in ("bullet_list_open", "ordered_list_open"):
                if "list_item_open" in stack:
                    parent = self.item_text[-1] if self.item_text else ""
                    lead = parent if 0 < len(parent.split()) <= MAX_LEAD_WORDS else ""
                else:
                    lead = self.last_paragraph if self.last_paragraph.rstrip().endswith(":") else ""
                    lead = lead if len(lead.split()) <= MAX_LEAD_WORDS else ""
                    if lead:
                        self.carried_by_items(lead)
                self.leads.append(lead)
            elif kind in ("bullet_list_close", "ordered_list_close"):
                if self.leads:
                    self.leads.pop()
                if "list_item_open" not in stack[:-1]:
                    self.last_paragraph = ""
            elif kind == "list_item_open":
                self.item_text.append("")
            elif kind == "list_item_close":
                if self.item_text:
                    self.item_text.pop()
            elif kind == "table_open":
                self.rows = []
                self.table_lead = self.last_paragraph if self.last_paragraph.rstrip().endswith(":") else ""
            elif kind == "tr_open":
                self.row = []
            elif kind == "tr_close" and self.row is not None:
                self.rows.append(self.row)
                self.row = None
            elif kind == "table_close":
                self.table()
                self.last_paragraph = ""
            elif kind in ("fence", "code_block", "html_block", "hr"):
                self.last_paragraph = ""
            elif kind == "inline":
                text, links, code = _inline(token)
                if self.row is not None:
                    self.row.append(" ".join(text.split()))
                elif "list_item_open" in stack:
                    if self.item_text and not self.item_text[-1]:
                        self.item_text[-1] = text
                    self.list_item(text, links, code)
                else:
                    self.paragraph(text, links, code)
                    if "blockquote_open" not in stack:
                        self.last_paragraph = text
            if token.nesting == 1:
                stack.append(kind)
            elif token.nesting == -1 and stack:
                stack.pop()
            i += 1
        return self.units


def page_units(markdown: str) -> list[Unit]:
    """Every unit of a page, in document order."""
    return _Walker().walk(parse_tokens(markdown))


def sentence_units(text: str, anchor: str = "", heading: str = "") -> list[Unit]:
    """Units of plain text (no Markdown at hand): its sentences, code-like lines left out."""
    units: list[Unit] = []
    for piece in split_tables(text) if has_table(text) else [text]:
        if not isinstance(piece, str):  # an HTML table's rows: their cells named by their headers, never tags
            header = next((row.cells for row in piece if row.header), ())
            for row in [row for row in piece if not row.header] or piece:
                names = [header[i] if i < len(header) else "" for i in range(len(row.cells))]
                named = "; ".join(
                    f"{h}: {c}" if h and h != c else c for h, c in zip(names, row.cells, strict=True) if c
                )
                units.append(
                    Unit(named, "row", anchor, heading, row.source, False, False, len(units), row.cells, header)
                )
            continue
        for sentence in split_sentences(piece):
            shown = without_markup(sentence)
            if "\n" in sentence or _is_code(sentence, 0) or is_markup(shown):
                continue
            units.append(Unit(shown, "sentence", anchor, heading, sentence, is_filler(shown), False, len(units)))
    return units


# Units of a revision never change: parsed once per process, the most recent pages kept.
_cache: LRUCache[int, list[Unit]] = LRUCache(_PAGE_CACHE_SIZE)
_lock = threading.Lock()  # threads share it, and cachetools' LRU is not thread-safe


def revision_units(revision_ids: Iterable[int]) -> dict[int, list[Unit]]:
    """{revision id: every unit of that revision's page}."""
    wanted = set(revision_ids)
    found: dict[int, list[Unit]] = {}
    with _lock:
        for rid in wanted:
            units = _cache.get(rid)
            if units is not None:
                found[rid] = units
    missing = wanted - found.keys()
    if missing:
        for rid, body in Revision.objects.filter(id__in=missing).values_list("id", "body"):
            found[rid] = page_units(body or "")
        with _lock:
            for rid in missing & found.keys():
                _cache[rid] = found[rid]
    return found


def passage_units(passages: list[Any]) -> dict[int, list[Unit]]:
    """{passage number: its units}: the page's units of the passage's section found in its text."""
    by_revision = revision_units(p.revision_id for p in passages)
    return {p.number: chunk_units(by_revision.get(p.revision_id, []), p.anchor, p.heading, p.text) for p in passages}


def chunk_units(page: list[Unit], anchor: str, heading: str, text: str) -> list[Unit]:
    """The units of a chunk's text: the page's units of its section found in it, else its sentences.

    Ask (a passage) and indexing (the stored unit vectors) both read units through this one rule.
    """
    units = [u for u in page if u.anchor == anchor and u.source in text]
    return units or sentence_units(text, anchor, heading)
