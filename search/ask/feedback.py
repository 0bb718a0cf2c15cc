"""Feedback on answers: thumbs up/down, an optional comment, and the space that should answer.

A "not helpful" reaches editors on their Insights page (``search/insights/``): those of the spaces the
answer's passages came from, under the Insights visibility rule, and, when the asker names one,
the editors of that space. The asker may name only a space they can read: the list offered is
theirs, and a space outside it is refused here, whatever the browser sends.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from config.numbers import FEEDBACK_MAX_COMMENT_CHARS as MAX_COMMENT_CHARS
from handbook.models import Space
from search.models import AskLog


class FeedbackError(ValueError):
    pass


def feedback_spaces(user: Any) -> QuerySet[Space]:
    """The spaces an asker may name as the one that should answer: those they can read."""
    return Space.objects.visible_to(user).order_by("title")


def feedback_record(*, user: Any, log_id: int, helpful: bool, comment: str = "", space_id: int | None = None) -> AskLog:
    # Only the person who asked may rate an answer: the log id comes from the browser.
    log = AskLog.objects.filter(pk=log_id, user_id=user.pk).first()
    if log is None:
        raise FeedbackError("That answer was not found.")
    space = None
    if space_id is not None and not helpful:
        space = feedback_spaces(user).filter(pk=space_id).first()
        if space is None:
            raise FeedbackError("That space was not found.")
    log.helpful = helpful
    log.comment = (comment or "").strip()[:MAX_COMMENT_CHARS]
    # A thumbs-up takes back any space named with an earlier thumbs-down.
    log.feedback_space = space
    log.save(update_fields=["helpful", "comment", "feedback_space"])
    return log
