"""Verified answers as JSONL, so a company keeps them across an upgrade or a move.

One line per answer (``"type": "verified_answer"``), naming its space by slug, its page by ``ref``,
its revision by number and its editor by username; question vectors are not exported (they belong
to one embedding model) and are computed again on import. An import is checked whole before
anything is written: one bad line and nothing is imported, with every bad line named.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from config.numbers import IMPORT_ERRORS_SHOWN as SHOWN
from config.numbers import LANGUAGE_CODE_CHARS
from handbook.models import Page, Revision, Space
from handbook.permissions import can_edit_space
from search.models import VerifiedAnswer
from search.verified.services import answers_changed, remember_wordings
from search.verified.wording import clean_question, fold

TYPE = "verified_answer"


class TransferError(ValueError):
    """Lines that cannot be imported: ``errors`` holds "line N: why" for each."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__(
            "; ".join(errors[:SHOWN]) + (f" (and {len(errors) - SHOWN} more)" if len(errors) > SHOWN else "")
        )
        self.errors = errors


def verified_export(spaces: Iterable[Space] | None = None, rows: Any = None) -> Iterator[dict[str, Any]]:
    """Every verified answer (of ``spaces`` when given, or the ``rows`` queryset), oldest first."""
    rows = rows if rows is not None else VerifiedAnswer.objects.all()
    rows = rows.select_related("space", "page", "revision", "editor").order_by("verified_at", "pk")
    if spaces is not None:
        rows = rows.filter(space__in=list(spaces))
    for verified in rows.prefetch_related("wordings"):
        yield {
            "type": TYPE,
            "kind": verified.kind,
            "question": verified.question,
            "language": verified.language,
            "space": verified.space.slug,
            "page": verified.page.ref if verified.page else None,
            "revision": verified.revision.number if verified.revision else None,
            "units": verified.units,
            "editor": verified.editor.get_username() if verified.editor else None,
            "verified_at": verified.verified_at.isoformat(),
            "wordings": [{"text": w.text, "asked": w.asked} for w in verified.wordings.all()],
        }


def _check(number: int, row: Any, spaces: dict[str, Space], pages: dict[str, Page]) -> tuple[str, dict[str, Any]]:
    if not isinstance(row, dict) or row.get("type") != TYPE:
        return f'line {number}: not a verified answer ("type": "{TYPE}")', {}
    try:
        question = clean_question(str(row.get("question") or ""))
    except ValueError as exc:
        return f"line {number}: {exc}", {}
    kind = row.get("kind")
    if kind not in VerifiedAnswer.Kind.values:
        return f"line {number}: kind must be one of {', '.join(VerifiedAnswer.Kind.values)}", {}
    space = spaces.get(str(row.get("space")))
    if space is None:
        return f"line {number}: no space {row.get('space')!r}", {}
    page = pages.get(str(row.get("page"))) if row.get("page") else None
    units = row.get("units") or []
    if kind == VerifiedAnswer.Kind.ANSWER:
        if page is None or page.space_id != space.pk:
            return f"line {number}: no page {row.get('page')!r} in space {space.slug!r}", {}
        shape = {"text", "hash", "anchor", "heading"}
        if not units or not all(isinstance(u, dict) and shape <= u.keys() for u in units):
            return f"line {number}: units must be a list of {{text, hash, anchor, heading}}", {}
    at = parse_datetime(str(row.get("verified_at") or ""))
    if at is None:
        return f"line {number}: verified_at must be an ISO date and time", {}
    wordings = [w for w in row.get("wordings") or [] if isinstance(w, dict) and str(w.get("text") or "").strip()]
    return "", {
        "kind": kind,
        "question": question,
        "language": str(row.get("language") or "")[:LANGUAGE_CODE_CHARS] or "en",
        "space": space,
        "page": page,
        "revision_number": row.get("revision"),
        "units": units,
        "editor": row.get("editor"),
        "verified_at": at,
        "wordings": wordings,
    }


@transaction.atomic
def verified_import(rows: Iterable[tuple[int, Any]]) -> dict[str, int]:
    """Import (line number, parsed JSON) rows; an answer already there (same space, page and
    question) is skipped. Raises ``TransferError`` and writes nothing when a line is bad."""
    rows = list(rows)
    spaces = {s.slug: s for s in Space.objects.all()}
    refs = {str(r.get("page")) for _n, r in rows if isinstance(r, dict) and r.get("page")}
    pages = {p.ref: p for p in Page.objects.filter(ref__in=refs)}
    checked, errors = [], []
    for number, row in rows:
        error, item = _check(number, row, spaces, pages)
        if error:
            errors.append(error)
        else:
            checked.append(item)
    if errors:
        raise TransferError(errors)
    users = {u.get_username(): u for u in get_user_model().objects.filter(username__in={i["editor"] for i in checked})}
    created = skipped = 0
    for item in checked:
        page = item["page"]
        same = VerifiedAnswer.objects.filter(space=item["space"], page=page, wordings__folded=fold(item["question"]))
        if same.exists():
            skipped += 1
            continue
        revision = None
        if page is not None and item["revision_number"] is not None:
            revision = Revision.objects.filter(page=page, number=item["revision_number"]).first()
        verified = VerifiedAnswer.objects.create(
            kind=item["kind"],
            question=item["question"],
            language=item["language"],
            space=item["space"],
            page=page,
            revision=revision,
            units=item["units"],
            editor=users.get(item["editor"]),
            verified_at=_aware(item["verified_at"]),
        )
        wordings = [(item["question"], False)] + [(str(w["text"]), bool(w.get("asked"))) for w in item["wordings"]]
        remember_wordings(verified, wordings)
        created += 1
    if created:
        answers_changed.send(sender=VerifiedAnswer)
    return {"imported": created, "skipped": skipped}


def _aware(at: datetime) -> datetime:
    return at if timezone.is_aware(at) else timezone.make_aware(at)


EXPORT_PATH = "_teaching/verified_answers.jsonl"


def space_export_part(space: Space, pages: list[Page], user: Any) -> list[tuple[str, bytes]]:
    """The space export's verified answers: those citing an exported page (pages the exporter may
    read), and the marked gaps when the exporter edits the space (``user=None``: a full export)."""
    shown = Q(kind=VerifiedAnswer.Kind.ANSWER, page__in=pages)
    if user is None or can_edit_space(user, space):
        shown |= Q(kind=VerifiedAnswer.Kind.NOT_IN_HANDBOOK)
    rows = VerifiedAnswer.objects.filter(shown, space=space)
    lines = [json.dumps(row, ensure_ascii=False) for row in verified_export(rows=rows)]
    return [(EXPORT_PATH, ("\n".join(lines) + "\n").encode())] if lines else []
