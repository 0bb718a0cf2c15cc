"""Reading views: login wall, 404 for what a user may not read, safe rendering, summaries, redirects."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

from handbook.services import page_rename, page_save
from tests.handbook.conftest import url

pytestmark = pytest.mark.django_db


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))


def _elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(html)
    return parser.elements


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/spaces/hr/",
        "/spaces/hr/remote-work/",
        "/search/?q=x",
        "/ask/?q=x",
        "/spaces/hr/remote-work/edit/",
        "/spaces/hr/_new/",
        "/spaces/hr/_access/",
    ],
)
def test_anonymous_is_sent_to_login_with_next(client, handbook, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_login_page_and_login_flow(client, handbook):
    page = client.get("/accounts/login/?next=/spaces/hr/")
    assert page.status_code == 200
    assert b'name="password"' in page.content
    response = client.post("/accounts/login/", {"username": "reader", "password": "pw-reader", "next": "/spaces/hr/"})
    assert response.status_code == 302 and response["Location"] == "/spaces/hr/"
    assert client.get("/").status_code == 200


def test_logout_is_post_only(client, handbook):
    client.force_login(handbook.reader)
    assert client.get("/accounts/logout/").status_code == 405
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/").status_code == 302


def test_login_is_rate_limited_per_ip_and_username(client, handbook, settings):
    settings.LOGIN_RATE_LIMIT = "3/m"
    for _ in range(3):
        assert client.post("/accounts/login/", {"username": "reader", "password": "wrong"}).status_code == 200
    # Even the right password is refused once the limit is reached: no more guessing this minute.
    blocked = client.post("/accounts/login/", {"username": "reader", "password": "pw-reader"})
    assert blocked.status_code == 429
    assert b"Too many failed attempts" in blocked.content
    # Another username from the same address is counted separately.
    other = client.post("/accounts/login/", {"username": "hreditor", "password": "pw-hreditor"})
    assert other.status_code == 302


def test_home_lists_only_readable_spaces_and_pages(client, handbook):
    client.force_login(handbook.reader)
    html = client.get("/").content.decode()
    assert "Remote work" in html and "VPN access" in html
    assert "Board" not in html and "Board minutes" not in html
    assert "Salary bands" not in html  # restricted to payroll


def test_space_tree_hides_restricted_pages(client, handbook):
    client.force_login(handbook.reader)
    html = client.get("/spaces/hr/").content.decode()
    assert "Remote work" in html and "Salary bands" not in html
    client.force_login(handbook.payroll)
    assert "Salary bands" in client.get("/spaces/hr/").content.decode()


def test_space_tree_nests_children_under_parents(client, handbook, make_page):
    from handbook.services import page_set_parent

    child = make_page(handbook.hr, "Home office allowance", "# Allowance\n\n50 EUR a month.\n")
    page_set_parent(page=child, parent=handbook.remote)
    client.force_login(handbook.reader)
    html = client.get("/spaces/hr/").content.decode()
    remote_at = html.index("Remote work")
    nested = html.index('<ul class="tree">', remote_at)
    assert nested < html.index("Home office allowance")


def test_unreadable_space_and_pages_are_404(client, handbook):
    client.force_login(handbook.reader)
    assert client.get("/spaces/board/").status_code == 404
    assert client.get(url(handbook.minutes)).status_code == 404
    assert client.get(url(handbook.salary)).status_code == 404  # restricted: 404, not 403
    assert client.get("/spaces/hr/no-such-page/").status_code == 404
    client.force_login(handbook.outsider)
    assert client.get(url(handbook.remote)).status_code == 404


def test_draft_page_is_404_for_readers(client, handbook, make_page):
    from handbook.services import page_create

    draft = page_create(space=handbook.hr, title="Unreleased policy", body="Secret draft", publish=False)
    client.force_login(handbook.reader)
    assert client.get(url(draft)).status_code == 404


def test_page_renders_markdown_with_toc_and_meta(client, handbook):
    client.force_login(handbook.reader)
    response = client.get(url(handbook.remote))
    html = response.content.decode()
    assert response.status_code == 200
    assert '<h2 id="equipment">Equipment</h2>' in html
    assert 'href="#equipment"' in html  # table of contents
    assert "revision 1" in html
    assert 'lang="en"' in html


def test_page_escapes_hostile_markdown(client, handbook, make_page):
    hostile = (
        "# Hi\n\n<script>alert('x')</script>\n\n<img src=x onerror=alert(1)>\n\n"
        '[click](javascript:alert(1))\n\n<a href="javascript:alert(2)">raw</a>\n\n'
        "# <b onmouseover=alert(3)>bold</b>\n"
    )
    page = make_page(handbook.hr, "Hostile", hostile)
    client.force_login(handbook.reader)
    html = client.get(url(page)).content.decode()
    article = html[html.index('<div class="prose">') :]
    for tag, attrs in _elements(article):
        assert tag != "script" or attrs.get("src", "").startswith("/static/")
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert not any((value or "").strip().lower().startswith("javascript:") for value in attrs.values())
    assert "&lt;script&gt;" in article


def test_page_shows_current_summary_with_method_and_revision(client, handbook):
    client.force_login(handbook.reader)
    html = client.get(url(handbook.remote)).content.decode()
    assert 'class="summary"' in html
    assert "for revision 1" in html
    assert "being updated" not in html


def test_page_says_when_summary_is_being_updated(client, handbook, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # the summary task has not run yet
        page_save(page=handbook.remote, title="Remote work", body=handbook.remote.body + "\nNew rule.\n")
    client.force_login(handbook.reader)
    html = client.get(url(handbook.remote)).content.decode()
    assert "for revision 1" not in html  # the older summary may quote removed text
    assert "being updated" in html


def test_old_slug_redirects_permanently(client, handbook):
    old = url(handbook.remote)
    page_rename(page=handbook.remote, title="Working from home")
    client.force_login(handbook.reader)
    response = client.get(old)
    assert response.status_code == 301
    assert response["Location"] == "/spaces/hr/working-from-home/"


def test_old_slug_of_unreadable_page_is_404(client, handbook):
    old = url(handbook.salary)
    page_rename(page=handbook.salary, title="Pay grid")
    client.force_login(handbook.reader)
    assert client.get(old).status_code == 404  # does not reveal the new address


def test_language_switcher_translates_ui(handbook):
    client = Client()
    client.force_login(handbook.reader)
    response = client.post("/i18n/setlang/", {"language": "fr", "next": "/"})
    assert response.status_code == 302
    html = client.get("/").content.decode()
    assert 'lang="fr"' in html
    assert "Espaces" in html  # "Spaces"


def test_expired_session_during_htmx_request_redirects_the_whole_page(client, handbook):
    response = client.get(
        "/search/?q=screen", HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL="http://testserver/spaces/hr/?tab=1"
    )
    assert response.status_code == 204
    assert response["HX-Redirect"] == "/accounts/login/?next=/spaces/hr/%3Ftab%3D1"
