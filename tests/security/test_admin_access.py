"""The Django admin is for superusers only, and only superusers are shown the way there.

The admin's lists, searches, filters, raw-id lookups and autocompletes read whole
tables; the product's own pages (space and page access) are where staff who
edit a space manage it. So the admin site admits active superusers and nobody
else, whatever model permissions a staff account holds.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.urls import reverse

HIDDEN_TITLE = "Layoffs plan confidential"


@pytest.fixture
def hr_world(make_user, make_space, make_page, no_embeddings):  # type: ignore[no-untyped-def]
    """GIVEN an HR space that only "hr" reads, with a page and an old address of it,
    and a staff user outside HR who holds every view and change permission of the admin."""
    from handbook.models import SlugRedirect

    hr = make_space("hr-private", viewers=("hr",), editors=("hr-editors",))
    it = make_space("it-public", viewers=("staff",), editors=("it-editors",))
    hidden = make_page(hr, HIDDEN_TITLE, f"# {HIDDEN_TITLE}\n\nWho leaves in March.\n")
    public = make_page(it, "VPN access", "# VPN access\n\nInstall the client.\n")
    SlugRedirect.objects.create(space_slug="hr-private", page_slug="old-plan", page=hidden)
    staff = make_user("bob", "staff", "it-editors", staff=True)
    models = [model._meta.model_name for model in admin.site._registry]
    staff.user_permissions.add(
        *Permission.objects.filter(content_type__model__in=models, codename__regex=r"^(view|change)_")
    )
    return {"hr": hr, "hidden": hidden, "public": public, "staff": staff}


def admin_urls(hidden: Any, hr: Any) -> list[str]:
    """Every kind of admin page a reader could reach HR titles through."""
    from handbook.models import Revision, SlugRedirect
    from search.models import Chunk, IndexState
    from summaries.models import Summary

    urls = ["/admin/", "/admin/handbook/", "/admin/search/", "/admin/summaries/"]
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        urls += [
            changelist,
            changelist + "?" + urlencode({"q": hidden.ref}),
            changelist + "?" + urlencode({"q": "Layoffs"}),
            changelist + "?_popup=1&_to_field=id",
        ]
        for field in model_admin.raw_id_fields:
            urls.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_add") + f"?{field}={hidden.pk}")
    urls.append(reverse("admin:handbook_page_changelist") + f"?space__id__exact={hr.pk}")
    urls.append(reverse("admin:search_indexstate_changelist") + f"?page__space__id__exact={hr.pk}")
    urls.append(reverse("admin:summaries_summary_changelist") + f"?page__space__id__exact={hr.pk}")
    hidden_objects = [("handbook", "space", hr.pk), ("handbook", "page", hidden.pk)]
    for model in (Revision, SlugRedirect, IndexState, Chunk, Summary):
        opts = model._meta
        pks = model.objects.filter(page=hidden).values_list("pk", flat=True)
        hidden_objects += [(opts.app_label, opts.model_name, pk) for pk in pks]
    assert len(hidden_objects) >= 7  # every kind of object exists for the hidden page
    for app_label, model_name, pk in hidden_objects:
        for view in ("change", "history", "delete"):
            urls.append(reverse(f"admin:{app_label}_{model_name}_{view}", args=[pk]))
    for app_label, model_name, field_name in [
        ("handbook", "slugredirect", "page"),
        ("handbook", "page", "parent"),
        ("handbook", "page", "space"),
        ("search", "indexstate", "page"),
        ("summaries", "summary", "page"),
    ]:
        query = {"app_label": app_label, "model_name": model_name, "field_name": field_name, "term": "Layoffs"}
        urls.append("/admin/autocomplete/?" + urlencode(query))
    return urls


@pytest.mark.django_db
def test_staff_with_every_admin_permission_sees_no_hidden_title(client, hr_world):
    """WHEN bob opens every list, search, filter, lookup, autocomplete and form of the admin
    THEN no page shows the HR title or the HR space (on main the index status list did)."""
    client.force_login(hr_world["staff"])
    leaks = []
    for url in admin_urls(hr_world["hidden"], hr_world["hr"]):
        body = client.get(url).content.decode(errors="replace")
        if HIDDEN_TITLE in body or "Hr-Private" in body:
            leaks.append(url)
    assert leaks == []


@pytest.mark.django_db
def test_admin_sends_staff_who_are_not_superusers_to_its_login(client, hr_world):
    client.force_login(hr_world["staff"])
    for url in admin_urls(hr_world["hidden"], hr_world["hr"]):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/admin/login/"), url
    page = client.get("/admin/login/?next=/admin/").content.decode()
    assert "only for superusers" in page


@pytest.mark.django_db
def test_superuser_keeps_the_whole_admin(client, hr_world, make_user):
    client.force_login(make_user("root", superuser=True))
    for model in admin.site._registry:
        opts = model._meta
        assert client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")).status_code == 200
    listing = client.get("/admin/search/indexstate/?" + urlencode({"q": "Layoffs"})).content.decode()
    assert HIDDEN_TITLE in listing
    lookup = client.get(f"/admin/handbook/slugredirect/add/?page={hr_world['hidden'].pk}").content.decode()
    assert HIDDEN_TITLE in lookup


@pytest.mark.django_db
@pytest.mark.parametrize("flag", ["is_active", "is_staff"])
def test_superuser_without_the_active_or_staff_flag_is_refused(client, make_user, flag):
    """Django's own gate (active staff) still holds: the admin only narrows it to superusers."""
    root = make_user("root", superuser=True)
    client.force_login(root)
    setattr(root, flag, False)
    root.save()
    assert client.get("/admin/").status_code == 302
    assert 'href="/admin/"' not in client.get("/").content.decode()


@pytest.mark.django_db
def test_admin_login_admits_superusers_only(client, hr_world, make_user):
    """A staff account's right password at the admin login opens no session there."""
    make_user("root", superuser=True)
    response = client.post("/admin/login/?next=/admin/", {"username": "bob", "password": "pw-bob"})
    assert response.status_code == 200 and "_auth_user_id" not in client.session
    response = client.post("/admin/login/?next=/admin/", {"username": "root", "password": "pw-root"})
    assert response.status_code == 302 and client.get("/admin/").status_code == 200


@pytest.mark.django_db
def test_admin_login_shares_the_login_lockout(client, make_user, settings):
    """Guessing at /admin/login/ counts against the same lock as the site's login: once locked,
    the right password is refused on both (on main the admin login was not throttled at all)."""
    settings.LOGIN_RATE_LIMIT = "3/m"
    make_user("lockroot", superuser=True)
    for _ in range(3):
        client.post("/admin/login/", {"username": "lockroot", "password": "wrong"})
    response = client.post("/admin/login/?next=/admin/", {"username": "lockroot", "password": "pw-lockroot"})
    assert "_auth_user_id" not in client.session
    assert "Too many failed attempts" in response.content.decode()
    response = client.post("/accounts/login/", {"username": "lockroot", "password": "pw-lockroot"})
    assert response.status_code == 429 and "_auth_user_id" not in client.session


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "shown"),
    [("superuser", True), ("staff_space_admin", False), ("staff", False), ("reader", False)],
)
def test_admin_link_only_for_those_the_admin_admits(client, make_user, kind, shown):
    user = {
        "superuser": lambda: make_user("root", superuser=True),
        "staff_space_admin": lambda: make_user("hradmin", "staff", "hr-editors", staff=True),
        "staff": lambda: make_user("bob", "staff", staff=True),
        "reader": lambda: make_user("reader", "staff"),
    }[kind]()
    client.force_login(user)
    html = client.get("/").content.decode()
    assert ('href="/admin/"' in html) is shown
    assert (client.get("/admin/").status_code == 200) is shown
