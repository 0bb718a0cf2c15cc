"""Which answers publishing a text would change: each question answered now, then with the text
published and indexed inside a transaction that is rolled back (``sandbox``), as the person who
edits or reviews it.

Both answers come from Ask itself (``answer_question``), quoted (no model: what is compared is what
the handbook says, and a model's wording would differ from run to run), never from or into the
answer cache, never logged. What a reader would get after publishing is what the preview shows,
save for what changes meanwhile.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

from config.numbers import MAX_PREVIEWED
from config.numbers import PREVIEW_BUDGET_S as BUDGET_S
from config.numbers import PREVIEW_NOW_SHARE as NOW_SHARE
from handbook.models import Page, Revision
from handbook.services import page_publish
from search.ask.answers import answer_question
from search.ask.replies import Answer, AskError
from search.impact.sandbox import rolled_back
from search.impact.selectors import AskedQuestion, asked_citing, unanswered_matching, verified_on
from search.indexing.pipeline import page_reindex
from search.verified.wording import unit_hash
from statements.answer_units import page_units

logger = logging.getLogger(__name__)


CHANGES = "changes"
NOW_ANSWERED = "now_answered"
NO_LONGER_ANSWERED = "no_longer_answered"
UNCHANGED = "unchanged"
VERIFIED_STALE = "verified_stale"
# The order the panel lists them in: what an editor must look at first.
MARKS = (NO_LONGER_ANSWERED, CHANGES, VERIFIED_STALE, NOW_ANSWERED, UNCHANGED)


@dataclass(frozen=True)
class Outcome:
    """What Ask answers: its lead quote and the page it cites (no_answer: neither)."""

    mode: str
    text: str
    lead: str = ""
    title: str = ""
    ref: str = ""
    url: str = ""
    citations: tuple[tuple[str, str], ...] = ()  # (ref, quote) of each citation, in order

    @property
    def answered(self) -> bool:
        return self.mode != "no_answer"

    @classmethod
    def of(cls, answer: Answer) -> Outcome:
        cited = tuple((c.ref, c.quote) for c in answer.citations)
        first = answer.citations[0] if answer.citations else None
        if first is None:
            return cls(answer.mode, answer.text, citations=cited)
        return cls(answer.mode, answer.text, first.quote, first.title, first.ref, first.url, cited)

    def same_answer(self, other: Outcome) -> bool:
        return (self.mode, self.text, self.citations) == (other.mode, other.text, other.citations)


@dataclass
class ImpactRow:
    question: str
    mark: str
    askers: int = 0  # distinct people who asked it in these words (0: a verified answer's question)
    times: int = 0
    before: Outcome | None = None
    after: Outcome | None = None
    verified: bool = False


@dataclass
class ImpactPreview:
    page: Page
    revision: Revision | None
    rows: list[ImpactRow] = field(default_factory=list)
    not_previewed: int = 0  # questions beyond the limit or the time budget, counted only
    failed: bool = False  # the draft could not be indexed: nothing was previewed

    def grouped(self) -> list[tuple[str, list[ImpactRow]]]:
        return [(mark, rows) for mark in MARKS if (rows := [r for r in self.rows if r.mark == mark])]


def _mark(before: Outcome, after: Outcome) -> str:
    if before.answered and not after.answered:
        return NO_LONGER_ANSWERED
    if after.answered and not before.answered:
        return NOW_ANSWERED
    return UNCHANGED if before.same_answer(after) else CHANGES


def answer_for_preview(user: Any, question: str) -> Outcome | None:
    """Ask's quoted answer for ``user``, without rate limit, log or answer cache; None when the
    question is not one Ask takes."""
    try:
        answer = answer_question(
            user=user,
            question=question,
            log=False,
            rate_limit=False,
            use_cache=False,
            use_llm=False,
            with_extras=False,  # neither a verified answer nor outdated marks are compared
        )
    except AskError:
        return None
    return Outcome.of(answer)


def _questions(user: Any, page: Page, title: str, body: str) -> list[AskedQuestion]:
    """Asked questions citing the page, then unanswered ones the text matches, most asked first."""
    asked = asked_citing(user=user, page=page)
    seen = {q.question for q in asked}
    matching = unanswered_matching(user=user, page=page, title=title, body=body)
    unanswered = [q for q in matching if q.question not in seen]
    return sorted([*asked, *unanswered], key=lambda q: (-q.askers, -q.times))


def _verified_rows(user: Any, page: Page, title: str, body: str) -> list[ImpactRow]:
    """Verified answers on the page, stale when a unit they quote is no longer in the new text."""
    kept = {unit_hash(u.text) for u in page_units(body)}
    rows = []
    for verified in verified_on(user=user, page=page):
        units = [row for row in verified.units if row.get("text")]
        if not units:
            continue
        url = page.get_absolute_url()
        before = Outcome("verified", " ".join(u["text"] for u in units), units[0]["text"], page.title, page.ref, url)
        still = [u for u in units if u["hash"] in kept]
        stale = len(still) < len(units)
        after = None
        if still:
            after = Outcome("verified", " ".join(u["text"] for u in still), still[0]["text"], title, page.ref, url)
        mark = VERIFIED_STALE if stale else UNCHANGED
        rows.append(ImpactRow(verified.question, mark, before=before, after=after, verified=True))
    return rows


def impact_preview(
    *,
    user: Any,
    page: Page,
    revision: Revision | None = None,
    title: str | None = None,
    body: str | None = None,
    budget_s: float = BUDGET_S,
    limit: int = MAX_PREVIEWED,
) -> ImpactPreview:
    """The answers publishing ``revision`` (or ``title`` and ``body``, as being edited) would change,
    for ``user``, who must be allowed to edit ``page`` (the caller loads it through that right)."""
    title = revision.title if revision is not None and title is None else (title or page.title)
    body = revision.body if revision is not None and body is None else (body or "")
    started = time.monotonic()
    preview = ImpactPreview(page=page, revision=revision)
    questions = _questions(user, page, title, body)
    chosen = questions[:limit]
    texts = [q.question for q in chosen]
    preview.not_previewed = len(questions) - len(chosen)
    try:
        now, after = _both(user, page, revision, title, body, texts, started, budget_s)
    except Exception:  # an embedding outage, a page that changed under us: say so, publish nothing
        logger.exception("impact preview of page %s failed", page.pk)
        preview.failed = True
        return preview
    reached = min(len(now), len(after))
    preview.not_previewed += len(chosen) - reached
    for asked, before, outcome in zip(chosen[:reached], now, after, strict=False):
        if before is not None:
            preview.rows.append(
                ImpactRow(asked.question, _mark(before, outcome), asked.askers, asked.times, before, outcome)
            )
    preview.rows.extend(_verified_rows(user, page, title, body))
    return preview


def _both(
    user: Any,
    page: Page,
    revision: Revision | None,
    title: str,
    body: str,
    texts: list[str],
    started: float,
    budget_s: float,
) -> tuple[list[Outcome | None], list[Outcome]]:
    """The answers now and with the text published. The "now" answers run on their own connection
    while this one indexes the draft and answers again (it sees only what is committed: the handbook
    as it is); inside a caller's transaction another connection would not see its rows, so there
    they run first, here."""
    deadline = started + budget_s
    if connections[DEFAULT_DB_ALIAS].in_atomic_block:
        now = _answers_now(user, texts, started + budget_s * NOW_SHARE)
        return now, _answers_with(user, page, revision, title, body, texts[: len(now)], deadline)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="impact-now") as pool:
        beside = pool.submit(_on_own_connection, _answers_now, user, texts, deadline)
        try:
            after = _answers_with(user, page, revision, title, body, texts, deadline)
        finally:
            now = beside.result()
    return now, after


def _on_own_connection(call: Any, *args: Any) -> Any:
    try:
        return call(*args)
    finally:
        connections.close_all()  # this thread's own: it ends with the preview


def _answers_now(user: Any, texts: list[str], deadline: float) -> list[Outcome | None]:
    """Ask's answers to ``texts`` now, in order, until ``deadline`` (None: not a question Ask takes)."""
    answers: list[Outcome | None] = []
    for text in texts:
        if time.monotonic() > deadline:
            break
        answers.append(answer_for_preview(user, text))
    return answers


def _answers_with(
    user: Any, page: Page, revision: Revision | None, title: str, body: str, questions: list[str], deadline: float
) -> list[Outcome]:
    """The answers to ``questions`` with the text published and indexed, in order, until ``deadline``;
    nothing of it outlives the call."""
    answers: list[Outcome] = []
    with rolled_back():
        if revision is None:
            number = (page.revisions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
            revision = Revision.objects.create(page=page, number=number, title=title, body=body, author=user)
        page_publish(page=page, revision=revision, author=user)
        page_reindex(page_id=page.pk, revision_id=revision.pk)
        for question in questions:
            if time.monotonic() > deadline:
                break
            outcome = answer_for_preview(user, question)
            answers.append(outcome if outcome is not None else Outcome("no_answer", ""))
    return answers
