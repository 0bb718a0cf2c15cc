"""accounts/sessions.py and accounts/backends.py: the session and its user read in prepared statements,
with Django's answers (who is signed in, who is nobody)."""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from accounts.backends import LocalBackend
from accounts.oidc import HandbookOIDCBackend, PermissionsOnlyBackend
from accounts.selectors import user_by_id
from accounts.sessions import SessionStore

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader() -> User:
    return User.objects.create_user("reader", password="pw-reader", first_name="Ré", email="r@example.org")


def _prepared(table: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", [f"%FROM {table}%"])
        return bool(cursor.fetchone()[0])


def test_a_signed_in_person_is_read_through_prepared_statements(client, reader):  # type: ignore[no-untyped-def]
    assert client.login(username="reader", password="pw-reader")
    response = client.get("/accounts/profile/")
    assert response.status_code == 200 and response.wsgi_request.user == reader
    assert _prepared(Session._meta.db_table) and _prepared(User._meta.db_table)


def test_the_user_is_built_with_every_field_as_the_orm_reads_it(reader):  # type: ignore[no-untyped-def]
    loaded = user_by_id(str(reader.pk))  # sessions keep the id as text
    expected = User.objects.get(pk=reader.pk)
    assert loaded is not None and loaded._state.adding is False and loaded._state.db == "default"
    for field in User._meta.concrete_fields:
        assert getattr(loaded, field.attname) == getattr(expected, field.attname), field.name
    assert user_by_id(reader.pk + 1000) is None
    assert user_by_id("not an id") is None


def test_a_deactivated_account_is_nobody_to_the_password_backends(reader):  # type: ignore[no-untyped-def]
    assert LocalBackend().get_user(reader.pk) == reader
    reader.is_active = False
    reader.save()
    assert LocalBackend().get_user(reader.pk) is None
    assert PermissionsOnlyBackend().get_user(reader.pk) is None
    # Single sign-on keeps its library's answer; a deactivated account still reads nothing (core/users.py).
    assert HandbookOIDCBackend().get_user(reader.pk) == reader


def _cookie_session(reader: User) -> SessionStore:
    store = SessionStore()
    store[SESSION_KEY] = str(reader.pk)
    store[BACKEND_SESSION_KEY] = "accounts.backends.LocalBackend"
    store[HASH_SESSION_KEY] = reader.get_session_auth_hash()
    store.create()
    return store


def test_an_expired_session_signs_nobody_in(client, reader):  # type: ignore[no-untyped-def]
    store = _cookie_session(reader)
    client.cookies["sessionid"] = store.session_key
    assert client.get("/accounts/profile/").status_code == 200
    Session.objects.filter(session_key=store.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
    response = client.get("/accounts/profile/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.parametrize("key", ["\x00" * 32, "short", "A" * 32, "a" * 41, "a" * 5000, "../../etc/passwd"])
def test_a_cookie_that_is_no_session_key_signs_nobody_in_without_an_error(client, reader, key):  # type: ignore[no-untyped-def]
    _cookie_session(reader)
    client.cookies["sessionid"] = key
    response = client.get("/accounts/profile/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert SessionStore(key).load() == {}


def test_a_session_signed_in_under_djangos_own_backend_name_stays_signed_in(client, reader):  # type: ignore[no-untyped-def]
    store = _cookie_session(reader)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store.save()
    migration = import_module("accounts.migrations.0003_sessions_under_local_backend")
    migration.rename_backend(MigrationExecutor(connection).loader.project_state().apps, connection.schema_editor())
    client.cookies["sessionid"] = store.session_key
    response = client.get("/accounts/profile/")
    assert response.status_code == 200 and response.wsgi_request.user == reader
    assert SessionStore(store.session_key).load()[BACKEND_SESSION_KEY] == "accounts.backends.LocalBackend"
