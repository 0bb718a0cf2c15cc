"""Verified answers: what readers and editors read.

A reader gets a verified answer only when they may read its page: the page filter is the same
visible-pages statement every read path starts from (``visible_page_ids_sql``, the rules of
``Page.objects.visible_to``), applied in SQL before the nearest wording
is chosen, so a verified answer on a page a reader cannot read changes nothing they see (not the
answer, not which one is nearest, not how long it takes to find: only readable rows are read).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

import numpy as np
from django.db.models import Case, F, FloatField, Q, QuerySet, Value, When
from django.db.models.expressions import RawSQL
from django.utils import timezone
from pgvector.django import CosineDistance

from config.numbers import MAX_CANDIDATE_PAGES
from config.numbers import VERIFIED_MAX_LISTED as MAX_LISTED
from handbook.models import Page, Space
from handbook.permissions import visible_page_ids_sql
from search.indexing.unit_vectors import stored_unit_vectors
from search.models import VerifiedAnswer, VerifiedQuestion
from search.retrieval.pipeline import retrieve
from search.verified.wording import fold, related_distance, same_question_distance, unit_hash
from statements.answer_units import Unit, page_units, passage_units, revision_units


class AskPassage(Protocol):
    """What the second look reads of one of Ask's passages (``search/ask/passages.Passage``)."""

    @property
    def number(self) -> int: ...
    @property
    def chunk_id(self) -> int: ...
    @property
    def page_id(self) -> int: ...
    @property
    def revision_id(self) -> int: ...
    @property
    def anchor(self) -> str: ...
    @property
    def heading(self) -> str: ...
    @property
    def text(self) -> str: ...


@dataclass
class VerifiedQuote:
    text: str
    url: str
    heading: str


@dataclass
class VerifiedReply:
    """A verified answer as one reader sees it: quoted from the page's current text."""

    verified_id: int
    question: str
    editor: str
    verified_at: datetime
    title: str
    ref: str
    url: str
    revision: int
    language: str
    quotes: list[VerifiedQuote] = field(default_factory=list)
    changed: bool = False  # the page was published again since it was verified
    missing: int = 0  # cited units no longer on the page
    same_wording: bool = False  # asked in one of the answer's own wordings (else a near one)

    def as_json(self) -> dict[str, Any]:
        return {
            "verified_by": self.editor,
            "verified_at": self.verified_at.isoformat(),
            "question": self.question,
            "title": self.title,
            "ref": self.ref,
            "url": self.url,
            "revision": self.revision,
            "changed": self.changed,
            "quotes": [{"text": q.text, "url": q.url, "heading": q.heading} for q in self.quotes],
        }


def _live(today: date) -> Q:
    """Answers still served: on their verified revision, or changed since but the owner's review
    date not yet passed (after it, an answer nobody verified again drops out)."""
    return (
        Q(verified__revision_id=F("verified__page__published_revision_id"))
        | Q(verified__page__review_by__isnull=True)
        | Q(verified__page__review_by__gte=today)
    )


def _nearest(user: Any, question: str, vector: list[float] | None, model: str) -> VerifiedQuestion | None:
    """The editors' wording that asks ``question``, with its answer, page and editor: the same folded
    wording first (the latest verified), else the nearest within the model's related distance (its
    ``distance`` annotated: beyond the same-question distance, the caller takes a second look).
    One statement: the lookup runs before every Ask, and compiling a query costs more than running it."""
    # The pages the reader may read, as every read path filters them (the statement compiled once per
    # set of groups: building the queryset cost more than the lookup's SQL).
    readable = RawSQL(*visible_page_ids_sql(user))  # noqa: S611 - compiled by the ORM, parameters bound
    folded = fold(question)
    # Only the editors' own wordings decide, exact or near: a reader's wording that matched once is
    # kept for the editor to read, never to match again (a wrong near match must not become exact).
    rows = VerifiedQuestion.objects.filter(
        _live(timezone.localdate()),
        verified__kind=VerifiedAnswer.Kind.ANSWER,
        verified__page_id__in=readable,
        asked=False,
    ).select_related("verified__page__published_revision", "verified__page__space", "verified__editor")
    if vector is None or not model:
        return rows.filter(folded=folded).order_by("-verified__verified_at").first()
    near = Q(model=model, embedding__isnull=False, distance__lte=related_distance(model))
    return (
        rows.annotate(distance=CosineDistance("embedding", vector))
        .filter(Q(folded=folded) | near)
        # The same wording before any near one (-1 is below every distance), then the nearest.
        .annotate(rank=Case(When(folded=folded, then=Value(-1.0)), default=F("distance"), output_field=FloatField()))
        .order_by("rank", "-verified__verified_at")
        .first()
    )


def verified_reply(
    user: Any,
    question: str,
    vector: list[float] | None,
    model: str,
    passages: Sequence[AskPassage] = (),
) -> VerifiedReply | None:
    """The verified answer ``user`` gets for ``question``, or None. ``passages``: Ask's, for the second
    look at a wording a little farther than the same question (none: no second look)."""
    wording = _nearest(user, question, vector, model)
    if wording is None:
        return None
    same_wording = wording.folded == fold(question)
    distance = getattr(wording, "distance", None)
    farther = not same_wording and distance is not None and distance > same_question_distance(model)
    if farther and (vector is None or not _finds_what_was_verified(wording.verified, vector, model, passages)):
        return None
    reply = reply_for(wording.verified)
    reply.same_wording = same_wording
    return reply


def _finds_what_was_verified(
    verified: VerifiedAnswer, vector: list[float], model: str, passages: Sequence[AskPassage]
) -> bool:
    """The second look: among the units of Ask's passages (all of them readable by the asker, whose
    stored vectors are read), the one nearest the question is a unit the editor verified, on its page.
    The question then asks what the verified answer answers, in words farther from the editor's."""
    if not any(p.page_id == verified.page_id for p in passages):
        return False
    by_passage = passage_units(list(passages))
    keys = [(p.chunk_id, u.text) for p in passages for u in by_passage.get(p.number, [])]
    stored = stored_unit_vectors(keys, model)
    if not stored:
        return False
    found = list(stored)
    matrix = np.asarray([stored[key] for key in found], dtype=np.float32)
    similarities = matrix @ np.asarray(vector, dtype=np.float32) / np.maximum(np.linalg.norm(matrix, axis=1), 1e-9)
    chunk_id, text = found[int(np.argmax(similarities))]
    on_page = {p.chunk_id for p in passages if p.page_id == verified.page_id}
    return chunk_id in on_page and unit_hash(text) in {row["hash"] for row in verified.units}


def reply_for(verified: VerifiedAnswer) -> VerifiedReply:
    page = verified.page
    assert page is not None and page.published_revision is not None
    current = page.published_revision
    units = {unit_hash(u.text): u for u in revision_units([current.pk]).get(current.pk, [])}  # cached per revision
    url = page.get_absolute_url()
    still = [units[row["hash"]] for row in verified.units if row["hash"] in units]
    quotes = [VerifiedQuote(text=u.text, url=_at(url, u.anchor), heading=u.heading) for u in still]
    editor = verified.editor
    return VerifiedReply(
        verified_id=verified.pk,
        question=verified.question,
        editor=(editor.get_full_name() or editor.get_username()) if editor else "",
        verified_at=verified.verified_at,
        title=page.title,
        ref=page.ref,
        url=url,
        revision=current.number,
        language=page.language,
        quotes=quotes,
        changed=verified.revision_id != current.pk,
        missing=len(verified.units) - len(quotes),
    )


def _at(url: str, anchor: str) -> str:
    return f"{url}#{anchor}" if anchor else url


# --- the editor's picker ------------------------------------------------------------


@dataclass
class PickerSection:
    anchor: str
    heading: str
    units: list[tuple[str, Unit]] = field(default_factory=list)  # (hash, unit)


def picker_sections(page: Page) -> list[PickerSection]:
    """The page's published units, by section, each with the hash the form sends back."""
    sections: list[PickerSection] = []
    revision = page.published_revision
    for unit in page_units(revision.body if revision else ""):
        if not sections or sections[-1].anchor != unit.anchor:
            heading = unit.heading.split(" › ")[0] if unit.heading else ""
            sections.append(PickerSection(anchor=unit.anchor, heading=heading))
        sections[-1].units.append((unit_hash(unit.text), unit))
    return sections


def candidate_pages(editor: Any, question: str) -> list[Page]:
    """Pages the editor may verify from, the ones the question retrieves first."""
    editable = set(Page.objects.editable_by(editor).published().values_list("id", flat=True))
    try:
        order = [hit.page_id for hit in retrieve(question, editor).pages if hit.page_id in editable]
    except Exception:  # a malformed query still lets the editor pick a page by hand
        order = []
    pages = Page.objects.in_bulk(order[:MAX_CANDIDATE_PAGES])
    return [pages[pid] for pid in order[:MAX_CANDIDATE_PAGES] if pid in pages]


def verified_for_editor(editor: Any) -> QuerySet[VerifiedAnswer]:
    """The verified answers ``editor`` may see and change as an editor: answers on pages they may both
    read (the read paths' visible-pages statement) and edit, and the gaps of spaces they edit.

    Filtered in SQL, so an answer on a page they cannot read, or a deleted one, does not exist for
    them: not listed, and a change to it is refused like a missing one. Editing a space is not
    reading each of its pages: a page restricted to another editor group stays closed."""
    readable = RawSQL(*visible_page_ids_sql(editor))  # noqa: S611 - compiled by the ORM, parameters bound
    editable = Page.objects.editable_by(editor).values("id")
    spaces = Space.objects.editable_by(editor).values("id")
    answers = Q(kind=VerifiedAnswer.Kind.ANSWER, page_id__in=readable) & Q(page_id__in=editable)
    gaps = Q(kind=VerifiedAnswer.Kind.NOT_IN_HANDBOOK, page__isnull=True, space_id__in=spaces)
    return VerifiedAnswer.objects.filter(answers | gaps)


def verified_for_question(editor: Any, question: str) -> list[VerifiedAnswer]:
    """Answers (and gaps) already recorded for this wording that the editor may see."""
    return list(
        verified_for_editor(editor)
        .filter(wordings__folded=fold(question))
        .select_related("page__published_revision", "editor", "space")
        .distinct()
    )


# --- Insights -----------------------------------------------------------------------


@dataclass
class VerifiedInsights:
    changed: list[tuple[VerifiedAnswer, VerifiedReply]]  # pages published again since: verify again
    gaps: list[VerifiedAnswer]  # "the handbook does not say this": pages to write
    count: int  # verified answers served from the viewer's spaces


def verified_insights(user: Any) -> VerifiedInsights:
    """What the viewer, as an editor, should act on: answers on pages they read and edit whose page
    changed since (owners' pages first), and the gaps editors marked in spaces they edit."""
    answers = verified_for_editor(user).filter(kind=VerifiedAnswer.Kind.ANSWER)
    changed = (
        answers.exclude(revision_id=F("page__published_revision_id"))
        .select_related("page__published_revision", "editor")
        .order_by(F("page__owner_user_id").asc(nulls_last=True), "page__review_by", "-verified_at")
    )
    owned_first = sorted(changed[:MAX_LISTED], key=lambda v: v.page is None or v.page.owner_user_id != user.pk)
    gaps = (
        verified_for_editor(user)
        .filter(kind=VerifiedAnswer.Kind.NOT_IN_HANDBOOK)
        .select_related("space", "editor")[:MAX_LISTED]
    )
    return VerifiedInsights(changed=[(v, reply_for(v)) for v in owned_first], gaps=list(gaps), count=answers.count())
