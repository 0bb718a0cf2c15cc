"""Personal access tokens: created and shown once, stored hashed, listed, revoked, expired."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from accounts.models import PersonalToken
from accounts.services import hash_token, token_authenticate, token_create, token_revoke

pytestmark = pytest.mark.django_db


def test_a_token_is_stored_hashed_and_authenticates_its_owner(make_user):
    alice = make_user("alice", "staff")
    new = token_create(user=alice, name="bot", scope="ask", days=7)
    stored = PersonalToken.objects.get()
    assert new.secret.startswith("hbk_") and len(new.secret) > 40
    assert stored.token_hash == hash_token(new.secret) and new.secret not in stored.token_hash
    assert new.secret.startswith(stored.prefix) and len(stored.prefix) < 16
    assert token_authenticate(new.secret).user == alice
    assert PersonalToken.objects.get().last_used_at is not None


def test_revoked_expired_unknown_and_inactive_owner_tokens_fail(make_user):
    alice = make_user("alice", "staff")
    revoked, expired, inactive = (token_create(user=alice, name=n).secret for n in ("r", "e", "i"))
    assert token_revoke(user=alice, token_id=token_authenticate(revoked).pk)
    PersonalToken.objects.filter(token_hash=hash_token(expired)).update(expires_at=timezone.now() - timedelta(1))
    assert token_authenticate(revoked) is None
    assert token_authenticate(expired) is None
    assert token_authenticate("hbk_nope") is None and token_authenticate("") is None
    alice.is_active = False
    alice.save()
    assert token_authenticate(inactive) is None


def test_nobody_revokes_someone_elses_token(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    new = token_create(user=alice, name="bot")
    assert not token_revoke(user=bob, token_id=new.token.pk)
    assert token_authenticate(new.secret) is not None


def test_create_token_command_prints_the_token_alone_on_its_last_line(make_user):
    alice = make_user("alice", "staff")
    out, err = StringIO(), StringIO()
    call_command("create_token", "alice", "--name", "cli", "--scope", "ask", "--days", "3", stdout=out, stderr=err)
    last = out.getvalue().strip().splitlines()[-1]
    token = token_authenticate(last)
    assert token is not None and token.user == alice and token.scope == "ask" and token.name == "cli"
    assert timedelta(days=2.9) < token.expires_at - timezone.now() <= timedelta(days=3)
    with pytest.raises(CommandError):
        call_command("create_token", "nobody", "--name", "x", stdout=StringIO(), stderr=StringIO())


def test_profile_page_creates_shows_once_lists_and_revokes(make_user):
    alice = make_user("alice", "staff")
    client = Client()
    client.force_login(alice)
    assert "Personal access tokens" in client.get("/accounts/profile/").content.decode()
    response = client.post("/accounts/profile/", {"name": "chat bot", "scope": "ask", "days": "30"})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    token = PersonalToken.objects.get(user=alice)
    secret = response.context["new_secret"]
    assert secret and secret in response.content.decode() and hash_token(secret) == token.token_hash
    listing = client.get("/accounts/profile/").content.decode()
    assert secret not in listing and token.prefix in listing and "chat bot" in listing
    response = client.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert response.status_code == 302
    assert token_authenticate(secret) is None
    assert client.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404
    assert client.post("/accounts/profile/", {"name": "", "scope": "read", "days": "30"}).status_code == 400


def test_profile_page_in_french(make_user):
    client = Client(headers={"accept-language": "fr"})
    client.force_login(make_user("alice"))
    page = client.get("/accounts/profile/").content.decode()
    assert "Jetons d’accès personnels" in page


def test_profile_needs_login():
    response = Client().get("/accounts/profile/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
