"""Verified answers: what editors write. Every write checks that the editor may read and edit the page
(a gap: edit its space)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _

from config.numbers import VERIFIED_MAX_UNITS as MAX_UNITS
from config.numbers import VERIFIED_MAX_WORDINGS as MAX_WORDINGS
from config.numbers import VERIFIED_WORDING_CHARS as WORDING_CHARS
from core.text import detect_language
from handbook.models import Page, Space
from handbook.permissions import can_edit, can_edit_space
from search.models import VerifiedAnswer, VerifiedQuestion
from search.verified.selectors import AskPassage, VerifiedReply, verified_for_editor, verified_reply
from search.verified.wording import clean_question, fold, question_vector, unit_hash
from statements.answer_units import Unit, page_units

logger = logging.getLogger(__name__)

# Sent after verified answers are added, verified again or withdrawn (Ask's quote ranker learns from them).
answers_changed = Signal()


class VerifyError(ValueError):
    """The editor's pick cannot be saved as given; the message is for them."""


def _question(text: str) -> str:
    try:
        return clean_question(text)
    except ValueError as exc:
        raise VerifyError(str(exc)) from exc


def picked_units(units: list[Unit], hashes: set[str], anchors: set[str]) -> list[Unit]:
    """The units ticked one by one (by text hash) and those of ticked sections (by anchor), in page order."""
    return [u for u in units if unit_hash(u.text) in hashes or (u.anchor and u.anchor in anchors)]


def _unit_rows(units: list[Unit]) -> list[dict[str, str]]:
    return [{"text": u.text, "hash": unit_hash(u.text), "anchor": u.anchor, "heading": u.heading} for u in units]


def _remember(verified: VerifiedAnswer, text: str, *, asked: bool, vector: Any = None, model: str = "") -> None:
    if vector is None:
        vector, model = question_vector(text)
    VerifiedQuestion.objects.update_or_create(
        verified=verified,
        folded=fold(text)[:WORDING_CHARS],
        defaults={
            "text": text[:WORDING_CHARS],
            "language": detect_language(text),
            "model": model if vector is not None else "",
            "embedding": vector,
            "asked": asked,
        },
    )


@transaction.atomic
def verify_answer(
    *, editor: Any, question: str, page: Page, unit_hashes: list[str], anchors: list[str] | None = None
) -> VerifiedAnswer:
    """Save the units of ``page``'s published text that answer ``question``; a verified answer of the
    same question in this space is replaced (verifying again)."""
    question = _question(question)
    if not can_edit(editor, page) or page.published_revision is None:
        raise VerifyError(_("You can verify answers only from published pages you may edit."))
    revision = page.published_revision
    chosen = picked_units(page_units(revision.body or ""), set(unit_hashes), set(anchors or ()))
    if not chosen:
        raise VerifyError(_("Pick at least one sentence (or a section) of the page that answers the question."))
    if len(chosen) > MAX_UNITS:
        raise VerifyError(
            _("Pick at most %(count)s sentences: the answer should be the few that say it.") % {"count": MAX_UNITS}
        )
    # Verifying a question again on the same page replaces the answer there; another page may
    # answer it too (readers of only one of them still get one).
    _withdraw_same(question, page.space_id, page=page)
    verified = VerifiedAnswer.objects.create(
        kind=VerifiedAnswer.Kind.ANSWER,
        question=question,
        language=detect_language(question),
        space_id=page.space_id,
        page=page,
        revision=revision,
        units=_unit_rows(chosen),
        editor=editor,
        verified_at=timezone.now(),
    )
    _remember(verified, question, asked=False)
    answers_changed.send(sender=VerifiedAnswer)
    return verified


@transaction.atomic
def mark_not_in_handbook(*, editor: Any, question: str, space: Space) -> VerifiedAnswer:
    """Record that the handbook does not answer ``question``: a gap to write, kept in Insights."""
    question = _question(question)
    if not can_edit_space(editor, space):
        raise VerifyError(_("You can mark questions only for spaces you edit."))
    _withdraw_same(question, space.pk, page=None)
    verified = VerifiedAnswer.objects.create(
        kind=VerifiedAnswer.Kind.NOT_IN_HANDBOOK,
        question=question,
        language=detect_language(question),
        space=space,
        editor=editor,
        verified_at=timezone.now(),
    )
    _remember(verified, question, asked=False)
    return verified


def _withdraw_same(question: str, space_id: int, *, page: Page | None) -> None:
    folded = fold(question)
    same = VerifiedAnswer.objects.filter(space_id=space_id, page=page, wordings__folded=folded, wordings__asked=False)
    same.delete()


def _changeable(editor: Any, verified: VerifiedAnswer) -> VerifiedAnswer:
    """``verified`` read again, locked, through the editor's filter (``verified_for_editor``): one on a
    page they may not read and edit, or a deleted page, is refused as if it did not exist."""
    found = verified_for_editor(editor).filter(pk=verified.pk).select_for_update().first()
    if found is None:
        raise VerifyError(_("This verified answer no longer exists."))
    return found


@transaction.atomic
def verify_again(*, editor: Any, verified: VerifiedAnswer) -> VerifiedAnswer:
    """Confirm an answer on the page's current text: the cited units still on it are kept."""
    verified = _changeable(editor, verified)
    page = verified.page
    if page is None or not can_edit(editor, page) or page.published_revision is None:
        raise VerifyError(_("You can verify answers only from published pages you may edit."))
    hashes = {row["hash"] for row in verified.units}
    kept = picked_units(page_units(page.published_revision.body or ""), hashes, set())
    if not kept:
        raise VerifyError(_("None of the cited sentences is on the page any more: pick the answer again."))
    verified.revision = page.published_revision
    verified.units = _unit_rows(kept)
    verified.editor = editor
    verified.verified_at = timezone.now()
    verified.save(update_fields=["revision", "units", "editor", "verified_at"])
    answers_changed.send(sender=VerifiedAnswer)
    return verified


@transaction.atomic
def withdraw(*, editor: Any, verified: VerifiedAnswer) -> None:
    """Remove the answer (or gap): readers who ask get Ask's own answer again."""
    _changeable(editor, verified).delete()
    answers_changed.send(sender=VerifiedAnswer)


def remember_wording(*, verified_id: int, question: str, vector: Any, model: str) -> None:
    """A reader's question matched this answer: its wording is kept with the answer (bounded) for
    its editors to read; matching stays on the editors' own wordings."""
    if VerifiedQuestion.objects.filter(verified_id=verified_id).count() >= MAX_WORDINGS:
        return
    verified = VerifiedAnswer.objects.filter(pk=verified_id).first()
    if verified is not None and not VerifiedQuestion.objects.filter(verified=verified, folded=fold(question)).exists():
        _remember(verified, question, asked=True, vector=vector, model=model)


def verified_for_asker(
    user: Any,
    question: str,
    vector: list[float] | None,
    embedder: Any,
    *,
    remember: bool = True,
    passages: Sequence[AskPassage] = (),
) -> VerifiedReply | None:
    """The verified answer Ask shows ``user`` first (``vector``: retrieval's question vector under
    ``embedder``; ``passages``: Ask's, for the second look); a near wording that found it is remembered
    with the answer."""
    model = getattr(embedder, "model_name", "") if vector is not None else ""
    try:
        reply = verified_reply(user, question, vector, model, passages)
        if reply is not None and remember and not reply.same_wording:
            remember_wording(verified_id=reply.verified_id, question=question, vector=vector, model=model)
    except Exception:  # the normal answer still comes
        logger.exception("verified answer not looked up")
        return None
    return reply


def remember_wordings(verified: VerifiedAnswer, wordings: list[tuple[str, bool]]) -> None:
    """Store wordings (text, asked by a reader) of an imported answer, vectors computed now."""
    for text, asked in wordings[:MAX_WORDINGS]:
        try:
            cleaned = clean_question(text)
        except ValueError:
            continue
        _remember(verified, cleaned, asked=asked)
