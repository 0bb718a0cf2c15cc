"""A Markdown file as the import reads it: its page reference, title, language and report lines."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

from core import languages
from core.text import detect_language
from handbook.markdown import markdown_to_text
from handbook.markdown_import.links import is_external
from handbook.models import Page, Space

MARKDOWN_SUFFIXES = (".md", ".markdown")
INDEX_NAMES = ("index.md", "README.md", "readme.md", "_index.md", "index.markdown")
# Folders a site keeps its tooling, dependencies or build output in: never pages.
IGNORED_DIRS = {"node_modules", "_site", "site", "public", "dist", "build", "vendor", "__pycache__"}
# Where generators serve "/x.png" from, besides the root.
PUBLIC_DIRS = ("", "public", ".vuepress/public", "static", "assets", "src")
MAX_PAGE_BYTES = 2_000_000
KNOWN_LANGUAGES = set(languages.CODES)


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # page whose file is gone, kept (no --delete-missing)
    broken_links: list[tuple[str, str]] = field(default_factory=list)  # (file, target)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)
    attachments_created: int = 0
    page_ids: list[int] = field(default_factory=list)
    # Files whose page's text waits for the space's reviewers (not published: the space requires review).
    waiting: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{len(self.created)} created, {len(self.updated)} updated, {len(self.unchanged)} unchanged, "
            f"{len(self.archived)} archived, {len(self.missing)} missing (not archived), "
            f"{len(self.broken_links)} broken link(s), {len(self.skipped)} skipped file(s), "
            f"{self.attachments_created} attachment(s) stored"
            + (f", {len(self.waiting)} sent for review (the space requires it)" if self.waiting else "")
        )


@dataclass
class Source:
    rel: PurePosixPath
    title: str
    language: str
    body: str  # cleaned, links not yet rewritten
    ref: str
    language_sure: bool = True  # False: not stated and too short to tell (tree_shape.settle_languages)
    permalink: str | None = None  # the front matter's address, as a key (see path_key)
    aliases: tuple[str, ...] = ()  # its redirect_from addresses, as keys: old addresses that lead here
    restricted_to: list[Any] | None = None  # groups (restrictions.py); None: the file does not say
    page: Page | None = None
    slug: str = ""


def page_ref(space: Space, rel: PurePosixPath) -> str:
    ref = f"md:{space.slug}:{rel.as_posix()}"
    return ref if len(ref) <= 480 else f"md:{space.slug}:#{hashlib.sha256(str(rel).encode()).hexdigest()}"


def path_key(path: str) -> str:
    """A site path or file path reduced to what both have in common: "a/b/" ~ "a/b.md" ~ "a/b/index.html"."""
    path = unquote(path).strip().strip("/").lower()
    for suffix in (".html", ".htm", ".md", ".markdown"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    for index in ("index", "readme", "_index"):
        if path == index:
            return ""
        if path.endswith("/" + index):
            return path[: -len(index) - 1]
    return path


def alias_keys(value: Any) -> tuple[str, ...]:
    """``redirect_from`` (one address or a list) as keys; full URLs (another site), "/" and blanks are left out."""
    values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    keys = []
    for item in values:
        if isinstance(item, str) and item.strip() and not is_external(item.strip()):
            key = path_key(item.split("#", 1)[0].split("?", 1)[0])
            if key and key not in keys:  # "/" (the home page) is never taken by an alias
                keys.append(key)
    return tuple(keys)


def is_index(rel: PurePosixPath) -> bool:
    return rel.name.lower() in {n.lower() for n in INDEX_NAMES}


def humanize(stem: str) -> str:
    stem = re.sub(r"^\d+[-_.\s]+", "", stem)  # "2-phase-concertation" → "phase concertation"
    words = re.sub(r"[-_]+", " ", stem).strip()
    return words[:1].upper() + words[1:] if words else stem


_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_SETEXT = re.compile(r"^(\S[^\n]*)\n(=+|-+)[ \t]*$", re.MULTILINE)


def first_heading(body: str) -> str:
    found = [(m.start(), m.group(2)) for m in _HEADING.finditer(body)]
    found += [(m.start(), m.group(1)) for m in _SETEXT.finditer(body) if not m.group(1).startswith(("|", "-", "*"))]
    if not found:
        return ""
    text = min(found)[1]
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)  # images (badges: "[![CI](ci.svg)](ci)") are no title words
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links → their text
    return re.sub(r"[*_`]+", "", text).strip()


def page_language(meta: dict[str, Any], body: str) -> tuple[str, bool]:
    """(language, sure): the one the front matter states, else the one the text shows; not sure when
    the text is too short to tell (no default stands in: the detector answers "" then)."""
    for name in ("lang", "language", "locale"):
        value = str(meta.get(name) or "").strip().lower()[:2]
        if value in KNOWN_LANGUAGES:
            return value, True
    found = detect_language(markdown_to_text(body)[:5000] or body[:5000], default="", choices=sorted(KNOWN_LANGUAGES))
    return (found, True) if found else (languages.DEFAULT.code, False)
