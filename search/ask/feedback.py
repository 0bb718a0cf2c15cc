"""Feedback on answers: thumbs up/down with an optional comment."""

from __future__ import annotations

from typing import Any

from search.models import AskLog

MAX_COMMENT_CHARS = 2000


class FeedbackError(ValueError):
    pass


def feedback_record(*, user: Any, log_id: int, helpful: bool, comment: str = "") -> AskLog:
    # Only the person who asked may rate an answer: the log id comes from the browser.
    log = AskLog.objects.filter(pk=log_id, user_id=getattr(user, "pk", None)).first()
    if log is None:
        raise FeedbackError("That answer was not found.")
    log.helpful = helpful
    log.comment = (comment or "").strip()[:MAX_COMMENT_CHARS]
    log.save(update_fields=["helpful", "comment"])
    return log
