"""Refitting the sentence weights from editors' picks (the ``refit_summary_scorer`` task's work).

- **No side channel.** One set of weights chooses every reader's summaries, so only picks on
  pages every member of staff may read teach it: what a reader sees is then a function of
  content that reader may read. A page that gets restricted drops out at once: a change of who
  reads a ticked page (its restrictions, its space's readers) or of the page itself queues a
  refit (``summaries/apps.py``, ``services.summary_enqueue``). A change of an account's groups
  does not: the weights follow it at the next refit.
- **Enough pages.** The fit serves from ``MIN_TICKED_PAGES`` ticked pages, and only when, held
  out, it agrees with the editors at least as well as the shipped weights; below that the
  shipped weights serve. The report says both figures.
- A pick teaches while it is a pick of the published text: after an edit the page's sentences
  are no longer the ones the editor judged.
"""

from __future__ import annotations

import logging

from django.db import transaction
from kombu.exceptions import OperationalError

from config.numbers import MIN_TICKED_PAGES
from core.queues import BULK, enqueue
from handbook.models import Page
from handbook.permissions import pages_everyone_reads
from summaries.fitting import Lesson, fit_report, fit_scorer, held_out_f1, lesson
from summaries.learnt import current_scorer, shipped_scorer
from summaries.models import Summary, SummaryPick, SummaryScorerFit
from summaries.selectors import source_hash, summary_method

logger = logging.getLogger(__name__)

RULE = "picks on published pages every active account with a group may read"


def teaching_picks() -> list[SummaryPick]:
    """Picks that may teach: on pages everyone reads, of the text now published."""
    picks = SummaryPick.objects.filter(page_id__in=pages_everyone_reads()).select_related(
        "revision", "page__published_revision"
    )
    current = []
    for pick in picks.order_by("page_id"):
        published = pick.page.published_revision
        if published and source_hash(published.title, published.body) == source_hash(
            pick.revision.title, pick.revision.body
        ):
            current.append(pick)
    return current


def pick_lessons(picks: list[SummaryPick]) -> list[Lesson]:
    found = []
    for pick in picks:
        taught = lesson(
            key=pick.page.ref,
            markdown=pick.revision.body,
            title=pick.revision.title,
            language=pick.page.language,
            picked=set(pick.units),
        )
        if taught is not None:
            found.append(taught)
    return found


def summary_scorer_refit() -> SummaryScorerFit:
    """Fit the weights from the picks that may teach, store the fit with its report, and queue
    the summaries of every page again when the weights in use changed."""
    before = current_scorer().label
    lessons = pick_lessons(teaching_picks())
    shipped = shipped_scorer()
    scorer = None
    try:
        scorer = fit_scorer(lessons, "") if lessons else None
    except ValueError:  # every candidate ticked, or none: nothing to learn from
        scorer = None
    held_out = held_out_f1(lessons, shipped) if len(lessons) >= 2 else {}
    in_use = bool(
        scorer is not None
        and len(lessons) >= MIN_TICKED_PAGES
        and held_out.get("learnt", 0.0) >= held_out.get("shipped", 0.0)
    )
    report = fit_report(lessons, scorer, held_out, min_pages=MIN_TICKED_PAGES, rule=RULE, in_use=in_use)
    with transaction.atomic():
        SummaryScorerFit.objects.filter(in_use=True).update(in_use=False)
        fit = SummaryScorerFit.objects.create(weights=scorer.as_dict() if scorer else {}, report=report, in_use=in_use)
    logger.info("summary weights refitted: %s pages, in use: %s", len(lessons), in_use)
    if current_scorer().label != before:
        transaction.on_commit(_resummarise_all)
    return fit


def _resummarise_all() -> None:
    """Pages nobody picked get their sentences chosen by the new weights (cheap: no model call)."""
    if summary_method() != Summary.Method.EXTRACTIVE:
        return  # the weights choose extractive summaries only
    for page_id, revision_id in (
        Page.objects.published().filter(is_template=False).values_list("pk", "published_revision_id")
    ):
        enqueue("summaries.tasks.summarise_page", page_id, revision_id, queue=BULK)


def refit_enqueue() -> None:
    """Queue a refit once the pick is committed (``transaction.on_commit``)."""

    def send() -> None:
        try:
            enqueue("summaries.tasks.refit_summary_scorer", queue=BULK)  # nobody waits on it
        except OperationalError as exc:  # the next pick queues it again
            logger.error("could not enqueue the summary weights refit: %s", exc)

    transaction.on_commit(send)
