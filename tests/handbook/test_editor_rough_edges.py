"""Rough edges around writing pages: the empty preview, the owner list, the history's two
actions, templates kept out of readers' lists, imported pages, French quotes, the favicon."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from accounts.forms import TokenCreateForm
from handbook.forms import PageCreateForm, PageEditForm, PageMoveForm, PreviewForm
from handbook.models import Page
from handbook.page_templates import page_set_template
from handbook.services import page_save
from search.admin import index_overview
from tests.handbook.conftest import url

pytestmark = pytest.mark.django_db


@pytest.fixture
def template(handbook, make_page):  # type: ignore[no-untyped-def]
    page = make_page(handbook.hr, "Incident template", "# Incident\n\n## What happened\n", index=False)
    page_set_template(page=page, is_template=True)
    return page


def test_the_empty_new_page_preview_is_empty_not_none(client, handbook):
    client.force_login(handbook.editor)
    html = client.get("/spaces/hr/_new/").content.decode()
    preview = re.search(r'<div id="preview"[^>]*>(.*?)</div>', html, re.S)
    assert preview is not None and preview.group(1).strip() == ""


def test_the_new_page_preview_starts_with_the_template_text(client, handbook, template):
    client.force_login(handbook.editor)
    html = client.get(f"/spaces/hr/_new/?template={template.pk}").content.decode()
    assert re.search(r'<div id="preview"[^>]*>\s*<h1[^>]*>Incident</h1>', html)


@pytest.mark.parametrize(("language", "groups", "people"), [("en", "Groups", "People"), ("fr", "Groupes", "Personnes")])
def test_the_owner_list_labels_groups_and_people(client, handbook, language, groups, people):
    client.force_login(handbook.editor)
    with translation.override(language):
        html = client.get(url(handbook.remote, "edit"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    owner = html[html.index('name="owner"') : html.index("</select>", html.index('name="owner"'))]
    assert f'<optgroup label="{groups}">' in owner and f'<optgroup label="{people}">' in owner
    assert owner.index(groups) < owner.index("hr-editors") and owner.index(people) < owner.index("hreditor")


def test_history_says_how_publish_and_restore_differ(client, handbook):
    page_save(page=handbook.remote, title="Remote work", body="# Remote work\n\nFour days.\n", author=handbook.editor)
    client.force_login(handbook.editor)
    html = client.get(url(handbook.remote, "history")).content.decode()
    assert 'id="help-publish"' in html and "under its own number" in html
    assert 'id="help-restore"' in html and "new revision at the top of the history" in html
    assert 'aria-describedby="help-publish"' in html and 'aria-describedby="help-restore"' in html


def test_readers_tree_leaves_templates_out_editors_tree_marks_them(client, handbook, template):
    client.force_login(handbook.reader)
    html = client.get("/spaces/hr/").content.decode()
    assert "Remote work" in html and "Incident template" not in html
    client.force_login(handbook.editor)
    assert "Incident template" in client.get("/spaces/hr/").content.decode()


def test_parent_page_lists_leave_templates_out(handbook, template):
    create = PageCreateForm(space=handbook.hr, user=handbook.editor)
    parents = set(create.fields["parent"].queryset)  # type: ignore[attr-defined]
    assert handbook.remote in parents and template not in parents
    move = PageMoveForm(page=handbook.remote, user=handbook.editor)
    assert template not in set(move.fields["parent"].queryset)  # type: ignore[attr-defined]
    # A forged POST naming the template as parent is refused like any id not offered.
    forged = PageCreateForm(
        {"title": "Child", "language": "en", "parent": template.pk, "body": ""}, space=handbook.hr, user=handbook.editor
    )
    assert not forged.is_valid() and "parent" in forged.errors


def test_index_status_counts_a_template_apart_from_never_indexed(handbook, template):
    overview = index_overview()
    assert overview["templates"] == 1
    assert overview["missing"] == Page.objects.published().filter(index_state__isnull=True, is_template=False).count()


def test_an_imported_page_without_editor_names_nobody(client, handbook, make_page):
    page = make_page(handbook.hr, "Imported policy", "# Imported policy\n\nText.\n", index=False)
    Page.objects.filter(pk=page.pk).update(last_editor=None)
    client.force_login(handbook.reader)
    html = client.get(page.get_absolute_url()).content.decode()
    assert "Last edited by" not in html and not re.search(r"by\s*·", html)


@pytest.mark.parametrize("po", ["locale/fr/LC_MESSAGES/django.po", "accounts/locale/fr/LC_MESSAGES/django.po"])
def test_french_uses_guillemets_where_english_uses_curly_quotes(po):
    text = (Path(settings.BASE_DIR) / po).read_text(encoding="utf-8")
    translations = re.findall(r'^msgstr(?:\[\d\])? ((?:"[^\n]*"\n)+)', text, re.M)
    assert translations and not [t for t in translations if "“" in t or "”" in t]
    with translation.override("fr"):
        help_text = str(TokenCreateForm().fields["name"].help_text)
    assert "« robot de discussion »" in help_text


def test_every_page_names_its_favicon(client, handbook):
    icon = re.compile(r'<link rel="icon" href="/static/img/favicon\.svg"')
    # Django's admin and the error pages have their own base: without the link the browser asks for /favicon.ico.
    assert icon.search(client.get("/admin/login/").content.decode())
    assert icon.search(render_to_string("500.html")) and icon.search(render_to_string("400.html"))
    client.force_login(handbook.reader)
    assert icon.search(client.get("/").content.decode())
    assert client.get("/static/img/favicon.svg").status_code == 200


@pytest.mark.parametrize("form_class", [PageEditForm, PreviewForm])
def test_the_body_keeps_every_character_but_stores_lf_line_breaks(form_class):
    body = "---\ntitle: x\n---\r\n\r\n# Title  \r\n\tindented\u00a0text   \r\nlast  "
    data = {"title": "T", "body": body, "base_number": 1}
    form = form_class(data)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["body"] == body.replace("\r\n", "\n")
