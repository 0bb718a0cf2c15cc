"""Markdown → sanitized HTML, plain text and heading ids.

Every consumer (page rendering, table of contents, the search chunker) goes
through the one parser built here, so a heading's id is computed in exactly one
place: `_assign_heading_ids`, a core rule that runs on every parse. That is what
lets a search hit link to ``page#anchor`` and land on the right heading.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

__all__ = [
    "Block",
    "Piece",
    "heading_ids",
    "image_source_allowed",
    "markdown_blocks",
    "markdown_to_text",
    "parse_tokens",
    "render_markdown",
    "sanitize_html",
    "slugify_heading",
    "table_of_contents",
]

# --------------------------------------------------------------------------
# Heading ids
# --------------------------------------------------------------------------

_NON_ALNUM = re.compile(r"[\W_]+")
# Chunk.anchor is a 300-char column; leave room for a "-NN" de-dup suffix.
MAX_SLUG_LENGTH = 200


def slugify_heading(text: str) -> str:
    """Return the id for a heading: "Congés payés" → "conges-payes".

    Accents are folded (NFKD, combining marks dropped) so ids are ASCII for
    Latin scripts and easy to type in a URL; other scripts keep their letters.
    """
    folded = unicodedata.normalize("NFKD", text.lower())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    slug = _NON_ALNUM.sub("-", folded).strip("-")
    return slug[:MAX_SLUG_LENGTH].rstrip("-") or "section"


def _unique(slug: str, taken: set[str]) -> str:
    # Same scheme as GitHub / markdown-it-anchor: "x", "x-1", "x-2", ...
    candidate, n = slug, 1
    while candidate in taken:
        candidate = f"{slug}-{n}"
        n += 1
    taken.add(candidate)
    return candidate


def _inline_text(inline: Token) -> str:
    """Plain text of an inline token: emphasis/link markup dropped, images dropped."""
    parts: list[str] = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content)
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "hardbreak":
            parts.append("\n")
    return "".join(parts)


def _assign_heading_ids(state: StateCore) -> None:
    """Core rule: give every heading (any level, any nesting) a unique id."""
    taken: set[str] = set()
    tokens = state.tokens
    for idx, token in enumerate(tokens):
        if token.type == "heading_open":
            title = _inline_text(tokens[idx + 1]).strip()
            token.attrSet("id", _unique(slugify_heading(title), taken))


def _build_parser() -> MarkdownIt:
    # commonmark + GFM tables/strikethrough; raw HTML off (escaped as text),
    # no linkify, no typographer: what authors type is what gets indexed.
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.core.ruler.push("heading_ids", _assign_heading_ids)
    return md


_MD = _build_parser()


def parse_tokens(markdown: str) -> list[Token]:
    """The token stream of the one parser (heading ids assigned), for readers that need structure."""
    return _MD.parse(markdown)


def heading_ids(markdown: str) -> list[tuple[int, str, str]]:
    """(level, text, id) for every heading, in document order, as rendered."""
    tokens = _MD.parse(markdown)
    return [
        (int(tok.tag[1]), _inline_text(tokens[i + 1]).strip(), str(tok.attrGet("id")))
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open"
    ]


def table_of_contents(text: str) -> list[dict[str, object]]:
    """Headings as ``{"level", "text", "id"}`` dicts for templates."""
    return [{"level": lvl, "text": txt, "id": hid} for lvl, txt, hid in heading_ids(text)]


# --------------------------------------------------------------------------
# HTML rendering + sanitizing
# --------------------------------------------------------------------------

_HEADINGS = {f"h{n}" for n in range(1, 7)}
_ALLOWED_TAGS = _HEADINGS | {
    "p", "ul", "ol", "li", "a", "code", "pre", "blockquote",
    "table", "thead", "tbody", "tr", "th", "td",
    "em", "strong", "del", "hr", "br", "img",
}  # fmt: skip
_ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    **{h: {"id"} for h in _HEADINGS},
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "code": {"class"},
    "ol": {"start"},  # keeps "3. …" lists numbered correctly; value is inert
}
_URL_SCHEMES = {"http", "https", "mailto"}
_LANGUAGE_CLASS = re.compile(r"language-[\w#+.-]{1,40}")
# Scheme ("https:", "data:") or protocol-relative ("//", and the "\\" / "/\"
# variants browsers treat the same way).
_ABSOLUTE_URL = re.compile(r"^\s*(?:[a-zA-Z][a-zA-Z0-9+.-]*:|[/\\]{2})")


def _is_absolute(url: str) -> bool:
    return bool(_ABSOLUTE_URL.match(url))


# Where the handbook serves its own files. An image is fetched by every reader's
# browser, with their session, as soon as the page is shown: pointed at an
# application URL (``/ask/?q=…``, ``/search/``, an admin page) it would act as each
# reader. So an image may load only from these paths, or from a relative path that
# names a file (``img/map.png``: no query, no ``..``, so it cannot leave the page's
# own folder or reach a view, which all end in "/").
IMAGE_PATH_PREFIXES = ("/files/", "/attachments/", "/media/", "/static/")
_FILE_NAME = re.compile(r"[^/]*[^/.]\.[A-Za-z0-9]{1,8}")


def image_source_allowed(src: str) -> bool:
    """True if an image may load from ``src``: one of the handbook's own files."""
    if _is_absolute(src):
        return False  # other sites (the sanitiser drops them too), and absolute same-host URLs
    # Browsers decode %2e / %2f / %5c and read "\\" as "/" before resolving a path; check what they resolve.
    path = unquote(src)
    if not path or any(ch in path for ch in "\\?#") or any(ch.isspace() or ord(ch) < 32 for ch in path):
        return False
    prefix = next((p for p in IMAGE_PATH_PREFIXES if path.startswith(p)), None)
    if prefix is None and path.startswith("/"):
        return False  # an application URL: /ask/, /search/, /spaces/…, /admin/…
    segments = path[len(prefix or "") :].split("/")
    if any(segment in (".", "..") for segment in segments):
        return False
    return prefix is not None or (all(segments) and bool(_FILE_NAME.fullmatch(segments[-1])))


def _attribute_filter(element: str, attribute: str, value: str) -> str | None:
    # `class` is only allowed as the fence language marker markdown-it emits.
    if attribute == "class":
        return value if element == "code" and _LANGUAGE_CLASS.fullmatch(value) else None
    # Second line of defence for images (the token pass turns them into their alt text).
    if element == "img" and attribute == "src" and not image_source_allowed(value):
        return None
    return value


_CLEANER = nh3.Cleaner(
    tags=_ALLOWED_TAGS,
    clean_content_tags={"script", "style"},
    attributes=_ALLOWED_ATTRIBUTES,
    attribute_filter=_attribute_filter,
    url_schemes=_URL_SCHEMES,
    link_rel="noopener noreferrer",
    strip_comments=True,
)


# nh3 serializes attributes as name="value", so this sees normalized markup.
_IMG_WITHOUT_SRC = re.compile(r"<img(?![^>]*\ssrc=)[^>]*>")


def sanitize_html(html: str) -> str:
    """Allow-list sanitizer applied to all rendered Markdown.

    An <img> whose src was rejected is dropped entirely rather than left as an
    empty image box.
    """
    return _IMG_WITHOUT_SRC.sub("", _CLEANER.clean(html))


def _prepare_for_html(tokens: list[Token]) -> None:
    """Token tweaks that only matter for HTML output (not for text/ids).

    * External images would leak readers' IPs to third parties and could be
      swapped after review, and an image pointed at an application URL would
      run that URL as every reader: only the handbook's own files are kept
      (``image_source_allowed``); any other image becomes its alt text.
    * Strikethrough is emitted as <del> (the one tag in the allow-list).
    """
    for block in tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        for child in block.children:
            if child.type == "image" and not image_source_allowed(str(child.attrGet("src") or "")):
                alt = _inline_text(child)
                if alt:
                    children.append(Token("text", "", 0, content=alt))
                continue
            if child.type in ("s_open", "s_close"):
                child.tag = "del"
            children.append(child)
        block.children = children


def render_markdown(text: str) -> str:
    """Markdown → safe HTML fragment with heading ids."""
    tokens = _MD.parse(text)
    _prepare_for_html(tokens)
    return sanitize_html(_MD.renderer.render(tokens, _MD.options, {}))


# --------------------------------------------------------------------------
# Plain text / structural blocks (used by snippets and the chunker)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """Smallest unit a block may be split between.

    kind: "prose" (may be split further at sentences), "code" (a whole fenced
    or indented code block, never split) or "row" (one table row, never split).
    """

    kind: str
    text: str


@dataclass(frozen=True)
class Block:
    """One top-level Markdown block.

    kind: "heading", "paragraph", "code", "table", "list", "quote" or "other".
    level/anchor are only set for headings; anchor is the id render_markdown gives.
    """

    kind: str
    pieces: tuple[Piece, ...]
    level: int = 0
    anchor: str = ""

    @property
    def text(self) -> str:
        return "\n".join(piece.text for piece in self.pieces)


_BLOCK_KINDS = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "fence": "code",
    "code_block": "code",
    "table_open": "table",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "blockquote_open": "quote",
}


def _pieces(tokens: list[Token]) -> tuple[Piece, ...]:
    pieces: list[Piece] = []
    row: list[str] | None = None
    for tok in tokens:
        if tok.type == "tr_open":
            row = []
        elif tok.type == "tr_close" and row is not None:
            # Table pipes become spaces; empty cells vanish.
            pieces.append(Piece("row", " ".join(cell for cell in row if cell)))
            row = None
        elif tok.type == "inline":
            text = _inline_text(tok).strip()
            if row is not None:
                row.append(text)
            else:
                pieces.append(Piece("prose", text))
        elif tok.type in ("fence", "code_block"):
            pieces.append(Piece("code", tok.content.rstrip("\n")))
    return tuple(p for p in pieces if p.text.strip())


def markdown_blocks(text: str) -> list[Block]:
    """Top-level blocks in document order (headings nested in lists or
    quotes stay part of their container)."""
    tokens = _MD.parse(text)
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        start = tokens[i]
        # A top-level block is a level-0 token, or an open..close pair at level 0.
        end = i
        if start.nesting == 1:
            while not (tokens[end].level == 0 and tokens[end].nesting == -1):
                end += 1
        chunk = tokens[i : end + 1]
        kind = _BLOCK_KINDS.get(start.type, "other")
        if kind == "heading":
            blocks.append(Block(kind, _pieces(chunk), int(start.tag[1]), str(start.attrGet("id"))))
        else:
            pieces = _pieces(chunk)
            if pieces:
                blocks.append(Block(kind, pieces))
        i = end + 1
    return blocks


def markdown_to_text(text: str) -> str:
    """Plain text for snippets and summaries: blocks separated by blank lines."""
    return "\n\n".join(block.text for block in markdown_blocks(text) if block.text)
