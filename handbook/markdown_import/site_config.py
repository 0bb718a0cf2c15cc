"""What a static site's own configuration says about the whole tree: its language and its folders' titles.

A page too short to tell its language ("Images", a README of one line) takes the language the site
declares; a folder whose README is titled "Introduction" takes the title the site's navigation gives
the folder. Generators state both in their configuration file, in their own syntax (YAML, TOML,
JavaScript): each is matched here by a pattern for the one setting it names, not parsed, so a file
the handbook cannot evaluate (a VuePress ``config.js`` that calls ``require``, an ``mkdocs.yml`` with
``!!python/name`` tags) still gives its language, and a hostile one gives at most a wrong guess.
Files are read through ``open_in_tree`` (never through a link) and only their first ``MAX_BYTES``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from core import languages
from handbook.markdown_import.tree import OutsideTree, open_in_tree

# Site configuration files are a few KB (the etalab VuePress config among them); the cap bounds a hostile one.
MAX_BYTES = 256 * 1024

_YAML_LANG = re.compile(r"^(?:lang|language|locale)\s*:\s*['\"]?([A-Za-z]{2})\b", re.MULTILINE)
_HUGO_TOML = re.compile(r"^\s*(?:languageCode|defaultContentLanguage)\s*=\s*['\"]([A-Za-z]{2})", re.MULTILINE)
_HUGO_YAML = re.compile(r"^(?:languageCode|defaultContentLanguage)\s*:\s*['\"]?([A-Za-z]{2})", re.MULTILINE)
_JS_LANG = re.compile(r"\b(?:lang|defaultLocale)\s*:\s*['\"]([A-Za-z]{2})")
_JSON_LANG = re.compile(r"\"(?:lang|language|locale)\"\s*:\s*\"([A-Za-z]{2})")

# Where each generator states the site's language, first match wins.
LANGUAGE_SOURCES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("_config.yml", _YAML_LANG),  # Jekyll: lang
    ("_config.yaml", _YAML_LANG),
    # MkDocs: theme.language (indented under ``theme:``); a top-level key would be another setting.
    ("mkdocs.yml", re.compile(r"^[ \t]+language\s*:\s*['\"]?([A-Za-z]{2})\b", re.MULTILINE)),
    ("hugo.toml", _HUGO_TOML),
    ("config.toml", _HUGO_TOML),  # Hugo: languageCode = "fr-fr"
    ("hugo.yaml", _HUGO_YAML),
    ("config.yaml", _HUGO_YAML),
    ("book.toml", re.compile(r"^\s*language\s*=\s*['\"]([A-Za-z]{2})", re.MULTILINE)),  # mdBook
    (".vuepress/config.js", _JS_LANG),  # VuePress: lang, or locales {'/': {lang: 'fr-FR'}}
    (".vuepress/config.ts", _JS_LANG),
    ("docusaurus.config.js", _JS_LANG),  # Docusaurus: i18n.defaultLocale
    ("_data/site.json", _JSON_LANG),  # Eleventy global data
    ("_data/site.yaml", _YAML_LANG),
    ("_data/site.yml", _YAML_LANG),
)

# Folder titles: VuePress sidebars map a folder's address to its title ('/qualite/': "Préparer …");
# MkDocs' nav names a folder's index page ("- Guide: guide/index.md").
_JS_FOLDER_TITLE = re.compile(r"""(['"])/([^'"\n]+?)/\1\s*:\s*(['"])((?:(?!\3)[^\n])+)\3""")
_MKDOCS_NAV_TITLE = re.compile(
    r"""^\s*-\s*['"]?([^:'"\n]+?)['"]?\s*:\s*['"]?([^\s'"]+?)/(?:index|README)\.md['"]?\s*$""", re.MULTILINE
)
FOLDER_TITLE_SOURCES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (".vuepress/config.js", _JS_FOLDER_TITLE),
    (".vuepress/config.ts", _JS_FOLDER_TITLE),
    ("mkdocs.yml", _MKDOCS_NAV_TITLE),
)


@dataclass(frozen=True)
class SiteConfig:
    language: str | None = None  # a code of core.languages, as the site's configuration states it
    folder_titles: dict[PurePosixPath, str] = field(default_factory=dict)  # folder → its title in the navigation


def _read(root: Path, name: str) -> str:
    try:
        with open_in_tree(root, PurePosixPath(name)) as stream:
            return stream.read(MAX_BYTES).decode("utf-8", errors="replace")
    except (OutsideTree, OSError):  # absent, a link, unreadable: the site does not say
        return ""


def read_site_config(root: Path) -> SiteConfig:
    texts: dict[str, str] = {}

    def text(name: str) -> str:
        if name not in texts:
            texts[name] = _read(root, name)
        return texts[name]

    language = None
    for name, pattern in LANGUAGE_SOURCES:
        found = pattern.search(text(name))
        if found and found.group(1).lower() in languages.CODES:
            language = found.group(1).lower()
            break
    titles: dict[PurePosixPath, str] = {}
    for name, pattern in FOLDER_TITLE_SOURCES:
        for match in pattern.finditer(text(name)):
            if pattern is _JS_FOLDER_TITLE:
                folder, title = match.group(2), match.group(4)
            else:
                title, folder = match.group(1), match.group(2)
            folder, title = folder.strip("/"), " ".join(title.split())
            if folder and title and ".." not in folder.split("/"):
                titles.setdefault(PurePosixPath(folder), title[:300])
    return SiteConfig(language=language, folder_titles=titles)
