"""Editors' summary picks as JSON-able rows, so a company keeps them across an upgrade or a move.

One row per picked page (``"type": "summary_pick"``), naming its page by ``ref`` (and its space by
slug, for the reader), its revision by number and by a hash of its text, its units by address
(``features.unit_hash``: the text itself stays in the page) and its editor by username. An import
is checked whole before anything is written: one bad row and nothing is imported, every bad row
named; a good import replaces the picks of the pages it names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.dateparse import parse_datetime

from config.numbers import IMPORT_ERRORS_SHOWN as SHOWN
from handbook.models import Page, Revision, Space
from summaries.features import quotable_units, unit_hash
from summaries.models import SummaryPick
from summaries.scorer_fit import refit_enqueue
from summaries.selectors import source_hash

TYPE = "summary_pick"
_ADDRESS_RE = re.compile(r"^[0-9a-f]{16}$")


class TicksImportError(ValueError):
    """Rows that cannot be imported: ``errors`` holds "row N: why" for each."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__(
            "; ".join(errors[:SHOWN]) + (f" (and {len(errors) - SHOWN} more)" if len(errors) > SHOWN else "")
        )
        self.errors = errors


def ticks_export(
    spaces: Iterable[Space] | None = None, pages: Iterable[Page] | None = None
) -> Iterator[dict[str, Any]]:
    """Every pick (of pages in ``spaces``, or of ``pages``, when given), oldest first."""
    picks = SummaryPick.objects.select_related("page__space", "revision", "editor").order_by("picked_at", "pk")
    if spaces is not None:
        picks = picks.filter(page__space__in=list(spaces))
    if pages is not None:
        picks = picks.filter(page__in=list(pages))
    for pick in picks:
        yield {
            "type": TYPE,
            "space": pick.page.space.slug,
            "page": pick.page.ref,
            "revision": pick.revision.number,
            "revision_hash": source_hash(pick.revision.title, pick.revision.body),
            "units": list(pick.units),
            "editor": pick.editor.get_username() if pick.editor else None,
            "picked_at": pick.picked_at.isoformat(),
        }


def ticks_import(rows: Iterable[dict[str, Any]]) -> int:
    """Import exported rows; the number of picks written. Raises ``TicksImportError`` naming every
    bad row, having written nothing."""
    errors: list[str] = []
    ready: list[dict[str, Any]] = []
    seen: set[int] = set()
    for number, row in enumerate(rows, 1):
        try:
            found = _checked(row)
        except ValueError as exc:
            errors.append(f"row {number}: {exc}")
            continue
        if found["page"].pk in seen:
            errors.append(f"row {number}: page {row['page']} was picked on an earlier row already")
            continue
        seen.add(found["page"].pk)
        ready.append(found)
    if errors:
        raise TicksImportError(errors)
    with transaction.atomic():
        for found in ready:
            page = found.pop("page")
            SummaryPick.objects.update_or_create(page=page, defaults=found)
        if ready:
            refit_enqueue()
    return len(ready)


def _checked(row: Any) -> dict[str, Any]:
    """The pick's fields from an exported row, or ValueError saying what is wrong."""
    if not isinstance(row, dict) or row.get("type") != TYPE:
        raise ValueError(f'not a summary pick (expected "type": "{TYPE}")')
    missing = [k for k in ("page", "revision", "revision_hash", "units", "picked_at") if k not in row]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    page = Page.objects.filter(ref=row["page"]).first()
    if page is None:
        raise ValueError(f"no page with reference {row['page']!r}")
    revision = _revision(page, row["revision"], row["revision_hash"])
    units = row["units"]
    if not isinstance(units, list) or not units or not all(isinstance(u, str) and _ADDRESS_RE.match(u) for u in units):
        raise ValueError("units must be a non-empty list of unit addresses (16 hex digits)")
    known = {unit_hash(u.text) for u in quotable_units(revision.body)}
    strangers = [u for u in units if u not in known]
    if strangers:
        raise ValueError(f"{len(strangers)} unit(s) are not in revision {revision.number} of {row['page']}")
    editor = None
    if row.get("editor"):
        editor = get_user_model().objects.filter(username=row["editor"]).first()
        if editor is None:
            raise ValueError(f"no account named {row['editor']!r}")
    picked_at = parse_datetime(str(row["picked_at"]))
    if picked_at is None:
        raise ValueError(f"picked_at {row['picked_at']!r} is not a date and time")
    return {
        "page": page,
        "revision": revision,
        "units": list(dict.fromkeys(units)),
        "editor": editor,
        "picked_at": picked_at,
    }


def _revision(page: Page, number: Any, text_hash: Any) -> Revision:
    """The revision by number when its text is the exported one; else any revision with that text
    (a page moved to another handbook numbers its revisions anew)."""
    same = Revision.objects.filter(page=page, number=number).first() if isinstance(number, int) else None
    if same is not None and source_hash(same.title, same.body) == text_hash:
        return same
    for revision in Revision.objects.filter(page=page).order_by("-number"):
        if source_hash(revision.title, revision.body) == text_hash:
            return revision
    raise ValueError(f"page {page.ref} has no revision with the picked text (revision {number})")


EXPORT_PATH = "_teaching/summary_picks.jsonl"


def space_export_part(space: Space, pages: list[Page], user: Any) -> list[tuple[str, bytes]]:
    """The space export's summary picks: those of the exported pages (the pages its exporter may read)."""
    lines = [json.dumps(row, ensure_ascii=False) for row in ticks_export(pages=pages)]
    return [(EXPORT_PATH, ("\n".join(lines) + "\n").encode())] if lines else []
