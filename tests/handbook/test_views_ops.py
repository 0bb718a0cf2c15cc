"""/healthz, security headers, and the admin's permission scoping."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_healthz_reports_each_piece_without_login(client, handbook):
    from handbook.health import heartbeat_write

    heartbeat_write()
    response = client.get("/healthz")
    assert response.status_code == 200
    data = response.json()
    assert set(data) == {"database", "redis", "worker"}
    assert data["database"]["ok"] and data["redis"]["ok"] and data["worker"]["ok"]


def test_healthz_without_worker_is_still_200(client, handbook):
    from django.core.cache import cache

    from handbook.health import HEARTBEAT_KEY

    cache.delete(HEARTBEAT_KEY)
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["worker"] == {"ok": False, "detail": "no heartbeat"}


def test_healthz_is_503_when_redis_is_down(client, handbook, monkeypatch):
    from handbook.views import ops

    monkeypatch.setattr(ops, "check_redis", lambda: (False, "ConnectionError"))
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["redis"] == {"ok": False, "detail": "ConnectionError"}


def test_csp_and_security_headers(client, handbook):
    client.force_login(handbook.reader)
    response = client.get("/")
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "object-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_pages_have_no_inline_scripts(client, handbook):
    client.force_login(handbook.reader)
    for path in ["/", "/search/?q=screen", "/spaces/hr/remote-work/", "/ask/?q=how+many+days%3F"]:
        html = client.get(path).content.decode()
        for tag in html.split("<script")[1:]:
            assert ' src="/static/' in tag.split(">")[0], tag[:100]
        assert " onclick=" not in html and " onload=" not in html and ' style="' not in html


def test_csrf_token_travels_on_the_body_for_htmx(client, handbook):
    client.force_login(handbook.reader)
    html = client.get("/").content.decode()
    assert '<body hx-headers=\'{"x-csrftoken": "' in html


def test_login_needs_csrf(handbook):
    client = Client(enforce_csrf_checks=True)
    assert client.post("/accounts/login/", {"username": "reader", "password": "pw-reader"}).status_code == 403


def test_admin_is_for_superusers_only_whatever_the_staff_permissions(client, handbook):
    from django.contrib.auth.models import Permission

    handbook.admin.user_permissions.add(*Permission.objects.filter(codename__in=["view_page", "change_page"]))
    client.force_login(handbook.admin)
    response = client.get("/admin/handbook/page/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert "Remote work" not in response.content.decode()
    assert client.get(f"/admin/handbook/page/{handbook.minutes.pk}/change/").status_code == 302


def test_superuser_restores_a_deleted_page_in_the_admin(client, handbook, make_user):
    from handbook.models import Page
    from handbook.services import page_delete

    page_delete(page=handbook.remote)
    client.force_login(make_user("root", superuser=True))
    listing = client.get("/admin/handbook/page/?deleted=yes").content.decode()
    assert "Remote work" in listing
    client.post("/admin/handbook/page/", {"action": "restore_pages", "_selected_action": [handbook.remote.pk]})
    assert Page.objects.get(pk=handbook.remote.pk).deleted_at is None
