"""Page templates (handbook/page_templates.py): offered by "New page", read like pages, never found."""

from __future__ import annotations

import pytest

from handbook.models import Page
from handbook.page_templates import page_set_template
from search.indexing.pipeline import pages_needing_index
from search.models import Chunk
from search.selectors import search_pages
from summaries.selectors import pages_without_current_summary, summary_for_page
from summaries.services import summary_generate

pytestmark = pytest.mark.django_db

TEMPLATE = (
    "# Meeting notes\n\n## Attendees\n\nList who came.\n\n## Decisions\n\n"
    "Write each decision and its zanzibarword owner.\n"
)


@pytest.fixture
def template(handbook, make_page, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    page = make_page(handbook.hr, "Meeting notes template", TEMPLATE)
    assert Chunk.objects.filter(page=page).exists()  # indexed as a page first
    with django_capture_on_commit_callbacks(execute=True):
        page_set_template(page=page, is_template=True)
    return page


def test_a_template_is_never_indexed_found_or_summarised(handbook, template):
    assert not Chunk.objects.filter(page=template).exists()  # marking it removed its chunks
    assert search_pages(user=handbook.reader, query="zanzibarword").total == 0
    assert not pages_needing_index().filter(pk=template.pk).exists()  # the sweep leaves it alone
    assert pages_without_current_summary(Page.objects.filter(pk=template.pk)) == []
    assert summary_generate(page_id=template.pk, revision_id=None) is None
    assert summary_for_page(page=template, user=handbook.reader).summary is None


def test_a_template_is_still_read_as_a_page_but_only_editors_see_it_in_the_tree(client, handbook, template):
    client.force_login(handbook.reader)
    assert "Decisions" in client.get(template.get_absolute_url()).content.decode()
    tree = client.get("/spaces/hr/").content.decode()
    assert "Meeting notes template" not in tree and "badge--template" not in tree
    client.force_login(handbook.editor)
    tree = client.get("/spaces/hr/").content.decode()
    assert "Meeting notes template" in tree and "badge--template" in tree


def test_a_page_that_stops_being_a_template_is_indexed_again(handbook, template, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        page_set_template(page=template, is_template=False)
    assert Chunk.objects.filter(page=template).exists()
    assert search_pages(user=handbook.reader, query="zanzibarword").total == 1


def test_new_page_offers_the_space_templates_and_prefills_the_text(client, handbook, template, make_page):
    make_page(handbook.it, "IT template", "# IT\n")
    page_set_template(page=Page.objects.get(title="IT template"), is_template=True)
    client.force_login(handbook.editor)
    form = client.get("/spaces/hr/_new/").content.decode()
    assert "Start from template" in form and "Meeting notes template" in form and "IT template" not in form
    filled = client.get(f"/spaces/hr/_new/?template={template.pk}").content.decode()
    assert "## Attendees" in filled
    other = Page.objects.get(title="IT template")
    assert "# IT" not in client.get(f"/spaces/hr/_new/?template={other.pk}").content.decode()  # another space's
    response = client.post(
        "/spaces/hr/_new/", {"title": "Team meeting", "body": TEMPLATE, "language": "en", "action": "publish"}
    )
    created = Page.objects.get(title="Team meeting")
    assert response.status_code == 302 and created.is_published and not created.is_template


def test_editors_mark_a_page_as_a_template_in_the_editor_and_on_creation(client, handbook):
    client.force_login(handbook.editor)
    client.post(
        "/spaces/hr/_new/",
        {
            "title": "Onboarding checklist",
            "body": "# Steps\n",
            "language": "en",
            "action": "publish",
            "tpl-is_template": "on",
        },
    )
    page = Page.objects.get(title="Onboarding checklist")
    assert page.is_template
    edit = {"title": page.title, "body": "# Steps\n\n1.\n", "base_number": 1, "note": "", "action": "publish"}
    client.post(page.get_absolute_url() + "edit/", {**edit, "tpl-shown": "1"})  # the box unticked
    assert not Page.objects.get(pk=page.pk).is_template
    client.post(page.get_absolute_url() + "edit/", {**edit, "base_number": 2, "body": "# Steps\n\n2.\n"})
    assert not Page.objects.get(pk=page.pk).is_template  # a form without the box leaves it
    assert "This page is a template" in client.get(page.get_absolute_url() + "edit/").content.decode()
