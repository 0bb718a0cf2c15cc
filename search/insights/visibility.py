"""Which asked questions (``AskLog`` rows) one Insights viewer may see at all.

A question is people's words and its date can point at who asked it, so every Insights list that
shows asked questions (or counts them) starts from these filters, in SQL before any ``LIMIT``:

- A question whose passages came from pages: only to someone who may read EVERY one of those pages
  (``Page.objects.visible_to``), hence every space. Otherwise a page or space hidden from the viewer
  would show through the questions asked of it, and appear or vanish with it.
- A question that reached no passage says nothing of any page, but it is one person's words: shown
  to editors only once ``MIN_ASKERS`` distinct people asked it in the same words.
- Rows logged before their passages' pages were kept cannot be checked: superusers only.

Superusers see every row (they can read the Ask log in the admin anyway).

Searches that found nothing (``SearchMiss``) are people's words too, and say nothing of any page:
every viewer, superusers included (no admin lists them), sees them only once ``MIN_ASKERS`` distinct
people searched them in the same words (``misses_shown``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import (
    BooleanField,
    Count,
    Exists,
    F,
    Func,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
)
from django.db.models.functions import Lower, Trim

from config.numbers import MIN_ASKERS
from handbook.models import Page
from search.models import AskLog, SearchMiss


class _InArray(Func):
    """``value = ANY(array)``: one index lookup per element, where ``<@`` or ``&&`` against the
    array of every readable page would compare each passage with each page."""

    output_field = BooleanField()

    def as_sql(
        self,
        compiler: Any,
        connection: Any,
        function: str | None = None,  # Func's own parameters, unused: the SQL is fixed
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra: Any,
    ) -> tuple[str, tuple[Any, ...]]:
        value, array = self.get_source_expressions()
        value_sql, value_params = compiler.compile(value)
        array_sql, array_params = compiler.compile(array)
        return f"({value_sql} = ANY({array_sql}))", (*value_params, *array_params)


def _passage_pages(pages: QuerySet[Page]) -> QuerySet[Page]:
    """Of ``pages``, those the outer Ask log row's passages came from."""
    return pages.filter(_InArray(F("id"), OuterRef("passage_pages"))).order_by()


def readable_passages_q(user: Any) -> Q:
    """Rows with at least one passage page, all of which ``user`` may read (``passage_pages`` holds
    each page once, as ``search.ask.answers`` writes it)."""
    readable = _passage_pages(Page.objects.visible_to(user)).annotate(n=Func("id", function="COUNT")).values("n")
    return Q(passage_pages__len__gt=0, passage_pages__len=Subquery(readable, output_field=IntegerField()))


def passages_in_spaces_q(user: Any, space_ids: list[int]) -> Q:
    """Rows with a passage page ``user`` may read in one of these spaces (its space now)."""
    return Q(Exists(_passage_pages(Page.objects.visible_to(user).filter(space_id__in=space_ids))))


def no_passage_q() -> Q:
    """Rows whose question reached no passage (``passage_pages`` may predate the column: null)."""
    return Q(passage_spaces=[]) & (Q(passage_pages__isnull=True) | Q(passage_pages=[]))


def same_words(field: str | Value = "question") -> Func:
    """The question's words for counting askers: lower case, spaces and ASCII punctuation folded.

    Stricter than the Insights grouping (``grouping.fold`` folds accents and all punctuation too),
    so every wording shown was asked, in words that close, by that many people.
    """
    spaced = Func(
        Lower(field),
        Value(r"[[:space:][:punct:]]+"),
        Value(" "),
        Value("g"),
        function="regexp_replace",
        output_field=TextField(),
    )
    return Trim(spaced)


def shared_words() -> QuerySet[AskLog, Mapping[str, object]]:
    """The words (``same_words``) of questions without a passage that ``MIN_ASKERS`` distinct
    (known) people asked."""
    return (
        AskLog.objects.filter(no_passage_q())
        .annotate(words=same_words())
        .order_by()
        .values("words")
        .annotate(askers=Count("user", distinct=True))
        .filter(askers__gte=MIN_ASKERS)
        .values("words")
    )


def asks_shown(user: Any, *, superuser: bool, space_ids: list[int]) -> QuerySet[AskLog]:
    """The Ask log rows an Insights viewer may see: those of their spaces (some passage page in a
    space they edit) whose every passage page they may read, and questions that reached nothing
    once several people asked them."""
    logs = AskLog.objects.all()
    if superuser:
        return logs
    about_mine = readable_passages_q(user) & passages_in_spaces_q(user, space_ids)
    shared = no_passage_q() & Q(words__in=shared_words())
    return logs.alias(words=same_words()).filter(about_mine | shared)


def misses_shown() -> QuerySet[SearchMiss]:
    """Searches that found nothing, of words (``same_words``) that ``MIN_ASKERS`` distinct people
    searched; rows recorded before searchers were told apart count as nobody."""
    shared = (
        SearchMiss.objects.annotate(words=same_words("query"))
        .order_by()
        .values("words")
        .annotate(searchers=Count("searcher_key", distinct=True))
        .filter(searchers__gte=MIN_ASKERS)
        .values("words")
    )
    return SearchMiss.objects.alias(words=same_words("query")).filter(words__in=shared)
