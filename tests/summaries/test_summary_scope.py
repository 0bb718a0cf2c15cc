"""No side channel: picks on pages some staff cannot read never change the weights, so never change
what any reader sees (summaries/scorer_fit.py, README "Summary picks")."""

from __future__ import annotations

import pytest

from handbook.permissions import pages_everyone_reads
from summaries.models import SummaryPick
from summaries.scorer_fit import MIN_TICKED_PAGES, summary_scorer_refit
from summaries.services import summary_generate
from tests.summaries.ticked_pages import body, make_ticked

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    make_user("reader", "staff")
    make_user("boss", "staff", "board")
    make_user("nobody")  # in no group: reads nothing, sees no summary, constrains nothing
    open_space = make_space("handbook", viewers=("staff",))
    board = make_space("board", viewers=("board",))
    public = make_ticked(make_page, open_space, MIN_TICKED_PAGES, 0)
    restricted_page = make_page(open_space, "Pay scales", body(300), restricted_to=("board",), index=False)
    secret = make_ticked(make_page, board, MIN_TICKED_PAGES, -1, start=100)
    return public, secret, restricted_page


def test_only_pages_every_reader_reads_teach(world) -> None:  # type: ignore[no-untyped-def]
    public, secret, restricted_page = world
    everyone = pages_everyone_reads()
    assert {p.pk for p in public} <= everyone
    assert not everyone & ({p.pk for p in secret} | {restricted_page.pk})


def test_ticks_in_a_restricted_space_leave_the_weights_and_summaries_unchanged(world, make_page) -> None:  # type: ignore[no-untyped-def]
    """GIVEN 20 ticked pages everyone reads WHEN a board-only space gets 20 pages ticked the other
    way THEN the fitted weights, the fit report and a reader's summary are the same as without them."""
    public, _secret, _restricted = world
    probe = make_page(public[0].space, "Probe", body(999), index=False)

    with_secret = summary_scorer_refit()
    text_with = summary_generate(page_id=probe.pk, revision_id=None, force=True).text
    SummaryPick.objects.filter(page__space__slug="board").delete()
    without = summary_scorer_refit()
    text_without = summary_generate(page_id=probe.pk, revision_id=None, force=True).text

    assert with_secret.in_use and without.in_use
    assert with_secret.weights == without.weights
    assert {k: v for k, v in with_secret.report.items() if k != "date"} == {
        k: v for k, v in without.report.items() if k != "date"
    }
    assert text_with == text_without


def test_restricting_a_ticked_page_refits_the_weights_without_it(world, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    """GIVEN weights fitted from 20 ticked pages everyone reads WHEN one of them is restricted to the
    board THEN the weights are fitted again at once (not at the next pick), without that page's ticks."""
    from django.contrib.auth.models import Group

    from handbook.services import page_set_restrictions
    from summaries.models import SummaryScorerFit

    public, _secret, _restricted = world
    assert summary_scorer_refit().report["pages"] == MIN_TICKED_PAGES
    with django_capture_on_commit_callbacks(execute=True):
        page_set_restrictions(page=public[0], groups=[Group.objects.get(name="board")])
    latest = SummaryScorerFit.objects.order_by("-pk").first()
    assert latest is not None and latest.report["pages"] == MIN_TICKED_PAGES - 1
    assert not latest.in_use  # below the threshold now: the shipped weights serve
