"""The summary picker: editors pick, the page shows the pick until its text changes, readers never
see the picker (and cannot post to it)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from handbook.services import page_save
from summaries.models import SummaryPick
from summaries.picks import PickError, summary_pick_save
from tests.summaries.ticked_pages import body, candidates_of

pytestmark = pytest.mark.django_db

BODY = """# Remote work

Staff may work remotely up to three days per week once their trial period is over.
Agree your remote days with your manager and record them in the team calendar.

## Equipment

The company provides a laptop, a screen and a headset for home use.
Report a theft of company equipment within 24 hours.
"""


@pytest.fixture
def site(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    from types import SimpleNamespace

    space = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    page = make_page(space, "Remote work", BODY)
    editor = make_user("alice", "staff", "hr-editors")
    editor.first_name, editor.last_name = "Alice", "Martin"
    editor.save()
    return SimpleNamespace(page=page, editor=editor, reader=make_user("bob", "staff"))


def _client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _url(page) -> str:  # type: ignore[no-untyped-def]
    return reverse("summary_pick", kwargs={"space_slug": page.space.slug, "page_slug": page.slug})


def test_an_editor_picks_and_the_page_shows_the_pick(site) -> None:  # type: ignore[no-untyped-def]
    client = _client(site.editor)
    html = client.get(site.page.get_absolute_url()).content.decode()
    assert "Choose the summary sentences" in html and 'name="unit"' in html
    units = candidates_of(site.page)
    response = client.post(_url(site.page), {"revision": site.page.published_revision_id, "unit": [units[3]]})
    assert response.status_code == 302 and response["Location"].endswith("#page-summary")

    pick = SummaryPick.objects.get(page=site.page)
    assert pick.units == [units[3]] and pick.editor == site.editor and pick.revision == site.page.published_revision
    reader_html = _client(site.reader).get(site.page.get_absolute_url()).content.decode()
    assert 'data-summary="picked">Report a theft of company equipment within 24 hours.</p>' in reader_html
    assert "Picked by Alice Martin" in reader_html
    assert "Choose the summary sentences" not in reader_html and 'name="unit"' not in reader_html


def test_htmx_swaps_the_panel_and_unticking_everything_drops_the_pick(site) -> None:  # type: ignore[no-untyped-def]
    client = _client(site.editor)
    units = candidates_of(site.page)
    revision = site.page.published_revision_id
    response = client.post(_url(site.page), {"revision": revision, "unit": units[:2]}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert html.startswith('<section class="summary" id="page-summary"') and "Picked by" in html
    assert html.count("checked") == 2
    client.post(_url(site.page), {"revision": revision}, headers={"HX-Request": "true"})
    assert not SummaryPick.objects.exists()


def test_after_an_edit_the_chosen_summary_returns_flagged(site) -> None:  # type: ignore[no-untyped-def]
    summary_pick_save(
        page=site.page,
        editor=site.editor,
        revision_id=site.page.published_revision_id,
        units=candidates_of(site.page)[3:],
    )
    page_save(page=site.page, title="Remote work", body=BODY + "\nNew rules apply from March onwards for everyone.\n")
    site.page.refresh_from_db()
    html = _client(site.reader).get(site.page.get_absolute_url()).content.decode()
    assert "Picked by Alice" not in html and "page changed since the editor's pick" in html
    assert 'data-summary="picked"' not in html


def test_a_pick_on_an_older_revision_or_a_foreign_unit_is_refused(site) -> None:  # type: ignore[no-untyped-def]
    old = site.page.published_revision_id
    page_save(page=site.page, title="Remote work", body=body(3))
    site.page.refresh_from_db()
    with pytest.raises(PickError, match="page changed while you were choosing"):
        summary_pick_save(page=site.page, editor=site.editor, revision_id=old, units=[])
    with pytest.raises(PickError, match="not on the published page"):
        summary_pick_save(
            page=site.page, editor=site.editor, revision_id=site.page.published_revision_id, units=["0" * 16]
        )
    response = _client(site.editor).post(
        _url(site.page), {"revision": old, "unit": candidates_of(site.page)[:1]}, headers={"HX-Request": "true"}
    )
    assert "page changed while you were choosing" in response.content.decode()
    assert not SummaryPick.objects.exists()


def test_readers_and_strangers_cannot_pick(site, make_user) -> None:  # type: ignore[no-untyped-def]
    data = {"revision": site.page.published_revision_id, "unit": candidates_of(site.page)[:1]}
    assert _client(site.reader).post(_url(site.page), data).status_code == 403
    assert _client(make_user("eve", "other")).post(_url(site.page), data).status_code == 404
    assert Client().post(_url(site.page), data).status_code == 302  # to the login page
    assert _client(site.editor).get(_url(site.page)).status_code == 405
    assert not SummaryPick.objects.exists()


def test_the_picker_speaks_french(site) -> None:  # type: ignore[no-untyped-def]
    client = _client(site.editor)
    client.cookies["django_language"] = "fr"
    html = client.get(site.page.get_absolute_url(), headers={"Accept-Language": "fr"}).content.decode()
    assert "Choisir les phrases du résumé" in html


def test_a_saved_pick_queues_a_refit_once_committed(site, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    from summaries.models import SummaryScorerFit

    with django_capture_on_commit_callbacks(execute=True):
        summary_pick_save(
            page=site.page,
            editor=site.editor,
            revision_id=site.page.published_revision_id,
            units=candidates_of(site.page)[:1],
        )
    fit = SummaryScorerFit.objects.get()  # the task ran (eager in tests)
    assert fit.report["pages"] == 1 and not fit.in_use


def test_a_page_with_nothing_to_summarise_offers_editors_the_picker_only(make_space, make_page, make_user) -> None:  # type: ignore[no-untyped-def]
    space = make_space("it", viewers=("staff",), editors=("it-editors",))
    page = make_page(space, "Links", "# Links\n\n- [VPN](/spaces/it/vpn/)\n- [Laptops](/spaces/it/laptops/)\n")
    editor_html = _client(make_user("carol", "staff", "it-editors")).get(page.get_absolute_url()).content.decode()
    assert "No sentence of this page reads as a summary" in editor_html
    assert 'id="page-summary"' not in _client(make_user("dan", "staff")).get(page.get_absolute_url()).content.decode()
