"""import_markdown: links to a page's redirect_from addresses (old addresses the site still serves) lead to it."""

from __future__ import annotations

import pytest

from handbook.markdown_import.sources import alias_keys
from tests.handbook.test_import_markdown import pages, run_import, write_tree

pytestmark = pytest.mark.django_db

# An Eleventy-style tree: the site is built from pages/, so pages/a/b.md is served at /a/b/.
ELEVENTY = {
    "pages/index.md": (
        "---\ntitle: Home\n---\n\n"
        "See the [glossary](/glossary/), the [term](/glossary#term), [classes](/tts-classes), "
        '[the org chart]({% page "/org-chart/" %}), [the old one]({% page "/tts-org-chart" %}), '
        "[history](/old-handbook/), [history again](old-handbook) and [the brand](/brand/).\n\n"
        "[glossary-ref]: glossary/\n"
    ),
    "pages/general/glossary.md": "---\ntitle: Glossary\nredirect_from:\n  - /glossary/\n---\n\nWords.\n",
    "pages/getting-started/classes.md": "---\ntitle: Classes\nredirect_from: [/tts-classes/]\n---\n\nLearn.\n",
    "pages/about/org-chart.md": (
        "---\ntitle: Org chart\nredirect_from: [/tts-org-chart/, org-chart]\n"
        "redirect_to: https://docs.example.org/org-chart\n---\n\nThe chart lives elsewhere.\n"
    ),
    "pages/about/history.md": "---\ntitle: History\nredirect_from: old-handbook\n---\n\nOnce upon a time.\n",
    # pages/brand.md is served at /brand/: that beats another page claiming /brand/ as an old address.
    "pages/brand.md": "---\ntitle: Brand\n---\n\nOur logo.\n",
    "pages/about/logo.md": "---\ntitle: Logo\nredirect_from:\n  - /brand/\n  - https://old.example.org/x\n---\n\nX.\n",
}


@pytest.fixture
def media(tmp_path, settings):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"


def test_links_to_aliases_lead_to_the_page_that_declares_them(tmp_path, media, no_embeddings):
    root = tmp_path / "site"
    write_tree(root, ELEVENTY)
    output = run_import(root)
    assert "Broken link" not in output and "0 broken link(s)" in output
    found = pages()
    home = found["pages/index.md"].body

    def url(name: str) -> str:
        return found[name].get_absolute_url()

    assert f"[glossary]({url('pages/general/glossary.md')})" in home
    assert f"[term]({url('pages/general/glossary.md')}#term)" in home
    assert f"[glossary-ref]: {url('pages/general/glossary.md')}" in home
    assert f"[classes]({url('pages/getting-started/classes.md')})" in home
    # A page that redirects to another site is still a page of the import: links to it stay inside.
    assert f"[the org chart]({url('pages/about/org-chart.md')})" in home
    assert f"[the old one]({url('pages/about/org-chart.md')})" in home
    assert f"[history]({url('pages/about/history.md')})" in home
    assert f"[history again]({url('pages/about/history.md')})" in home
    assert f"[the brand]({url('pages/brand.md')})" in home


def test_a_real_page_address_beats_an_alias_at_the_tree_root(tmp_path, media, no_embeddings):
    root = tmp_path / "site"
    write_tree(
        root,
        {
            "README.md": "# Home\n\n[A](/a/), [A again](a) and [C](/c).\n",
            "a.md": "# A\n\nThe real one.\n",
            "b.md": "---\nredirect_from: [/a/, /c/]\n---\n\n# B\n\nClaims /a/.\n",
        },
    )
    assert "0 broken link(s)" in run_import(root)
    found = pages()
    home = found["README.md"].body
    assert f"[A]({found['a.md'].get_absolute_url()})" in home
    assert f"[A again]({found['a.md'].get_absolute_url()})" in home
    assert f"[C]({found['b.md'].get_absolute_url()})" in home


def test_an_alias_declared_twice_goes_to_the_first_page_by_path(tmp_path, media, no_embeddings):
    root = tmp_path / "site"
    write_tree(
        root,
        {
            "pages/index.md": "# Home\n\n[Shared](/shared/).\n",
            "pages/y/two.md": "---\nredirect_from: /shared/\n---\n\n# Two\n",
            "pages/x/one.md": "---\nredirect_from: [shared]\n---\n\n# One\n",
        },
    )
    assert "0 broken link(s)" in run_import(root)
    found = pages()
    assert f"[Shared]({found['pages/x/one.md'].get_absolute_url()})" in found["pages/index.md"].body


def test_an_address_nobody_declares_is_still_broken(tmp_path, media, no_embeddings):
    root = tmp_path / "site"
    write_tree(
        root,
        {
            "pages/index.md": "# Home\n\n[Gone](/gone/).\n",
            "pages/a.md": "---\nredirect_from: [/here/, 'https://elsewhere.example.org/gone/']\n---\n\n# A\n",
        },
    )
    assert "Broken link: pages/index.md → /gone/" in run_import(root)


@pytest.mark.parametrize(
    ("value", "keys"),
    [
        ("/glossary/", ("glossary",)),
        ("glossary", ("glossary",)),
        (["/Tts-Classes/", "tts-classes", "/a/b.html"], ("tts-classes", "a/b")),
        (["/", "", "https://example.org/x", "//example.org/y", 3, None], ()),
        (None, ()),
        ({"not": "a list"}, ()),
    ],
)
def test_alias_keys_are_normalised_like_permalinks(value, keys):  # type: ignore[no-untyped-def]
    assert alias_keys(value) == keys
