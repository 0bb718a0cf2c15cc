"""Markdown rendering, sanitizing, heading ids and plain text (no database)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from handbook.markdown import (
    heading_ids,
    markdown_to_text,
    render_markdown,
    sanitize_html,
    slugify_heading,
    table_of_contents,
)


class _Elements(HTMLParser):
    """Collects (tag, attrs) of every element, to assert on real markup only
    (escaped text such as "&lt;script&gt;" is not an element)."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(html)
    return parser.elements


def assert_no_active_content(html: str) -> None:
    for tag, attrs in elements(html):
        assert tag not in {
            "script",
            "style",
            "svg",
            "iframe",
            "object",
            "embed",
            "math",
            "div",
        }
        for name, value in attrs.items():
            assert not name.startswith(("on", "hx-", "data-")), (tag, name)
            assert name != "style", tag
            assert not (value or "").strip().lower().startswith(("javascript:", "data:", "vbscript:"))


# --- sanitizing -----------------------------------------------------------


def test_raw_html_is_escaped_not_rendered() -> None:
    html = render_markdown('Hi <script>alert(1)</script> <b onclick="x()">bold</b>')
    assert "&lt;script&gt;" in html
    assert [tag for tag, _ in elements(html)] == ["p"]
    assert_no_active_content(html)


def test_raw_html_block_with_htmx_and_style_is_escaped() -> None:
    html = render_markdown('<div hx-post="/admin/delete" data-x="1" style="display:none">x</div>')
    assert "&lt;div" in html
    assert_no_active_content(html)


def test_javascript_links_are_not_links() -> None:
    md = "[a](javascript:alert(1)) [b](JAVASCRIPT:alert(1)) <javascript:alert(1)> [c](data:text/html,x)"
    html = render_markdown(md)
    assert not any(tag == "a" for tag, _ in elements(html))
    assert_no_active_content(html)


def test_links_get_rel_and_keep_allowed_schemes() -> None:
    html = render_markdown('[x](https://example.org "T") [y](/pages/other#fees) [z](mailto:hr@example.org)')
    links = [attrs for tag, attrs in elements(html) if tag == "a"]
    assert [a["href"] for a in links] == [
        "https://example.org",
        "/pages/other#fees",
        "mailto:hr@example.org",
    ]
    assert all(a["rel"] == "noopener noreferrer" for a in links)
    assert links[0]["title"] == "T"


def test_sanitizer_strips_dangerous_html_directly() -> None:
    dirty = (
        '<a href="javascript:alert(1)" onclick="x" hx-get="/y" data-id="1" style="color:red">a</a>'
        '<svg onload="alert(1)"><circle/></svg><style>p{}</style><iframe src="/x"></iframe>'
        '<img src="/files/ok.png" onerror="alert(1)" alt="ok"><code class="language-py evil">c</code>'
    )
    html = sanitize_html(dirty)
    assert_no_active_content(html)
    assert "href" not in html and "class" not in html
    assert '<img src="/files/ok.png" alt="ok">' in html


def test_external_images_are_removed_alt_kept() -> None:
    md = (
        "![Logo](https://cdn.example.com/logo.png) ![Pixel](//tracker.example.com/p.gif)"
        " ![Up](HTTP://evil.example/x.png) ![Inline](data:image/png;base64,iVBORw0KGgo=)"
    )
    html = render_markdown(md)
    assert not any(tag == "img" for tag, _ in elements(html))
    assert all(word in html for word in ("Logo", "Pixel", "Up", "Inline"))


def test_relative_images_are_kept() -> None:
    html = render_markdown('![Org chart](/media/org.png "Team") ![Map](img/map.png)')
    imgs = [attrs for tag, attrs in elements(html) if tag == "img"]
    assert imgs == [
        {"src": "/media/org.png", "alt": "Org chart", "title": "Team"},
        {"src": "img/map.png", "alt": "Map"},
    ]


def test_code_language_class_tables_and_strikethrough() -> None:
    md = "```python\nprint('<b>')\n```\n\n| a | b |\n|--:|---|\n| 1 | 2 |\n\n~~old~~"
    html = render_markdown(md)
    assert '<code class="language-python">' in html
    assert "&lt;b&gt;" in html
    assert "<table>" in html and "<td>1</td>" in html  # alignment style dropped
    assert "<del>old</del>" in html
    assert_no_active_content(html)


# --- heading ids ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Congés payés", "conges-payes"),
        ("  Notes de frais : 2024 ! ", "notes-de-frais-2024"),
        ("snake_case & C++", "snake-case-c"),
        ("Œuvre ÉTÉ", "œuvre-ete"),
        ("!!!", "section"),
        ("", "section"),
    ],
)
def test_slugify_heading(text: str, slug: str) -> None:
    assert slugify_heading(text) == slug


def test_heading_ids_are_deduplicated_like_render() -> None:
    md = "# Congés payés\n\n## FAQ\n\n## FAQ\n\n### FAQ\n\n## *Congés* `payés`"
    ids = heading_ids(md)
    assert ids == [
        (1, "Congés payés", "conges-payes"),
        (2, "FAQ", "faq"),
        (2, "FAQ", "faq-1"),
        (3, "FAQ", "faq-2"),
        (2, "Congés payés", "conges-payes-1"),
    ]
    rendered = [attrs["id"] for tag, attrs in elements(render_markdown(md)) if tag.startswith("h")]
    assert rendered == [hid for _, _, hid in ids]


def test_hash_in_code_fence_is_not_a_heading() -> None:
    md = "# Real\n\n```bash\n# install\npip install x\n```\n"
    assert heading_ids(md) == [(1, "Real", "real")]


def test_table_of_contents() -> None:
    md = "Intro\n\n# Expenses\n\n## Per diems\n\nText\n\nTravel\n------\n"
    assert table_of_contents(md) == [
        {"level": 1, "text": "Expenses", "id": "expenses"},
        {"level": 2, "text": "Per diems", "id": "per-diems"},
        {"level": 2, "text": "Travel", "id": "travel"},
    ]


# --- plain text -----------------------------------------------------------


def test_markdown_to_text_strips_syntax() -> None:
    md = (
        "# Title\n\nSome *em* and **strong** and [a link](https://x.org) ![img](/a.png).\n\n"
        "- one\n- two\n\n```\ncode # kept\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    assert markdown_to_text(md) == ("Title\n\nSome em and strong and a link .\n\none\ntwo\n\ncode # kept\n\na b\n1 2")


def test_markdown_to_text_empty() -> None:
    assert markdown_to_text("") == ""
    assert markdown_to_text("\n\n---\n") == ""
