"""Import a folder of Markdown into a space: one page per file, the folders as the page tree.

Pages are written through ``handbook.services`` (revisions, publishing,
reindexing), attachments through ``handbook.attachments.services``. Each page
remembers its file (``Page.ref`` = ``md:<space>:<path>``), so running the import
again updates changed pages (one new revision), leaves the others alone, and
finds the pages whose file is gone. Front matter's ``restricted_to``: ``restrictions.py``.
In a space that requires review, a text publishes only as the author's own edit would:
otherwise it is saved as a draft and sent to the space's reviewers (``report.waiting``).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from django.db import transaction
from django.utils.text import slugify

from core.queues import bulk_work
from handbook.approvals.selectors import needs_approval
from handbook.approvals.services import approval_request_open
from handbook.attachment_models import Attachment
from handbook.attachments.services import (
    AttachmentRejected,
    attachment_create,
    check_file,
    clean_name,
)
from handbook.markdown_import.cleanup import clean_markdown
from handbook.markdown_import.front_matter import read_front_matter
from handbook.markdown_import.link_targets import LinkTargets
from handbook.markdown_import.links import is_external, rewrite_targets
from handbook.markdown_import.restrictions import RestrictionUnusable, restriction_apply, restriction_from
from handbook.markdown_import.site_config import read_site_config
from handbook.markdown_import.sources import (
    IGNORED_DIRS,
    MARKDOWN_SUFFIXES,
    MAX_PAGE_BYTES,
    ImportReport,
    Source,
    alias_keys,
    first_heading,
    humanize,
    is_index,
    page_language,
    page_ref,
    path_key,
)
from handbook.markdown_import.tree import OutsideTree, link_reason, open_in_tree, walk
from handbook.markdown_import.tree_shape import left_out, parent_of, settle_languages, settle_titles
from handbook.models import Page, Space
from handbook.services import page_create, page_delete, page_save, page_set_parent, page_undelete

# The note of every revision the import writes; templates/handbook/page.html says "Imported" for it.
IMPORT_NOTE = "Imported"


class MarkdownTreeImport(LinkTargets):
    def __init__(
        self,
        root: Path,
        *,
        space: Space,
        delete_missing: bool = False,
        author: Any = None,
        progress: Callable[[str], object] | None = None,
    ) -> None:
        self.root = root.resolve()
        self.space = space
        self.delete_missing = delete_missing
        self.author = author
        self.progress = progress or (lambda _name: None)
        self.report = ImportReport()
        self.init_link_targets()
        self.sources: dict[PurePosixPath, Source] = {}
        self.files: set[PurePosixPath] = set()  # every non-Markdown file of the tree
        self.links: list[PurePosixPath] = []  # symbolic links met by the scan: reported, never followed
        # Files not imported because their restriction cannot be applied: their pages are left as they are.
        self.held: set[PurePosixPath] = set()

    # --- reading the tree ----------------------------------------------------------

    def _skip_dir(self, rel: PurePosixPath) -> bool:
        return rel.name in IGNORED_DIRS or (rel.name.startswith(".") and rel.name != ".vuepress")

    def scan(self) -> list[PurePosixPath]:
        pages = []
        files, links = walk(self.root, self._skip_dir)
        # Links are skipped, not followed (handbook/markdown_import/tree.py); hidden ones silently.
        self.links = [rel for rel in links if not any(part.startswith(".") for part in rel.parts)]
        for rel in files:
            if any(part.startswith(".") and part != ".vuepress" for part in rel.parts) or any(
                part in IGNORED_DIRS for part in rel.parts[:-1]
            ):
                continue
            if ".vuepress" in rel.parts and not rel.as_posix().startswith(".vuepress/public/"):
                continue
            if rel.suffix.lower() in MARKDOWN_SUFFIXES and ".vuepress" not in rel.parts:
                pages.append(rel)
            else:
                self.files.add(rel)
        return pages

    def read(self, rel: PurePosixPath) -> Source | None:
        try:
            with open_in_tree(self.root, rel) as stream:
                if os.fstat(stream.fileno()).st_size > MAX_PAGE_BYTES:
                    self.report.skipped.append((str(rel), f"larger than {MAX_PAGE_BYTES // 1_000_000} MB"))
                    return None
                data = stream.read(MAX_PAGE_BYTES + 1)
        except OutsideTree as skipped:
            self.report.skipped.append((str(rel), str(skipped)))
            return None
        try:
            raw = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            self.report.skipped.append((str(rel), "not UTF-8 text"))
            return None
        meta, content, problems = read_front_matter(raw)  # aliases refused, size capped, title text only
        try:
            restricted_to = restriction_from(meta)
        except RestrictionUnusable as unusable:  # fail closed: never published (nor drafted) unrestricted
            self.report.skipped.append((str(rel), str(unusable)))
            self.held.add(rel)
            return None
        self.report.skipped += [(str(rel), problem) for problem in problems]
        if meta.get("permalink") is False or meta.get("published") is False:
            self.report.skipped.append((str(rel), "not published by the site (permalink/published: false)"))
            return None
        body = clean_markdown(content)
        title = meta.get("title", "").strip() or first_heading(body)
        if not title:
            title = humanize(rel.parent.name if is_index(rel) and rel.parent.name else rel.stem) or rel.stem
        permalink = meta.get("permalink")
        language, language_sure = page_language(meta, body)
        return Source(
            rel=rel,
            title=title[:300],
            language=language,
            language_sure=language_sure,
            body=body,
            ref=page_ref(self.space, rel),
            permalink=path_key(permalink) if isinstance(permalink, str) else None,
            aliases=alias_keys(meta.get("redirect_from")),
            restricted_to=restricted_to,
        )

    # --- links: finding the file a link points at is LinkTargets' (link_targets.py) ----------

    def rewrite(self, source: Source, attachments: dict[PurePosixPath, tuple[uuid.UUID, str]]) -> str:
        """The body with page links pointing at the imported pages and files at the page's attachments."""
        existing = (
            {(a.sha256, a.original_name): a for a in Attachment.objects.filter(page=source.page)}
            if source.page is not None
            else {}
        )

        def replace(target: str) -> str | None:
            if not target or target.startswith("#") or is_external(target):
                return None
            anchor = "#" + target.split("#", 1)[1] if "#" in target else ""
            found = self.resolve(target, source)
            if found is None:
                self.report.broken_links.append((str(source.rel), target))
                return None
            kind, rel = found
            if kind == "page":
                slug = self.sources[rel].slug
                return f"/spaces/{self.space.slug}/{slug}/{anchor}"
            if rel not in attachments:
                name = clean_name(rel.name)
                try:
                    with open_in_tree(self.root, rel) as stream:
                        check_file(name, os.fstat(stream.fileno()).st_size)
                        digest = hashlib.file_digest(stream, "sha256").hexdigest()
                except (AttachmentRejected, OutsideTree) as rejected:
                    reason = rejected.messages[0] if isinstance(rejected, AttachmentRejected) else str(rejected)
                    self.report.skipped.append((str(rel), f"linked from {source.rel}: {reason}"))
                    attachments[rel] = (uuid.UUID(int=0), "")
                    return None
                known = existing.get((digest, name))
                attachment_id = known.id if known else uuid.uuid4()
                url_name = Attachment(original_name=name).url_name
                attachments[rel] = (attachment_id, f"/attachments/{attachment_id}/{url_name}")
            attachment_id, url = attachments[rel]
            return url or None

        return rewrite_targets(source.body, replace)

    # --- writing -------------------------------------------------------------------

    def _predict_slugs(self, existing: dict[str, Page]) -> None:
        taken = set(Page.objects.filter(space=self.space).values_list("slug", flat=True))
        for source in self.sources.values():
            page = existing.get(source.ref)
            if page is not None:
                source.page, source.slug = page, page.slug
        for source in self.sources.values():
            if source.page is None:
                base = slugify(source.title)[:180] or "page"
                slug, n = base, 1
                while slug in taken:
                    n += 1
                    slug = f"{base}-{n}"
                taken.add(slug)
                source.slug = slug

    def _to_review(self, page: Page | None) -> bool:
        """Does publishing ``page`` (None: a new one) go to the space's reviewers, as the author's edit would?"""
        return needs_approval(self.author, self.space, page)

    def _submit(self, source: Source) -> None:
        """Send the page's saved text to the reviewers; listed as waiting while a request is open."""
        assert source.page is not None  # saved first
        name = str(source.rel)
        if (
            approval_request_open(page=source.page, requested_by=self.author) is not None
            and name not in self.report.waiting
        ):
            self.report.waiting.append(name)

    def _save(self, source: Source) -> None:
        attachments: dict[PurePosixPath, tuple[uuid.UUID, str]] = {}
        body = self.rewrite(source, attachments)
        with transaction.atomic():
            to_review = self._to_review(source.page)
            if source.page is None:
                page = page_create(
                    space=self.space,
                    title=source.title,
                    body=body,
                    language=source.language,
                    author=self.author,
                    ref=source.ref,
                    restricted_to=source.restricted_to or [],  # set before the text is published
                    publish=not to_review,
                )
                page.revisions.update(note=IMPORT_NOTE)  # its one revision: page_create takes no note
                source.page = page
                self.report.created.append(str(source.rel))
            else:
                page = source.page
                was_archived = page.deleted_at is not None
                if was_archived:
                    page_undelete(page=page)
                if page.language != source.language:
                    Page.objects.filter(pk=page.pk).update(language=source.language)
                # Before the new text is published: a page being restricted never shows it unrestricted.
                restriction_changed = restriction_apply(page, source.restricted_to)
                save = {"title": source.title, "body": body, "author": self.author, "note": IMPORT_NOTE}
                result = page_save(page=page, publish=not to_review, **save)
                source.page = result.page
                changed = result.revision is not None or was_archived or restriction_changed
                (self.report.updated if changed else self.report.unchanged).append(str(source.rel))
            if to_review:
                self._submit(source)
            known = set(Attachment.objects.filter(page=source.page).values_list("id", flat=True))
            for rel, (attachment_id, url) in attachments.items():
                if not url or attachment_id in known:
                    continue
                try:
                    stream = open_in_tree(self.root, rel)  # checked again: the tree may have changed
                except OutsideTree as skipped:
                    self.report.skipped.append((str(rel), str(skipped)))
                    continue
                with stream:
                    attachment_create(
                        page=source.page,
                        stream=stream,
                        name=rel.name,
                        uploaded_by=self.author,
                        attachment_id=attachment_id,
                    )
                self.report.attachments_created += 1
        self.report.page_ids.append(source.page.pk)

    def _parent_of(self, rel: PurePosixPath) -> PurePosixPath | None:
        return parent_of(rel, self.sources.keys() | self.held)

    def shape(self) -> None:
        """Leave out the files that make no page, then settle languages and titles (``tree_shape.py``)."""
        for rel, reason in left_out(self.sources):
            del self.sources[rel]
            self.report.skipped.append((str(rel), reason))
        config = read_site_config(self.root)
        settle_languages(self.sources, config)
        settle_titles(self.sources, self.sources.keys() | self.held, config, self.space.title)

    def run(self) -> ImportReport:
        scanned = self.scan()
        self.report.skipped += [(str(rel), link_reason()) for rel in self.links]
        for rel in scanned:
            source = self.read(rel)
            if source is not None:
                self.sources[rel] = source
        self.shape()
        self.index_sources()
        prefix = f"md:{self.space.slug}:"
        existing = {p.ref: p for p in Page.objects.filter(space=self.space, ref__startswith=prefix)}
        self._predict_slugs(existing)
        for source in self.sources.values():
            self.progress(str(source.rel))
            self._save(source)
        # A slug taken by someone else in between: rewrite the links to what page_create chose.
        drifted = [(s, s.page) for s in self.sources.values() if s.page is not None and s.page.slug != s.slug]
        if drifted:
            for s, page in drifted:
                s.slug = page.slug
            for source in self.sources.values():
                self.report.broken_links = [b for b in self.report.broken_links if b[0] != str(source.rel)]
                body = self.rewrite(source, {})
                assert source.page is not None  # _save gave every source its page
                to_review = self._to_review(source.page)
                save = {"title": source.title, "body": body, "author": self.author, "note": IMPORT_NOTE}
                page_save(page=source.page, publish=not to_review, **save)
                if to_review:
                    self._submit(source)
        for source in self.sources.values():
            parent_rel = self._parent_of(source.rel)
            # A parent file not imported this time (held): its page from an earlier import, if any.
            held = existing.get(page_ref(self.space, parent_rel)) if parent_rel in self.held else None
            if parent_rel in self.held and (held is None or held.deleted_at is not None):
                continue  # no page to put it under: left where it is (a new one at the top)
            parent = held or (self.sources[parent_rel].page if parent_rel else None)
            if source.page is not None and source.page.parent_id != (parent.pk if parent else None):
                page_set_parent(page=source.page, parent=parent)
        seen = {s.ref for s in self.sources.values()} | {page_ref(self.space, rel) for rel in self.held}
        for ref, page in existing.items():
            if ref in seen or page.deleted_at is not None:
                continue
            name = ref[len(prefix) :]
            if self.delete_missing:
                page_delete(page=page)
                self.report.archived.append(name)
            else:
                self.report.missing.append(name)
        return self.report


def markdown_tree_import(
    root: Path,
    *,
    space: Space,
    delete_missing: bool = False,
    author: Any = None,
    progress: Callable[[str], object] | None = None,
) -> ImportReport:
    with bulk_work():  # the pages' reindexes go to the bulk queue, not ahead of editors
        return MarkdownTreeImport(
            root, space=space, delete_missing=delete_missing, author=author, progress=progress
        ).run()
