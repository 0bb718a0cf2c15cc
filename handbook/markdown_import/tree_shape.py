"""Which files of a tree become pages, under which parent, titled and labelled how.

A static site is written for its generator's navigation, not for a page tree read on its own; taken
file by file, the etalab guides gave nine sibling pages titled "Introduction" (each guide's README),
an empty home ``index.md`` labelled English in a French site, and a page "Images" for the one-line
README of a folder of pictures. So, once every file is read and before anything is written:

- a folder page with nothing but a title (an ``index.md`` holding only front matter, a README that
  is one heading) is not imported: the folder's pages go under the nearest page above it;
- the README of a folder of images or assets is a note about its files, not a page: left out (the
  files themselves still become attachments of the pages that show them);
- a page whose language is not stated and whose text is too short to tell takes the site's
  language: the one its configuration states (``site_config.py``), else the most common among the
  pages that state theirs or are long enough to tell;
- a folder page titled generically ("Introduction", "README", "Accueil"… ``GENERIC_TITLES``) takes
  the folder's title (the site's navigation's, else its name); pages that would still share a
  title under the same parent are told apart by their folder, or failing that by their path.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Container
from pathlib import PurePosixPath

from django.utils.translation import gettext as _

from handbook.markdown import markdown_to_text
from handbook.markdown_import.site_config import SiteConfig
from handbook.markdown_import.sources import INDEX_NAMES, Source, humanize, is_index

# Titles that say "this is the start of a folder" and nothing about which folder; compared folded.
GENERIC_TITLES = frozenset(
    {
        "introduction", "intro", "readme", "read me", "index", "home", "home page", "homepage", "overview",
        "welcome", "start here", "contents", "table of contents",
        "accueil", "page d'accueil", "bienvenue", "presentation", "sommaire", "apercu", "vue d'ensemble",
    }
)  # fmt: skip
# Folders generators keep pictures and downloads in; their README describes the files.
ASSET_DIRS = frozenset(
    {
        "images", "image", "img", "imgs", "_img", "_images", "assets", "static", "media", "pictures",
        "screenshots", "figures", "files", "downloads", "uploads", "attachments",
    }
)  # fmt: skip
_HEADING_LINE = re.compile(r"\A\s*(?:#{1,6}[ \t][^\n]*|[^\n]+\n(?:=+|-+)[ \t]*)(?:\n|\Z)")


def fold(text: str) -> str:
    """Case, accents and punctuation set aside: "Accueil", "ACCUEIL !" and "accueil" are one title."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w']+", " ", plain.replace("’", "'")).split())


def has_text_beyond_title(body: str) -> bool:
    return bool(re.search(r"\w", markdown_to_text(_HEADING_LINE.sub("", body, count=1))))


def parent_of(rel: PurePosixPath, kept: Container[PurePosixPath]) -> PurePosixPath | None:
    """The file whose page is ``rel``'s parent: the index page of the nearest folder above it that has one."""
    folder = rel.parent.parent if is_index(rel) else rel.parent
    if is_index(rel) and rel.parent == PurePosixPath("."):
        return None
    while True:
        for name in INDEX_NAMES:
            candidate = folder / name
            if candidate in kept and candidate != rel:
                return candidate
        if folder == PurePosixPath(".") or folder == PurePosixPath(""):
            return None
        folder = folder.parent


def left_out(sources: dict[PurePosixPath, Source]) -> list[tuple[PurePosixPath, str]]:
    """The files read that make no page, each with the report's reason."""
    markdown_by_folder: dict[PurePosixPath, int] = Counter(rel.parent for rel in sources)
    out = []
    for rel, source in sources.items():
        if not is_index(rel):
            continue
        if rel.parent.name.lower() in ASSET_DIRS and markdown_by_folder[rel.parent] == 1:
            out.append((rel, _("a note about a folder of images or files, not a page: not imported")))
        elif not has_text_beyond_title(source.body):
            reason = _(
                "a folder page with nothing but a title: not imported, its folder's pages go under the page above"
            )
            out.append((rel, reason))
    return out


def settle_languages(sources: dict[PurePosixPath, Source], config: SiteConfig) -> str | None:
    """Give the pages too short to tell the site's language; returns that language (None: unknown)."""
    site = config.language
    if site is None:
        counts = Counter(s.language for s in sources.values() if s.language_sure)
        site = counts.most_common(1)[0][0] if counts else None
    if site is not None:
        for source in sources.values():
            if not source.language_sure:
                source.language = site
    return site


def folder_title(folder: PurePosixPath, config: SiteConfig, space_title: str) -> str:
    if folder in (PurePosixPath("."), PurePosixPath("")):
        return space_title
    return config.folder_titles.get(folder) or humanize(folder.name) or folder.name


def settle_titles(
    sources: dict[PurePosixPath, Source], kept: Container[PurePosixPath], config: SiteConfig, space_title: str
) -> None:
    """``kept``: the files that have a page (``parent_of``), those read now and those held back."""
    for rel, source in sources.items():
        if is_index(rel) and fold(source.title) in GENERIC_TITLES:
            source.title = folder_title(rel.parent, config, space_title)[:300]
    siblings: dict[tuple[PurePosixPath | None, str], list[Source]] = defaultdict(list)
    for rel, source in sources.items():
        siblings[(parent_of(rel, kept), fold(source.title))].append(source)
    for group in siblings.values():
        if len(group) < 2:
            continue
        qualifiers = [folder_title(s.rel.parent, config, space_title) for s in group]
        if len({fold(q) for q in qualifiers}) < len(group):  # same folder: the path tells them apart
            qualifiers = [s.rel.with_suffix("").as_posix() for s in group]
        for source, qualifier in zip(group, qualifiers, strict=True):
            source.title = f"{source.title} ({qualifier})"[:300]
