"""Insights, "Pages to review": pages cited by answers rated "not helpful", to those who answer for them."""

from __future__ import annotations

import datetime
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache
from django.utils import timezone

from handbook.models import Page
from search.insights.rejected_pages import rejected_pages
from search.models import AskLog

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


def _rate(*pages: Any, helpful: bool | None, comment: str = "", days_ago: int = 0) -> AskLog:
    log = AskLog.objects.create(
        question="q",
        mode=AskLog.Mode.EXTRACTIVE,
        answer="a [1]",
        citations=[{"ref": p.ref, "anchor": "", "revision": 1, "quote": ""} for p in pages],
        passage_spaces=[p.space_id for p in pages],
        passage_pages=[p.pk for p in pages],
        helpful=helpful,
        comment=comment,
    )
    at = timezone.now() - datetime.timedelta(days=days_ago)
    AskLog.objects.filter(pk=log.pk).update(created_at=at)
    return log


@pytest.fixture
def world(make_space, make_page, make_user, no_embeddings) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    a = make_space("facilities", viewers=("staff",), editors=("a-editors",))
    b = make_space("payroll", viewers=("staff",), editors=("b-editors",))
    w = SimpleNamespace(
        owner=make_user("olga", "staff"),
        a_editor=make_user("ann", "staff", "a-editors"),
        b_editor=make_user("bob", "staff", "b-editors"),
        admin=make_user("root", superuser=True),
        garage=make_page(a, "Parking garage", "# Parking\n\nForty spaces.\n", ref="garage"),
        bikes=make_page(a, "Bike storage", "# Bikes\n\nIn the yard.\n", ref="bikes"),
        secret=make_page(a, "Board minutes", "# Minutes\n\nSecret.\n", restricted_to=("board",), ref="minutes"),
        bands=make_page(b, "Salary bands", "# Bands\n\nThe grid.\n", ref="bands"),
    )
    make_user("bea", "staff", "board")
    Page.objects.filter(pk=w.garage.pk).update(owner_user=w.owner)
    _rate(w.garage, helpful=False, comment="garagecomment", days_ago=3)
    _rate(w.garage, w.bikes, helpful=False, days_ago=1)
    _rate(w.garage, helpful=True)  # thumbs up: not counted
    _rate(w.bikes, helpful=None)  # not rated
    _rate(w.secret, helpful=False)
    _rate(w.bands, helpful=True)
    return w


def _listed(user: Any) -> dict[str, int]:
    return {item.page.ref: item.thumbs_down for item in rejected_pages(user)}


def test_the_owner_sees_their_rejected_page_with_the_count(world) -> None:  # type: ignore[no-untyped-def]
    items = rejected_pages(world.owner)
    assert [(i.page.ref, i.thumbs_down) for i in items] == [("garage", 2)]
    # The date of the most recent thumbs-down, not of the thumbs-up given since.
    assert timezone.now() - items[0].last_at > datetime.timedelta(hours=23)
    assert timezone.now() - items[0].last_at < datetime.timedelta(days=2)


def test_editors_of_the_space_answer_for_unowned_pages_only(world) -> None:  # type: ignore[no-untyped-def]
    # The garage is owned by someone else; the bikes page has no owner.
    assert _listed(world.a_editor) == {"bikes": 1}


def test_an_unrelated_editor_of_another_space_sees_nothing(world) -> None:  # type: ignore[no-untyped-def]
    assert _listed(world.b_editor) == {}  # the bands page got a thumbs-up only


def test_a_page_the_viewer_cannot_read_is_never_listed(world, make_user) -> None:  # type: ignore[no-untyped-def]
    # The restricted page has no owner: A's editors answer for it, but Ann is not in "board".
    assert "minutes" not in _listed(world.a_editor)
    # An editor of the space who may read it does see it.
    assert _listed(make_user("cyd", "staff", "a-editors", "board")) == {"bikes": 1, "minutes": 1}
    # Its owner does not, once they may no longer read it.
    Page.objects.filter(pk=world.secret.pk).update(owner_user=world.owner)
    assert "minutes" not in _listed(world.owner)


def test_superusers_see_every_rejected_page_most_rejected_first(world) -> None:  # type: ignore[no-untyped-def]
    # Ties: the most recently rejected first (the minutes today, the bikes a day ago).
    assert list(_listed(world.admin).items()) == [("garage", 2), ("minutes", 1), ("bikes", 1)]


def test_thumbs_up_alone_never_lists_a_page(world) -> None:  # type: ignore[no-untyped-def]
    AskLog.objects.filter(helpful=False).update(helpful=True)
    assert _listed(world.admin) == {}


def test_a_deleted_page_is_not_listed(world) -> None:  # type: ignore[no-untyped-def]
    Page.objects.filter(pk=world.garage.pk).update(deleted_at=timezone.now())
    assert _listed(world.owner) == {}


def test_the_insights_page_lists_them_without_comment_or_person(world, client) -> None:  # type: ignore[no-untyped-def]
    client.force_login(world.a_editor)
    html = client.get("/insights/").content.decode()
    section = html.split('id="rejected-pages-title"', 1)[1].split("</section>", 1)[0]
    assert "Bike storage" in section and 'class="rejected-page__count">1<' in section
    assert "Parking garage" not in section and "Board minutes" not in section
    assert "garagecomment" not in section and "olga" not in section


def test_anonymous_and_inactive_users_get_nothing(world) -> None:  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import AnonymousUser

    assert rejected_pages(AnonymousUser()) == []
    world.admin.is_active = False
    assert rejected_pages(world.admin) == []
