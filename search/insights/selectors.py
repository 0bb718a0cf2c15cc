"""What the Insights page reads: the handbook's gaps, as one space editor may see them.

Privacy and permissions (README, "Insights and privacy"):

- Only editors of at least one space and superusers see the page; no person is ever named.
- Which asked questions a viewer may see is ``search.insights.visibility``: those whose passages came
  from pages the viewer may ALL read, with one in a space they edit; those that matched nothing once
  several people asked them; superusers: all. Searches that found nothing (no person is kept),
  to every viewer once as many distinct people searched them (``visibility.misses_shown``).
- Spaces are named only when the viewer edits them; a page (title, link, quote, answer text)
  only when the viewer may read it and, for answers readers rejected, edits its space.
- Times of asked questions are shown to the day (the template), never to the minute.
- All of it is decided in SQL (``Space.objects.editable_by``, ``Page.objects.visible_to``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db.models import BooleanField, Exists, F, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce

from config.numbers import INSIGHTS_MAX_ROWS as MAX_ROWS
from config.numbers import MAX_GROUPS, MAX_REJECTED, TOP_PER_SPACE
from core.users import is_active_user
from handbook.models import Page, Space
from search.insights.fixes import Fix, possible_fixes
from search.insights.grouping import Group, Mention, group_mentions
from search.insights.visibility import asks_shown, misses_shown
from search.models import AskLog


@dataclass
class Scope:
    """Who is looking: every space (superuser) or the spaces they edit."""

    superuser: bool
    spaces: dict[int, Space]
    user: Any = None  # the viewer: "possibly fixed" looks only at pages they may read

    @property
    def space_ids(self) -> list[int]:
        return sorted(self.spaces)


def insights_scope(user: Any) -> Scope | None:
    """The viewer's scope, or None when they may not see Insights at all."""
    if not is_active_user(user):
        return None
    spaces = {space.pk: space for space in Space.objects.editable_by(user).order_by("title")}
    if user.is_superuser:
        return Scope(superuser=True, spaces=spaces, user=user)
    return Scope(superuser=False, spaces=spaces, user=user) if spaces else None


def can_view_insights(user: Any) -> bool:
    if not is_active_user(user):
        return False
    return bool(user.is_superuser or Space.objects.editable_by(user).exists())


def _asks_for(scope: Scope) -> Any:
    """Ask log rows the viewer may see (``search.insights.visibility``)."""
    return asks_shown(scope.user, superuser=scope.superuser, space_ids=scope.space_ids)


def _outcome(mode: str, helpful: bool | None) -> str:
    if mode == AskLog.Mode.NO_ANSWER:
        return "no_answer"
    return "rejected" if helpful is False else ""


@dataclass
class UnansweredGroup:
    group: Group
    spaces: list[Space]
    fix: Fix | None = None  # a page published since that may answer it (search/insights/fixes.py)


def unanswered(scope: Scope) -> list[UnansweredGroup]:
    """Questions that got no answer and searches that found nothing, grouped by similar wording."""
    asks = (
        _asks_for(scope)
        # Answers rated "not helpful" too: a question answered wrongly several times is a gap.
        .filter(Q(mode=AskLog.Mode.NO_ANSWER) | Q(helpful=False))
        .order_by("-created_at")
        .values_list("question", "created_at", "passage_spaces", "mode")[:MAX_ROWS]
    )
    mentions = [Mention(q, "ask", at, tuple(spaces or ()), _outcome(mode, False)) for q, at, spaces, mode in asks]
    misses = misses_shown().order_by("-created_at").values_list("query", "created_at")[:MAX_ROWS]
    mentions += [Mention(q, "search", at) for q, at in misses]
    groups = [g for g in group_mentions(mentions) if g.no_answer or g.searches or g.answered_badly][:MAX_GROUPS]
    fixes = possible_fixes(groups, user=scope.user, edited_space_ids=scope.space_ids, superuser=scope.superuser)
    return [
        UnansweredGroup(group, [scope.spaces[s] for s in group.spaces if s in scope.spaces], fix)
        for group, fix in zip(groups, fixes, strict=True)
    ]


@dataclass
class TopQuestions:
    space: Space
    groups: list[Group]
    total: int


def top_questions(scope: Scope) -> list[TopQuestions]:
    """What people ask, per space the viewer edits: by the (current) space of the page of each
    question's best passage; rows logged before pages were kept (superusers only) by its space."""
    best_page_space = Page.objects.filter(pk=OuterRef("best_page")).values("space_id")[:1]
    rows = (
        _asks_for(scope)
        .alias(best_page=F("passage_pages__0"))  # best first
        .annotate(top_space=Coalesce(Subquery(best_page_space), F("passage_spaces__0"), output_field=IntegerField()))
        .filter(top_space__in=scope.space_ids)
        .order_by("-created_at")
        .values_list("question", "created_at", "top_space", "mode", "helpful")[:MAX_ROWS]
    )
    by_space: dict[int, list[Mention]] = {}
    for question, at, space_id, mode, helpful in rows:
        # How each was answered travels with it: the template never shows a gap as answered.
        by_space.setdefault(space_id, []).append(Mention(question, "ask", at, outcome=_outcome(mode, helpful)))
    return [
        TopQuestions(scope.spaces[space_id], group_mentions(mentions)[:TOP_PER_SPACE], len(mentions))
        for space_id in scope.space_ids
        if (mentions := by_space.get(space_id))
    ]


@dataclass
class CitedPage:
    title: str
    url: str
    space: Space
    quote: str
    possibly_fixed: bool  # a newer revision was published since the answer cited it


@dataclass
class RejectedAnswer:
    question: str
    comment: str
    created_at: datetime
    answer: str  # empty unless the viewer may read every page the answer came from
    citations: list[CitedPage] = field(default_factory=list)
    hidden_citations: int = 0
    no_answer: bool = False  # the reader rated "no answer found" as not helpful
    named_space: Space | None = None  # the space of the viewer's the reader said should answer

    @property
    def possibly_fixed(self) -> bool:
        return any(c.possibly_fixed for c in self.citations)


def _pages_sql(pages: Any) -> tuple[str, tuple[Any, ...]] | None:
    try:
        sql, params = pages.order_by().values("ref").query.sql_with_params()
    except EmptyResultSet:
        return None
    return sql, tuple(params)


def _rejected_rows(scope: Scope, user: Any) -> Any:
    """Ask log rows rated "not helpful" that reach this viewer, each marked ``by_passages`` when it
    passes the Insights rule (``search.insights.visibility``) and not only because it names a space.

    - Answers citing a page the viewer may read in a space they edit, and no-answers whose passages
      came from one: only when the viewer may read every passage page (the rule).
    - Rows whose asker named a space the viewer edits: the asker sent them there (the form offers
      only spaces they may read). Such a row shows its question, comment and date; its answer and
      sources only as far as the rule above allows.
    Superusers: every row.
    """
    if scope.superuser:
        return AskLog.objects.filter(helpful=False).annotate(by_passages=Value(True, output_field=BooleanField()))
    mine = Page.objects.visible_to(user).filter(space_id__in=scope.space_ids)
    found = _pages_sql(mine)
    about_mine = Q(mode=AskLog.Mode.NO_ANSWER, passage_pages__len__gt=0)
    if found is not None:
        sql, params = found
        table = AskLog._meta.db_table
        # The page SQL is the ORM's own, with its parameters; the table name is the model's.
        cites_mine = RawSQL(  # noqa: S611
            f"EXISTS (SELECT 1 FROM jsonb_array_elements({table}.citations) AS c WHERE c->>'ref' IN ({sql}))",  # noqa: S608
            params,
            output_field=BooleanField(),
        )
        about_mine |= Q(cites_mine)
    # A no-answer reaches the rule only through passages, so never through the askers threshold.
    shown = _asks_for(scope).filter(about_mine, helpful=False).values("pk")
    named = Q(feedback_space_id__in=scope.space_ids)
    return (
        AskLog.objects.filter(helpful=False)
        .filter(Q(pk__in=shown) | named)
        .annotate(by_passages=Exists(shown.filter(pk=OuterRef("pk"))))
    )


def rejected_answers(scope: Scope, user: Any) -> list[RejectedAnswer]:
    """Answers and no-answers rated "not helpful" that reach the viewer (``_rejected_rows``), newest first."""
    mine = Page.objects.visible_to(user)
    if not scope.superuser:
        mine = mine.filter(space_id__in=scope.space_ids)
    logs = list(_rejected_rows(scope, user).order_by("-created_at")[:MAX_REJECTED])
    refs = {c.get("ref", "") for log in logs for c in log.citations or []}
    readable = set(Page.objects.visible_to(user).filter(ref__in=refs).values_list("ref", flat=True))
    passage_pages = {pid for log in logs for pid in log.passage_pages or ()}
    readable_ids = set(Page.objects.visible_to(user).filter(id__in=passage_pages).values_list("id", flat=True))
    pages = {p.ref: p for p in mine.filter(ref__in=refs).select_related("space", "published_revision")}
    rejected = []
    for log in logs:
        cited = log.citations or []
        shown, hidden = [], 0
        for c in cited:
            page = pages.get(c.get("ref", ""))
            if page is None:
                hidden += 1
                continue
            current = page.published_revision.number if page.published_revision else 0
            anchor = c.get("anchor") or ""
            shown.append(
                CitedPage(
                    title=page.title,
                    url=page.get_absolute_url() + (f"#{anchor}" if anchor else ""),
                    space=page.space,
                    quote=c.get("quote") or "",
                    possibly_fixed=current > int(c.get("revision") or 0),
                )
            )
        # The text only when every page it came from is readable: the cited ones, and every passage
        # the model was sent (unknown on rows logged before they were kept: superusers only).
        everything_readable = all(c.get("ref") in readable for c in cited) and (
            scope.superuser or (log.passage_pages is not None and set(log.passage_pages) <= readable_ids)
        )
        rejected.append(
            RejectedAnswer(
                question=log.question,
                comment=log.comment,
                created_at=log.created_at,
                answer=log.answer if everything_readable and log.by_passages else "",
                citations=shown,
                # A row shown only because the asker named the space says nothing of other pages.
                hidden_citations=hidden if log.by_passages else 0,
                no_answer=log.mode == AskLog.Mode.NO_ANSWER,
                named_space=scope.spaces.get(log.feedback_space_id) if log.feedback_space_id else None,
            )
        )
    return rejected
