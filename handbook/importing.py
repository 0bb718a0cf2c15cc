"""Import pages from JSONL: one ``{"id", "title", "body", "lang"}`` object per line.

Idempotent: a known ``id`` (``Page.ref``) updates its page, and a new revision
is written only when the title or body changed. A bad line is reported with its
number and skipped; the others still import.

Nothing is published into a space that requires review: the text is saved as a
draft and the page listed in ``ImportReport.waiting``, for the caller to send to
the space's reviewers (``approvals`` comes after this room: the commands send it).
Its callers are commands, which are nobody's reviewer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth.models import Group
from django.db import transaction

from core.jsonl import object_line
from core.queues import bulk_work
from handbook.models import LANGUAGES, Page, Space
from handbook.page_work import page_changed
from handbook.services import page_create, page_save

REQUIRED_FIELDS = ("id", "title", "body", "lang")
MAX_LINE_BYTES = 5_000_000
KNOWN_LANGUAGES = {code for code, _name in LANGUAGES}
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)
    page_ids: list[int] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)  # pages whose text was saved for review, not published

    @property
    def total(self) -> int:
        return self.created + self.updated + self.unchanged


class LineError(ValueError):
    pass


def parse_line(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_LINE_BYTES:
        raise LineError(f"line is larger than {MAX_LINE_BYTES // 1_000_000} MB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LineError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    try:
        item = object_line(text, REQUIRED_FIELDS)
    except ValueError as exc:
        raise LineError(str(exc)) from exc
    for name in REQUIRED_FIELDS:
        if not isinstance(item[name], str):
            raise LineError(f"field {name!r} must be a string")
    if not item["id"].strip():
        raise LineError("field 'id' is empty")
    if not item["title"].strip():
        raise LineError("field 'title' is empty")
    if len(item["id"]) > 500:
        raise LineError("field 'id' is longer than 500 characters")
    if any("\x00" in item[name] for name in REQUIRED_FIELDS):
        raise LineError("text contains NUL characters")
    # JSON can spell lone UTF-16 surrogates ("\ud800") that no database text column can store.
    if any(_SURROGATE.search(item[name]) for name in REQUIRED_FIELDS):
        raise LineError("text contains lone UTF-16 surrogates (\\ud800-\\udfff)")
    item["lang"] = parse_language(item["lang"])
    item["title"] = item["title"].strip()[:300]
    restricted = item.get("restricted_to", [])
    if not isinstance(restricted, list) or not all(isinstance(g, str) for g in restricted):
        raise LineError("field 'restricted_to' must be a list of group names")
    for name in restricted:
        if not name.strip() or len(name) > 150 or "\x00" in name or _SURROGATE.search(name):
            raise LineError(f"group name {name[:40]!r} must be 1-150 characters without NUL")
    return item


def parse_language(raw: str) -> str:
    """The handbook language a ``lang`` value names: ``en`` or ``fr``.

    Case, surrounding spaces and a region are ignored (``FR``, ``fr-CA``, ``fr_CA`` are ``fr``);
    anything else is refused rather than guessed, so that a page is never indexed with the wrong
    language's stemming and stop words.
    """
    tag = raw.strip().lower().replace("_", "-")
    allowed = ", ".join(sorted(KNOWN_LANGUAGES))
    if not tag:
        raise LineError(f"field 'lang' is empty (allowed: {allowed})")
    if tag.split("-", 1)[0] not in KNOWN_LANGUAGES:
        raise LineError(f"field 'lang' is {raw[:40]!r}, not a handbook language (allowed: {allowed})")
    return tag.split("-", 1)[0]


def read_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            raw = raw.strip()
            if raw:
                yield number, raw


def import_item(item: dict[str, Any], space: Space, report: ImportReport, author: Any = None) -> None:
    restricted = [Group.objects.get_or_create(name=name)[0] for name in item.get("restricted_to", [])]
    with transaction.atomic():
        page = Page.objects.filter(ref=item["id"]).select_related("space").first()
        # A known id may name a page of another space: that space's review decides.
        publish = not (space if page is None else page.space).requires_review
        if page is None:
            page = page_create(
                space=space,
                title=item["title"],
                body=item["body"],
                language=item["lang"],
                ref=item["id"],
                author=author,
                restricted_to=restricted,
                publish=publish,
            )
            report.created += 1
        else:
            language_changed = page.language != item["lang"]
            if language_changed:
                page.language = item["lang"]
                page.save(update_fields=["language", "updated_at"])
            result = page_save(page=page, title=item["title"], body=item["body"], author=author, publish=publish)
            if restricted:
                page.restricted_to_groups.set(restricted)
            if result.revision is None and language_changed:
                # Same text, other language: the text-search configuration changes, so reindex.
                page_changed(result.page)
                report.updated += 1
            elif result.revision is None:
                report.unchanged += 1
            else:
                report.updated += 1
    if not publish:
        report.waiting.append(page.pk)
    report.page_ids.append(page.pk)


def corpus_import(
    path: Path,
    *,
    space: Space,
    author: Any = None,
    on_line: Callable[[], object] | None = None,
) -> ImportReport:
    report = ImportReport()
    with bulk_work():  # the pages' reindexes go to the bulk queue, in groups, not ahead of editors
        for number, raw in read_lines(path):
            try:
                import_item(parse_line(raw), space, report, author)
            except LineError as exc:
                report.errors.append((number, str(exc)))
            finally:
                if on_line is not None:
                    on_line()
    return report
