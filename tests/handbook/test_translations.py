"""Linked translations: who may link, the twin link on the page (never to a reader who cannot read
the twin), and the "translation may be out of date" flag."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from handbook.models import Page
from handbook.services import page_save
from handbook.translations.selectors import outdated_translations
from handbook.translations.services import TranslationError, translation_link, translation_unlink
from tests.handbook.conftest import url

pytestmark = pytest.mark.django_db

TELETRAVAIL = "# Télétravail\n\nJusqu'à trois jours de télétravail par semaine.\n"


@pytest.fixture
def twins(handbook, make_page):  # type: ignore[no-untyped-def]
    """hr's "Remote work" (en) and its French twin "Télétravail", linked by an hr editor."""
    french = make_page(handbook.hr, "Télétravail", TELETRAVAIL, language="fr")
    translation_link(page=handbook.remote, twin=french, user=handbook.editor)
    handbook.remote.refresh_from_db()
    french.refresh_from_db()
    handbook.french = french
    return handbook


def _client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def test_link_is_symmetric_and_unlink_clears_both(twins):
    assert twins.remote.translation_id == twins.french.pk
    assert twins.french.translation_id == twins.remote.pk
    translation_unlink(page=twins.french, user=twins.editor)
    assert Page.objects.filter(pk__in=[twins.remote.pk, twins.french.pk], translation__isnull=False).count() == 0


def test_linking_replaces_an_old_link_on_both_sides(twins, make_page):
    other = make_page(twins.hr, "Travail à distance", TELETRAVAIL, language="fr")
    translation_link(page=twins.remote, twin=other, user=twins.editor)
    assert Page.objects.get(pk=twins.french.pk).translation_id is None
    assert Page.objects.get(pk=other.pk).translation_id == twins.remote.pk
    assert Page.objects.get(pk=twins.remote.pk).translation_id == other.pk


def test_linking_rules(handbook, make_page):
    french_it = make_page(handbook.it, "Accès VPN", "# Accès VPN\n\nInstallez le client.\n", language="fr")
    english = make_page(handbook.hr, "Holidays", "# Holidays\n\nTwenty-five days.\n")
    with pytest.raises(TranslationError):  # same language
        translation_link(page=handbook.remote, twin=english, user=handbook.editor)
    with pytest.raises(TranslationError):  # itself
        translation_link(page=handbook.remote, twin=handbook.remote, user=handbook.editor)
    with pytest.raises(TranslationError):  # an hr editor does not edit the it space
        translation_link(page=handbook.remote, twin=french_it, user=handbook.editor)
    with pytest.raises(TranslationError):  # a reader edits neither
        translation_link(page=handbook.vpn, twin=french_it, user=handbook.reader)
    translation_link(page=handbook.remote, twin=french_it, user=handbook.both)  # edits both spaces
    assert Page.objects.get(pk=french_it.pk).translation_id == handbook.remote.pk


def test_translations_view_links_only_editable_pages(handbook, make_page):
    french_it = make_page(handbook.it, "Accès VPN", "# Accès VPN\n\nInstallez le client.\n", language="fr")
    editor = _client(handbook.editor)
    page = editor.get(url(handbook.remote, "translations"))
    assert page.status_code == 200 and "Accès VPN" not in page.content.decode()
    refused = editor.post(url(handbook.remote, "translations"), {"action": "link", "twin": french_it.pk})
    assert refused.status_code == 200 and Page.objects.get(pk=french_it.pk).translation_id is None
    assert _client(handbook.reader).get(url(handbook.remote, "translations")).status_code == 403
    both = _client(handbook.both)
    assert "Accès VPN" in both.get(url(handbook.remote, "translations")).content.decode()
    done = both.post(url(handbook.remote, "translations"), {"action": "link", "twin": french_it.pk})
    assert done.status_code == 302 and Page.objects.get(pk=french_it.pk).translation_id == handbook.remote.pk
    both.post(url(handbook.remote, "translations"), {"action": "unlink"})
    assert Page.objects.get(pk=french_it.pk).translation_id is None


def test_page_links_to_a_readable_twin_in_its_language(twins):
    reader = _client(twins.reader)
    english = reader.get(url(twins.remote)).content.decode()
    assert "Version française" in english and url(twins.french) in english
    assert "English version" in reader.get(url(twins.french)).content.decode()


def test_a_hidden_twin_is_never_revealed(twins):
    """GIVEN the French twin restricted to payroll WHEN a plain reader opens the English page
    THEN it is byte for byte the page they get when the two are not linked."""
    twins.french.restricted_to_groups.set([Group.objects.get_or_create(name="payroll")[0]])
    assert "Version française" in _client(twins.payroll).get(url(twins.remote)).content.decode()
    reader = _client(twins.reader)
    linked = reader.get(url(twins.remote)).content.decode()
    assert "Version française" not in linked and url(twins.french) not in linked
    translation_unlink(page=twins.remote, user=twins.editor)  # an editor of either side may unlink
    unlinked = reader.get(url(twins.remote)).content.decode()
    assert _without_tokens(linked) == _without_tokens(unlinked)


def _without_tokens(html: str) -> str:
    return re.sub(r'(csrfmiddlewaretoken" value=|x-csrftoken": )"[^"]*"', "", html)


def test_publishing_one_side_flags_the_other_and_publishing_it_clears(twins):
    page_save(page=twins.remote, title="Remote work", body="# Remote work\n\nUp to two days.\n", author=twins.editor)
    french = Page.objects.get(pk=twins.french.pk)
    assert french.translation_outdated_since is not None
    assert Page.objects.get(pk=twins.remote.pk).translation_outdated_since is None
    editor = _client(twins.editor)
    assert "Translation may be out of date" in editor.get(url(french)).content.decode()
    assert "Translation may be out of date" not in _client(twins.reader).get(url(french)).content.decode()
    assert [p.pk for p in outdated_translations(twins.editor)] == [french.pk]  # no owner: its space's editors
    assert outdated_translations(twins.reader) == []
    # Catching up clears the flag, and does not flag the original back.
    page_save(page=french, title="Télétravail", body="# Télétravail\n\nJusqu'à deux jours.\n", author=twins.editor)
    assert Page.objects.get(pk=french.pk).translation_outdated_since is None
    assert Page.objects.get(pk=twins.remote.pk).translation_outdated_since is None


def test_a_draft_flags_nothing_and_an_editor_may_dismiss(twins):
    page_save(page=twins.remote, title="Remote work", body="# Remote work\n\nDraft.\n", publish=False)
    assert Page.objects.get(pk=twins.french.pk).translation_outdated_since is None
    page_save(page=twins.remote, title="Remote work", body="# Remote work\n\nPublished.\n")
    french = Page.objects.get(pk=twins.french.pk)
    assert french.translation_outdated_since is not None
    assert _client(twins.reader).post(url(french, "translations/dismiss")).status_code == 403
    assert _client(twins.editor).post(url(french, "translations/dismiss")).status_code == 302
    assert Page.objects.get(pk=french.pk).translation_outdated_since is None


def test_flag_is_not_shown_to_an_editor_who_cannot_read_the_twin(twins):
    from django.contrib.auth.models import Group

    page_save(page=twins.french, title="Télétravail", body="# Télétravail\n\nModifié.\n")
    twins.french.restricted_to_groups.set([Group.objects.get(name="payroll")])
    flagged = Page.objects.get(pk=twins.remote.pk)
    assert flagged.translation_outdated_since is not None
    html = _client(twins.editor).get(url(flagged)).content.decode()
    assert "Translation may be out of date" not in html and "Version française" not in html
    assert outdated_translations(twins.editor) == []


def test_insights_lists_the_flagged_translation(twins):
    page_save(page=twins.remote, title="Remote work", body="# Remote work\n\nChanged.\n")
    html = _client(twins.editor).get("/insights/").content.decode()
    assert "Translations that may be out of date" in html and url(twins.french) in html


def test_french_interface(twins):
    page_save(page=twins.remote, title="Remote work", body="# Remote work\n\nChanged.\n")
    editor = _client(twins.editor)
    html = editor.get(url(twins.french), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Traductions" in html and "La traduction n’est peut-être plus à jour" in html
    assert "English version" in html  # worded in the twin's language, whatever the interface's
