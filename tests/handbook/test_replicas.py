"""Read replicas: content reads of read views go to a replica, writers read their own writes,
and a replica that is down or lagging costs no request.

The fast tests use a second alias onto the test primary as the "replica" (its queries are
counted apart); the ``prove`` tests run against a real streaming standby (tests/standby.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test.utils import CaptureQueriesContext

from core import db_router
from core.db_router import ReplicaRouter, read_alias, reading_from, replica_for_reads, replica_usable
from tests.handbook.conftest import url
from tests.standby import Standby, register_alias, unregister_alias

pytestmark = pytest.mark.django_db(transaction=True)


def replica_health_forget() -> None:
    """Forget every replica check of this process: the next read checks again."""
    db_router._health.clear()


@pytest.fixture
def use_replica(settings, monkeypatch, django_db_blocker) -> Iterator[Callable[[str, dict[str, Any]], None]]:  # type: ignore[no-untyped-def]
    """Register a database alias as the site's only replica, for this test."""
    added: list[str] = []
    # Django's test case refuses connections to aliases it was not told of when the test started;
    # these are registered during the test (tests/standby.py), so they connect unchecked.
    checked, real = BaseDatabaseWrapper.ensure_connection, django_db_blocker._real_ensure_connection

    def ensure_connection(connection: BaseDatabaseWrapper) -> None:
        (real if connection.alias in added else checked)(connection)

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", ensure_connection)
    settings.DATABASE_REPLICA_MAX_LAG_S = 5.0
    settings.DATABASE_REPLICA_CHECK_S = 60.0  # checked once per test unless a test forgets it

    def use(alias: str, settings_dict: dict[str, Any]) -> None:
        register_alias(alias, settings_dict)
        added.append(alias)
        settings.DATABASE_REPLICAS = [alias]
        replica_health_forget()

    yield use
    replica_health_forget()
    for alias in added:
        unregister_alias(alias)


def primary_copy() -> dict[str, Any]:
    """Settings of a second connection to the test primary."""
    return {**connections["default"].settings_dict, "TEST": {"MIRROR": "default"}}


def login(client, user) -> None:  # type: ignore[no-untyped-def]
    client.force_login(user)


def queries_on(alias: str, request: Callable[[], Any]) -> tuple[Any, list[str]]:
    with CaptureQueriesContext(connections[alias]) as captured:
        response = request()
    return response, [q["sql"] for q in captured.captured_queries]


# --- the router -----------------------------------------------------------------------


def test_router_sends_content_reads_of_a_read_scope_to_its_alias(settings):  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import User
    from django.contrib.sessions.models import Session

    from handbook.models import Page
    from search.models import Chunk

    settings.DATABASE_REPLICAS = ["replica1"]
    router = ReplicaRouter()
    assert router.db_for_read(Page) == "default"
    with reading_from("replica1"):
        assert read_alias() == "replica1"
        assert router.db_for_read(Page) == router.db_for_read(Chunk) == "replica1"
        # People, groups and sessions: always the primary (sign-in and revocation apply at once).
        assert router.db_for_read(User) == router.db_for_read(Session) == "default"
        assert router.db_for_write(Page) == "default"
    assert read_alias() == "default"
    assert router.allow_migrate("default", "handbook") and not router.allow_migrate("replica1", "handbook")


def test_a_lagging_replica_is_not_used(settings, monkeypatch):  # type: ignore[no-untyped-def]
    settings.DATABASE_REPLICAS = ["replica1"]
    settings.DATABASE_REPLICA_MAX_LAG_S = 2.0
    settings.DATABASE_REPLICA_CHECK_S = 60.0
    replica_health_forget()
    lag = {"s": 30.0}
    monkeypatch.setattr(db_router, "replica_lag_s", lambda alias: lag["s"])
    try:
        assert replica_for_reads() is None
        lag["s"] = 0.5
        assert replica_for_reads() is None, "checked a moment ago: the answer is cached"
        replica_health_forget()
        assert replica_for_reads() == "replica1"
    finally:
        replica_health_forget()


# --- read views on a replica, writers on the primary ----------------------------------------


def test_readers_read_pages_and_search_from_the_replica(client, handbook, use_replica):  # type: ignore[no-untyped-def]
    use_replica("replica_test", primary_copy())
    login(client, handbook.reader)

    response, sql = queries_on("replica_test", lambda: client.get(url(handbook.remote)))
    assert response.status_code == 200 and "three days a week" in response.text
    assert any("handbook_page" in q for q in sql)
    assert not any('FROM "django_session"' in q or 'FROM "auth_user" ' in q for q in sql), [
        q for q in sql if "django_session" in q or '"auth_user"' in q
    ]

    response, sql = queries_on("replica_test", lambda: client.get("/search/", {"q": "remote work"}))
    assert response.status_code == 200 and "Remote work" in response.text
    assert any("search_chunk" in q for q in sql), "the retrieval SQL ran on the replica"
    assert "Salary bands" not in response.text


def test_an_editor_reads_their_own_change_from_the_primary(client, handbook, use_replica):  # type: ignore[no-untyped-def]
    """GIVEN a replica WHEN an editor publishes THEN their next reads go to the primary (for a while),
    while another reader's go to the replica."""
    use_replica("replica_test", primary_copy())
    login(client, handbook.editor)
    response = client.post(
        "/spaces/hr/_new/", {"title": "Parental leave", "language": "en", "body": "Sixteen weeks.", "action": "publish"}
    )
    assert response.status_code == 302

    response, sql = queries_on("replica_test", lambda: client.get("/spaces/hr/parental-leave/"))
    assert response.status_code == 200 and "Sixteen weeks" in response.text
    assert sql == [], "pinned to the primary after writing"

    login(client, handbook.reader)
    response, sql = queries_on("replica_test", lambda: client.get("/spaces/hr/parental-leave/"))
    assert response.status_code == 200 and sql


def test_reporting_an_opened_result_keeps_the_reader_on_the_replica(client, handbook, use_replica):  # type: ignore[no-untyped-def]
    """A usage report is a write, but it changes nothing its author reads next: no pin to the primary."""
    import re

    use_replica("replica_test", primary_copy())
    login(client, handbook.reader)
    results = client.get("/search/", {"q": "remote work"}).text
    key = re.search(r'data-search-log="([0-9a-f-]+)"', results).group(1)
    assert client.post("/search/opened/", {"log": key, "page": handbook.remote.pk}).status_code == 204
    response, sql = queries_on("replica_test", lambda: client.get(url(handbook.remote)))
    assert response.status_code == 200 and sql, "still reading from the replica"


def test_an_unreachable_replica_costs_no_request(client, handbook, use_replica, tmp_path):  # type: ignore[no-untyped-def]
    use_replica("replica_down", {**primary_copy(), "HOST": str(tmp_path / "nobody-listens-here")})
    login(client, handbook.reader)
    response = client.get("/search/", {"q": "remote work"})
    assert response.status_code == 200 and "Remote work" in response.text
    assert not replica_usable("replica_down")


def test_a_replica_failing_during_a_request_is_retried_on_the_primary(client, handbook, use_replica, tmp_path):  # type: ignore[no-untyped-def]
    """GIVEN a replica that passed its check WHEN it goes away before the next request reads from it
    THEN the view runs again on the primary and the reader gets the page."""
    use_replica("replica_flaky", primary_copy())
    assert replica_usable("replica_flaky")
    connections["replica_flaky"].close()
    connections["replica_flaky"].settings_dict["HOST"] = str(tmp_path / "gone")

    login(client, handbook.reader)
    for target in (url(handbook.remote), "/search/?q=remote+work"):
        response = client.get(target)
        assert response.status_code == 200 and "Remote work" in response.text, target


# --- a real streaming replica (prove) -----------------------------------------------------


@pytest.fixture(scope="session")
def standby_server(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Standby]:  # type: ignore[no-untyped-def]
    with django_db_blocker.unblock():
        server = Standby(tmp_path_factory.mktemp("standby", numbered=True))
        server.create()
    yield server
    server.stop()


@pytest.fixture
def standby(standby_server, use_replica, settings) -> Standby:  # type: ignore[no-untyped-def]
    if not standby_server.running():
        standby_server.start()
    standby_server.execute("SELECT pg_wal_replay_resume()")
    use_replica("standby", standby_server.settings_dict())
    settings.SEARCH_PARALLEL_LEGS = True
    return standby_server


def wait_for(check: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


@pytest.mark.prove
def test_a_published_page_reaches_its_editor_at_once_and_readers_once_replayed(  # type: ignore[no-untyped-def]
    client, handbook, standby, settings
):
    settings.DATABASE_REPLICA_MAX_LAG_S = 3600.0  # replay is paused below: use the replica anyway
    assert wait_for(lambda: standby.execute("SELECT count(*) FROM handbook_page")[0] >= 4)
    standby.execute("SELECT pg_wal_replay_pause()")
    editor, reader = client, type(client)()
    login(editor, handbook.editor)
    login(reader, handbook.reader)

    response = editor.post(
        "/spaces/hr/_new/", {"title": "Parental leave", "language": "en", "body": "Sixteen weeks.", "action": "publish"}
    )
    assert response.status_code == 302
    assert editor.get("/spaces/hr/parental-leave/").status_code == 200, "the editor sees it at once"
    response, sql = queries_on("standby", lambda: reader.get("/spaces/hr/parental-leave/"))
    assert response.status_code == 404 and sql, "not replayed yet: the replica does not have it"
    assert "Parental leave" not in reader.get("/search/", {"q": "parental leave"}).text

    standby.execute("SELECT pg_wal_replay_resume()")
    assert wait_for(lambda: reader.get("/spaces/hr/parental-leave/").status_code == 200)
    response, sql = queries_on("standby", lambda: reader.get("/search/", {"q": "parental leave"}))
    assert "Parental leave" in response.text and any("search_chunk" in q for q in sql)


@pytest.mark.prove
def test_a_replica_lagging_beyond_the_bound_is_skipped(client, handbook, standby, settings):  # type: ignore[no-untyped-def]
    settings.DATABASE_REPLICA_MAX_LAG_S = 0.5
    settings.DATABASE_REPLICA_CHECK_S = 0.1
    assert wait_for(lambda: standby.execute("SELECT count(*) FROM handbook_page")[0] >= 4)
    standby.execute("SELECT pg_wal_replay_pause()")
    from handbook.services import page_create

    page_create(space=handbook.hr, title="Parental leave", body="Sixteen weeks.", language="en", restricted_to=[])
    time.sleep(1.0)
    login(client, handbook.reader)
    response, sql = queries_on("standby", lambda: client.get("/spaces/hr/parental-leave/"))
    assert response.status_code == 200 and not any("handbook_page" in q for q in sql)


@pytest.mark.prove
def test_stopping_the_replica_mid_test_costs_no_request(client, handbook, standby, settings):  # type: ignore[no-untyped-def]
    settings.DATABASE_REPLICA_CHECK_S = 0.2
    assert wait_for(lambda: standby.execute("SELECT count(*) FROM search_chunk")[0] > 0)
    login(client, handbook.reader)
    targets = [url(handbook.remote), "/search/?q=remote+work", "/search/?q=vpn+client"]
    statuses = []
    for round_number in range(12):
        if round_number == 4:
            standby.stop()
        for target in targets:
            response = client.get(target)
            statuses.append(response.status_code)
            assert response.status_code == 200, (round_number, target)
            assert ("Remote work" in response.text) or ("VPN access" in response.text), target
    assert statuses == [200] * len(statuses)
    assert not replica_usable("standby")
