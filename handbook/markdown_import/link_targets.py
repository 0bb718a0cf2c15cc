"""Finding the file a link of an imported page points at, as the site's generator would serve it.

A link may name the file ("../guide/setup.md"), the address the generator publishes it at
("/guide/setup/", "setup.html"), its front matter's ``permalink``, an old address its
``redirect_from`` keeps, or a file served from a public folder ("/images/logo.png").
``MarkdownTreeImport`` (``importer.py``) indexes the pages it read, then asks ``resolve``.
"""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath
from urllib.parse import unquote

from handbook.markdown_import.sources import PUBLIC_DIRS, Source, is_index, path_key


class LinkTargets:
    sources: dict[PurePosixPath, Source]
    files: set[PurePosixPath]  # every non-Markdown file of the tree

    def init_link_targets(self) -> None:
        self.by_key: dict[str, PurePosixPath] = {}
        self.by_permalink: dict[str, PurePosixPath] = {}
        self.by_suffix: dict[str, PurePosixPath | None] = {}
        # A file's path less its top folder: where generators that build from "pages/" or "src/" serve it.
        self.by_root_suffix: dict[str, PurePosixPath | None] = {}
        self.by_alias: dict[str, PurePosixPath] = {}  # redirect_from addresses; the first page by path wins

    def index_sources(self) -> None:
        suffix_hits: dict[str, set[PurePosixPath]] = {}
        root_hits: dict[str, set[PurePosixPath]] = {}
        for rel in sorted(self.sources):
            source = self.sources[rel]
            key = path_key(rel.as_posix())
            self.by_key[key] = rel
            if source.permalink is not None:
                self.by_permalink[source.permalink] = rel
            for alias in source.aliases:
                self.by_alias.setdefault(alias, rel)
            parts = key.split("/") if key else []
            for i in range(1, len(parts)):
                suffix_hits.setdefault("/".join(parts[i:]), set()).add(rel)
            if len(parts) > 1:
                root_hits.setdefault("/".join(parts[1:]), set()).add(rel)
        for key, rels in suffix_hits.items():
            self.by_suffix[key] = next(iter(rels)) if len(rels) == 1 else None
        for key, rels in root_hits.items():
            self.by_root_suffix[key] = next(iter(rels)) if len(rels) == 1 else None

    def _find_file(self, candidate: str) -> tuple[str, PurePosixPath] | None:
        candidate = posixpath.normpath(candidate).lstrip("/")
        if candidate.startswith("..") or candidate == ".":
            candidate = "" if candidate == "." else candidate
            if candidate.startswith(".."):
                return None
        rel = PurePosixPath(candidate) if candidate else None
        if rel is not None and rel in self.sources:
            return "page", rel
        if rel is not None and rel in self.files:
            return "file", rel
        key = path_key(candidate)
        if key in self.by_key:
            return "page", self.by_key[key]
        return None

    def resolve(self, target: str, source: Source) -> tuple[str, PurePosixPath] | None:
        path = unquote(target.split("#", 1)[0].split("?", 1)[0]).strip()
        if path.startswith("/"):
            key = path_key(path)
            if key in self.by_permalink:
                return "page", self.by_permalink[key]
            for public in PUBLIC_DIRS:
                found = self._find_file(posixpath.join(public, path.lstrip("/")))
                if found:
                    return found
            # A page's own address beats another page's redirect_from; a guessed tail comes last.
            rel = self.by_root_suffix.get(key) or self.by_alias.get(key) or self.by_suffix.get(key)
            return ("page", rel) if rel else None
        base = source.rel.parent.as_posix()
        found = self._find_file(posixpath.join(base, path))
        if found:
            return found
        # Generators publish "a/b.md" at "a/b/": a link relative to that address.
        url_base = path_key(source.rel.as_posix())
        if not is_index(source.rel):
            key = path_key(posixpath.normpath(posixpath.join(url_base, path)))
            if key in self.by_permalink:
                return "page", self.by_permalink[key]
            if key in self.by_key:
                return "page", self.by_key[key]
        key = path_key(posixpath.normpath(posixpath.join(url_base if not is_index(source.rel) else base, path)))
        if key in self.by_permalink:
            return "page", self.by_permalink[key]
        if key in self.by_alias:
            return "page", self.by_alias[key]
        if path and not path.startswith("."):  # "team/finance/" written against the site root
            return self.resolve("/" + path, source)
        return None
