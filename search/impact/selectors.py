"""The questions an edit of a page may change, as one editor may see them.

Asked questions are people's words: they are listed the way Insights lists them
(``search/insights/visibility.py``), never with who asked, and only once ``MIN_ASKERS`` distinct
people asked them in the same words. A question that reached passages is listed only to someone who
may read every one of those pages (cited pages are among them).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, Max, Min, Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone

from config.numbers import MAX_UNANSWERED_CANDIDATES, MIN_ASKERS
from core.text import fold_accents
from handbook.models import Page, Revision, text_search_config
from search.insights.visibility import no_passage_q, readable_passages_q, same_words
from search.models import AskLog, VerifiedAnswer
from search.verified.selectors import verified_for_editor


@dataclass(frozen=True)
class AskedQuestion:
    """One wording (``same_words``) and how often it was asked; never who asked it."""

    question: str
    askers: int
    times: int
    answered: bool  # logged with an answer citing the page (else: logged without any answer)


def editable_page(user: Any, space_slug: str, page_slug: str) -> Page:
    """The page if ``user`` may edit it; a missing page otherwise (404), so the preview's address
    says nothing of a page or draft its visitor may not see, whether they may read it or not."""
    return get_object_or_404(
        Page.objects.editable_by(user).select_related("space", "published_revision"),
        space__slug=space_slug,
        slug=page_slug,
    )


def draft_revision(page: Page, number: int | None) -> Revision | None:
    """Revision ``number`` of the page, or by default its newest revision when it is not the
    published one (a draft, or a text waiting for review); None when there is none."""
    if number is not None:
        return page.revisions.filter(number=number).first()
    latest = page.revisions.order_by("-number").first()
    return latest if latest is not None and latest.pk != page.published_revision_id else None


def _since() -> Any:
    return timezone.now() - timedelta(days=settings.ASK_LOG_RETENTION_DAYS)


def _grouped(logs: QuerySet[AskLog]) -> QuerySet[Any, Any]:
    """Shared wordings of ``logs``, most asked first (distinct known askers, then occurrences)."""
    return (
        logs.annotate(words=same_words())
        .order_by()
        .values("words")
        .annotate(
            askers=Count("user", distinct=True),
            times=Count("id"),
            question=Min("question"),
            last=Max("created_at"),
        )
        .filter(askers__gte=MIN_ASKERS)
        .order_by("-askers", "-times", "-last", "words")
    )


def asked_citing(*, user: Any, page: Page) -> list[AskedQuestion]:
    """Questions asked within the Ask log's retention whose answer cited ``page``."""
    logs = (
        AskLog.objects.filter(created_at__gte=_since(), citations__contains=[{"ref": page.ref}])
        .exclude(mode=AskLog.Mode.NO_ANSWER)
        .filter(readable_passages_q(user))
    )
    return [AskedQuestion(row["question"], row["askers"], row["times"], True) for row in _grouped(logs)]


def unanswered_matching(*, user: Any, page: Page, title: str, body: str) -> list[AskedQuestion]:
    """Questions that found no answer within the retention whose words the new text holds: at
    least half of each question's words (as the page's language stems them and drops stop words)."""
    logs = AskLog.objects.filter(created_at__gte=_since(), mode=AskLog.Mode.NO_ANSWER).filter(
        readable_passages_q(user) | Q(no_passage_q())
    )
    candidates = list(_grouped(logs)[:MAX_UNANSWERED_CANDIDATES])
    if not candidates:
        return []
    config = text_search_config(page.language)
    questions = [fold_accents(row["question"]) for row in candidates]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tsvector_to_array(to_tsvector(%s::regconfig, %s)),"
            " ARRAY(SELECT array_to_string(tsvector_to_array(to_tsvector(%s::regconfig, q)), ' ')"
            " FROM unnest(%s::text[]) WITH ORDINALITY AS t(q, n) ORDER BY n)",
            [config, fold_accents(f"{title}\n{body}"), config, questions],
        )
        text_words, question_words = cursor.fetchone()
    held = set(text_words or ())
    found = []
    for row, words in zip(candidates, question_words, strict=True):
        wanted = set(words.split())
        if wanted and 2 * len(wanted & held) >= len(wanted):
            found.append(AskedQuestion(row["question"], row["askers"], row["times"], False))
    return found


def verified_on(*, user: Any, page: Page) -> list[VerifiedAnswer]:
    """The verified answers on ``page`` that ``user`` may see as an editor."""
    return list(
        verified_for_editor(user).filter(page=page, kind=VerifiedAnswer.Kind.ANSWER).order_by("-verified_at", "pk")
    )
