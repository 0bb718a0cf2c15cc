"""An imported tree reads as a handbook: folder titles for generic READMEs, siblings told apart, no empty
or stub pages, the site's language for pages too short to tell, and "Imported" where nobody edited."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from django.test import Client

from handbook.markdown_import.admin_upload import import_zip
from handbook.markdown_import.site_config import read_site_config
from handbook.markdown_import.tree_shape import fold
from handbook.models import Page
from handbook.services import page_save
from tests.handbook.test_import_markdown import PNG, pages, run_import, write_tree

pytestmark = pytest.mark.django_db

LONG_FR = "Ce guide explique comment publier des données ouvertes et les tenir à jour pour les usagers.\n"
LONG_EN = "This guide explains how to publish open data and keep it up to date for the people who use it.\n"


@pytest.fixture
def media(tmp_path, settings):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"


def test_generic_readme_titles_take_the_folders_title(tmp_path, media, no_embeddings):
    """GIVEN guides whose READMEs are all titled "Introduction" (or "Accueil", "README" …)
    WHEN the tree is imported
    THEN each folder page is titled after its folder: the site navigation's title when it gives
    one, else the folder's name; a README with a real title keeps it."""
    write_tree(
        tmp_path / "site",
        {
            "README.md": "# Guides\n\n" + LONG_FR,
            "qualite/README.md": "# Introduction\n\n" + LONG_FR,
            "apis-geo/README.md": "# INTRODUCTION !\n\n" + LONG_FR,
            "juridique/README.md": "---\ntitle: Présentation\n---\n\n" + LONG_FR,
            "annotation/README.md": "# Préparer une campagne d'annotation\n\n" + LONG_FR,
            "annotation/1-etapes.md": "# Introduction\n\n" + LONG_FR,  # a chapter: its own title stands
            ".vuepress/config.js": "module.exports = {\n  sidebarTitles: {\n"
            "    '/qualite/': \"Préparer les données à l'ouverture\",\n  },\n}\n",
        },
    )
    run_import(tmp_path / "site")
    titles = {name: page.title for name, page in pages().items()}
    assert titles == {
        "README.md": "Guides",
        "qualite/README.md": "Préparer les données à l'ouverture",
        "apis-geo/README.md": "Apis geo",
        "juridique/README.md": "Juridique",
        "annotation/README.md": "Préparer une campagne d'annotation",
        "annotation/1-etapes.md": "Introduction",
    }


def test_siblings_sharing_a_title_are_told_apart_by_folder_then_path(tmp_path, media, no_embeddings):
    write_tree(
        tmp_path / "site",
        {
            "README.md": "# Handbook\n\n" + LONG_EN,
            "policies/collaboration.md": "# How we collaborate\n\n" + LONG_EN,
            "team/operations/collab.md": "# How we collaborate\n\n" + LONG_EN,
            "notes/a.md": "# Notes\n\n" + LONG_EN,
            "notes/b.md": "# notes\n\n" + LONG_EN,
            "other.md": "# Other\n\n" + LONG_EN,
        },
    )
    run_import(tmp_path / "site")
    found = pages()
    assert found["policies/collaboration.md"].title == "How we collaborate (Policies)"
    assert found["team/operations/collab.md"].title == "How we collaborate (Operations)"
    assert {found["notes/a.md"].title, found["notes/b.md"].title} == {"Notes (notes/a)", "notes (notes/b)"}
    assert found["other.md"].title == "Other"
    siblings = Page.objects.filter(parent=found["README.md"]).values_list("title", flat=True)
    assert len({fold(t) for t in siblings}) == len(siblings)


def test_empty_folder_pages_and_image_folder_notes_make_no_page(tmp_path, media, no_embeddings):
    """GIVEN a home index.md with front matter only, a folder README that is one heading, and the
    one-line README of a folder of images
    WHEN the tree is imported
    THEN none becomes a page: the folder's pages go under the nearest page above, the images still
    become attachments of the pages that show them, and the report says what was left out."""
    write_tree(
        tmp_path / "site",
        {
            "index.md": "---\nhome: true\nheroText: Les guides\n---\n",
            "README.md": "# Les guides\n\n" + LONG_FR,
            "guide/README.md": "# Le guide\n",
            "guide/1-debut.md": "# Début\n\n" + LONG_FR + "\n![Carte](images/carte.png)\n",
            "guide/sub/index.md": "Sous-partie\n===========\n\n",
            "guide/sub/detail.md": "# Détail\n\n" + LONG_FR,
            "guide/images/README.md": "Les images du guide\n",
            "guide/images/carte.png": PNG,
        },
    )
    output = run_import(tmp_path / "site")
    found = pages()
    assert set(found) == {"README.md", "guide/1-debut.md", "guide/sub/detail.md"}
    assert found["guide/1-debut.md"].parent == found["README.md"]
    assert found["guide/sub/detail.md"].parent == found["README.md"]
    assert found["guide/1-debut.md"].attachments.count() == 1
    assert "3 created" in output and "4 skipped file(s)" in output
    assert "Skipped: guide/images/README.md: a note about a folder of images or files" in output
    assert "Skipped: guide/README.md: a folder page with nothing but a title" in output
    assert not Page.objects.filter(title__in=["Images", "Le guide", "Index"]).exists()


def test_pages_too_short_to_tell_take_the_sites_language(tmp_path, media, no_embeddings):
    """The site says French (VuePress ``lang``): a page of one word is French; a page that says
    otherwise, or whose text is long enough to tell, keeps its own."""
    write_tree(
        tmp_path / "site",
        {
            "README.md": "# Guides\n\n" + LONG_EN,  # long enough: English, whatever the site says
            "short.md": "# Sommaire\n\nVPN\n",
            "stated.md": "---\nlang: en\n---\n\n# VPN\n",
            ".vuepress/config.js": "module.exports = { locales: {'/': {lang: 'fr-FR'}} }\n",
        },
    )
    run_import(tmp_path / "site")
    languages = {name: page.language for name, page in pages().items()}
    assert languages == {"README.md": "en", "short.md": "fr", "stated.md": "en"}


def test_without_a_configured_language_the_trees_majority_decides(tmp_path, media, no_embeddings):
    write_tree(
        tmp_path / "site",
        {"a.md": "# A\n\n" + LONG_FR, "b.md": "# B\n\n" + LONG_FR, "c.md": "# C\n\n" + LONG_EN, "d.md": "# SSO\n"},
    )
    run_import(tmp_path / "site")
    assert pages()["d.md"].language == "fr" and pages()["c.md"].language == "en"


@pytest.mark.parametrize(
    ("name", "text", "language"),
    [
        ("_config.yml", "title: Manuel\nlang: fr\n", "fr"),
        ("mkdocs.yml", "site_name: Manuel\ntheme:\n  name: material\n  language: fr\n", "fr"),
        ("config.toml", 'baseURL = "/"\nlanguageCode = "fr-fr"\n', "fr"),
        (".vuepress/config.js", "module.exports = {\n  lang: 'en-US',\n}\n", "en"),
        ("_config.yml", "lang: de\n", None),  # not a language of the handbook: the tree decides
        ("mkdocs.yml", "language: fr\n", None),  # top level is not theme.language
    ],
)
def test_the_sites_language_as_each_generator_states_it(tmp_path, name, text, language):
    write_tree(tmp_path, {name: text})
    assert read_site_config(tmp_path).language == language


def test_folder_titles_from_the_sites_navigation(tmp_path):
    write_tree(
        tmp_path,
        {
            "mkdocs.yml": "nav:\n  - Home: index.md\n  - 'Onboarding guide': onboarding/index.md\n",
            ".vuepress/config.js": "sidebarTitles: { '/qualite/': 'Qualité des données' }\n",
        },
    )
    titles = read_site_config(tmp_path).folder_titles
    assert titles == {PurePosixPath("onboarding"): "Onboarding guide", PurePosixPath("qualite"): "Qualité des données"}


def test_a_config_file_that_is_a_link_is_not_read(tmp_path):
    outside = tmp_path / "outside.yml"
    outside.write_text("lang: fr\n")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "_config.yml").symlink_to(outside)
    assert read_site_config(tmp_path / "site").language is None


def test_a_badge_in_the_heading_is_no_part_of_the_title(tmp_path, media, no_embeddings):
    write_tree(tmp_path / "site", {"README.md": "# TTS Handbook [![CI](https://ci/x.svg)](https://ci/x)\n\n" + LONG_EN})
    run_import(tmp_path / "site")
    assert pages()["README.md"].title == "TTS Handbook"


def _meta_line(client: Client, page: Page) -> str:
    html = client.get(page.get_absolute_url()).content.decode()
    return " ".join(html.split('<p class="meta">', 1)[1].split("</p>", 1)[0].split())


def test_imported_pages_say_imported_until_someone_edits_them(tmp_path, media, make_user, no_embeddings):
    """By the command: "Imported"; by the admin zip: "Imported by <who>"; once edited: "Last edited by"."""
    write_tree(tmp_path / "site", {"guide.md": "# Guide\n\n" + LONG_EN})
    run_import(tmp_path / "site")
    reader, alice = make_user("reader", "staff"), make_user("alice", "staff")
    client = Client()
    client.force_login(reader)
    page = pages()["guide.md"]
    line = _meta_line(client, page)
    assert "Imported" in line and "Last edited" not in line and "Imported by" not in line

    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("guide.md", "# Guide\n\n" + LONG_EN + "\nOne more line.\n")
    import_zip(io.BytesIO(buffer.getvalue()), space=page.space, author=alice)
    assert "Imported by alice" in _meta_line(client, page)

    page_save(page=Page.objects.get(pk=page.pk), title="Guide", body="# Guide\n\nEdited by hand.\n", author=alice)
    line = _meta_line(client, page)
    assert "Last edited by alice" in line and "Imported" not in line


def test_imported_in_french(tmp_path, media, make_user, no_embeddings):
    write_tree(tmp_path / "site", {"guide.md": "# Guide\n\n" + LONG_FR})
    run_import(tmp_path / "site")
    client = Client()
    client.force_login(make_user("reader", "staff"))
    html = client.get(pages()["guide.md"].get_absolute_url(), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Importée" in html
