"""Page views: counted per page and day without the reader; pages nobody opened go to review."""

from __future__ import annotations

import datetime
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

from handbook.models import Page, PageViewDay
from handbook.page_views import page_view_record, page_views_purge
from search.insights.logs import logs_purge
from search.insights.pages_to_review import pages_not_viewed

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _age(page: Page, days: int) -> None:
    Page.objects.filter(pk=page.pk).update(created_at=timezone.now() - timedelta(days=days))


@pytest.fixture
def world(make_space, make_page, make_user, no_embeddings) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    a = make_space("facilities", viewers=("staff",), editors=("a-editors",))
    b = make_space("payroll", viewers=("payroll",), editors=("b-editors",))
    old = make_page(a, "Old parking rules", "# Old parking rules\n\nBadges.", index=False)
    read = make_page(a, "Canteen", "# Canteen\n\nLunch at noon.", index=False)
    fresh = make_page(a, "New desk booking", "# New desk booking\n\nBook a desk.", index=False)
    secret = make_page(a, "Board minutes", "# Board minutes\n\nSecret.", restricted_to=("board",), index=False)
    bands = make_page(b, "Salary bands", "# Salary bands\n\nGrid.", index=False)
    for page in (old, read, secret, bands):
        _age(page, 200)
    today = timezone.localdate()
    # Views have been counted for months: the canteen was opened last week, the old rules in spring.
    PageViewDay.objects.create(page=read, day=today - timedelta(days=7), views=3)
    PageViewDay.objects.create(page=old, day=today - timedelta(days=150), views=2)
    return SimpleNamespace(
        a=a,
        b=b,
        old=old,
        read=read,
        fresh=fresh,
        secret=secret,
        bands=bands,
        editor=make_user("ana", "staff", "a-editors"),
        payroll_editor=make_user("bea", "payroll", "b-editors"),
        reader=make_user("carl", "staff"),
    )


def test_a_reader_opening_a_page_counts_one_view_of_the_day_without_the_reader(client, world):
    client.force_login(world.reader)
    for _ in range(3):
        assert client.get(world.fresh.get_absolute_url()).status_code == 200
    client.head(world.fresh.get_absolute_url())  # not a reader opening it
    client.get(f"/spaces/{world.a.slug}/{world.fresh.slug}/history/")  # not the page itself
    row = PageViewDay.objects.get(page=world.fresh)
    assert (row.day, row.views) == (timezone.localdate(), 3)
    fields = {f.name for f in PageViewDay._meta.get_fields()}
    assert fields == {"id", "page", "day", "views"}


def test_a_page_the_reader_may_not_open_counts_nothing(client, world):
    client.force_login(world.reader)
    assert client.get(world.secret.get_absolute_url()).status_code == 404
    client.logout()
    client.get(world.fresh.get_absolute_url())  # signed out: sent to the login page
    assert not PageViewDay.objects.filter(page__in=[world.secret, world.fresh]).exists()


def test_pages_nobody_opened_in_90_days_are_listed_for_their_editors_only(world):
    assert [p.title for p in pages_not_viewed(world.editor)] == ["Old parking rules"]
    assert [p.title for p in pages_not_viewed(world.payroll_editor)] == ["Salary bands"]
    assert pages_not_viewed(world.reader) == []  # edits nothing, owns nothing


def test_an_owner_is_told_and_a_hidden_page_never_is(world, make_user):
    owner = make_user("dan", "staff")
    Page.objects.filter(pk=world.bands.pk).update(owner_user=owner)  # a page dan may not read
    Page.objects.filter(pk=world.old.pk).update(owner_user=owner)
    assert [p.title for p in pages_not_viewed(owner)] == ["Old parking rules"]
    # The board page is unread too, but only board members (among the space editors) may read it.
    board = make_user("eve", "staff", "a-editors", "board")
    assert [p.title for p in pages_not_viewed(board)] == ["Board minutes"]


def test_a_superuser_sees_every_unopened_page(world, make_user):
    root = make_user("root", superuser=True)
    assert {p.title for p in pages_not_viewed(root)} == {"Old parking rules", "Salary bands", "Board minutes"}


def test_nothing_is_listed_before_views_were_counted_for_90_days(world):
    PageViewDay.objects.filter(day__lt=timezone.localdate() - timedelta(days=89)).delete()
    assert pages_not_viewed(world.editor) == []


def test_insights_lists_the_unopened_pages_under_pages_to_review(client, world):
    client.force_login(world.editor)
    body = client.get("/insights/").content.decode()
    assert "Old parking rules" in body
    assert "Salary bands" not in body and "Board minutes" not in body
    assert "Canteen" not in body and "New desk booking" not in body
    client.force_login(world.payroll_editor)
    body = client.get("/insights/").content.decode()
    assert "Salary bands" in body and "Old parking rules" not in body


def test_view_counts_older_than_a_year_are_purged(world):
    today = timezone.localdate()
    kept = PageViewDay.objects.create(page=world.fresh, day=today - timedelta(days=364), views=1)
    PageViewDay.objects.create(page=world.bands, day=today - timedelta(days=366), views=1)
    assert page_views_purge() == 1
    assert PageViewDay.objects.filter(pk=kept.pk).exists()
    PageViewDay.objects.create(page=world.bands, day=datetime.date(2000, 1, 1), views=1)
    assert logs_purge()["page_views"] == 1


def test_recording_twice_a_day_adds_up(world):
    page_view_record(world.fresh)
    page_view_record(world.fresh)
    page_view_record(world.fresh, day=timezone.localdate() - timedelta(days=1))
    assert sorted(PageViewDay.objects.filter(page=world.fresh).values_list("views", flat=True)) == [1, 2]
