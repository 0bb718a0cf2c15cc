"""In Chromium: every page of the demo handbook goes through the Markdown editor and comes back as
it was. The editor shows each page's text character for character, and saving it untouched stores
nothing new: the stored Markdown is what a hand-written page holds."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_every_demo_page_goes_through_the_editor_unchanged(watched, live_server, settings, tmp_path):
    from django.core.management import call_command

    from handbook.models import Page

    settings.MEDIA_ROOT = tmp_path / "media"
    call_command("seed_demo", verbosity=0)
    pages = list(Page.objects.filter(deleted_at__isnull=True).select_related("space").order_by("pk"))
    assert len(pages) >= 30  # the whole demo, English and French
    before = {p.pk: (p.revisions.count(), p.revisions.order_by("-number").first().body) for p in pages}

    page = watched.page
    log_in(page, live_server.url, "admin", "admin-demo")
    for demo in pages:
        count, body = before[demo.pk]
        page.goto(f"{live_server.url}{demo.get_absolute_url()}edit/")
        editor = page.locator(".EasyMDEContainer .CodeMirror")
        expect(editor).to_be_visible()
        shown = editor.evaluate("el => el.CodeMirror.getValue()")
        assert shown == body, demo.title  # what the editor shows
        assert page.locator("#id_body").input_value() == body, demo.title  # what the form posts
        page.get_by_role("button", name="Save draft").click()
        expect(page.locator(".messages")).to_contain_text("Nothing changed.")
        assert demo.revisions.count() == count, demo.title
        assert demo.revisions.order_by("-number").first().body == body, demo.title
