"""The admin says where the configured model's calibration stands, and a button queues it.

States (search/calibration/status.py): shipped, calibrated at …, pending (queued, not yet run),
running, failed (with the error and when), none. The button posts to the index status page's own
URL: it puts the calibration task on the broker (the test Redis, read back), only for a superuser
with the index's change permission, and says so in a message.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import translation

from core.queues import INTERACTIVE, QUEUES
from search.admin import index_overview
from search.calibration import status
from search.calibration.status import calibrate_recorded, calibration_queued, calibration_status
from search.embedding.embedders import LOCAL_MODEL_NAME
from search.models import DecisionPolicy

pytestmark = pytest.mark.django_db

TASK = "search.tasks.calibrate_model"


@pytest.fixture(autouse=True)
def _no_status_left() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def broker() -> Iterator[object]:
    """Tasks sent to the test Redis (not run eagerly); returns a function listing (queue, task, args)."""
    from config.celery import app

    app.conf.task_always_eager = False  # the autouse _celery_eager fixture switches it back
    with app.connection_for_write() as connection:
        client = connection.default_channel.client
        client.delete(*QUEUES)

        def held() -> list[tuple[str, str, list[object]]]:
            out = []
            for queue in QUEUES:
                for message in client.lrange(queue, 0, -1):
                    body = json.loads(message)
                    args = json.loads(base64.b64decode(body["body"]))[0]
                    out.append((queue, body["headers"]["task"], args))
            return out

        yield held
        client.delete(*QUEUES)


def test_each_state_says_what_it_is() -> None:
    model = "a-model-with-no-policy"
    assert calibration_status("").text.startswith("(embeddings off")
    assert calibration_status(LOCAL_MODEL_NAME).text == "Shipped with the application"
    assert calibration_status(model).text.startswith("NONE YET")
    assert calibration_status(model).can_run
    cache.set(f"decisions:calibrating:{model}", 1)  # what the policy's first request leaves
    assert calibration_status(model).text.startswith("PENDING: queued, not yet run.")
    calibration_queued(model)
    pending = calibration_status(model)
    assert pending.state == "queued" and pending.at is not None
    assert pending.text.startswith("PENDING: queued at ")


def test_a_failed_calibration_is_recorded_with_its_error_and_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    model = "a-model-with-no-policy"

    def unreachable(name: str) -> bool:
        raise RuntimeError("embedding endpoint refused the connection")

    monkeypatch.setattr(status, "calibrate_if_missing", unreachable)
    with pytest.raises(RuntimeError):
        calibrate_recorded(model)
    failed = calibration_status(model)
    assert failed.state == "failed" and failed.at is not None and failed.can_run
    assert failed.text.startswith("FAILED at ")
    assert "RuntimeError: embedding endpoint refused the connection" in failed.text
    with translation.override("fr"):
        assert calibration_status(model).text.startswith("ÉCHEC le ")
    # A run that then succeeds (or finds nothing to do) clears the record.
    monkeypatch.setattr(status, "calibrate_if_missing", lambda name: False)
    assert calibrate_recorded(model) is False
    assert calibration_status(model).state == "none"


def test_a_calibrated_model_says_when_and_on_how_many_questions() -> None:
    model = "a-calibrated-model"
    DecisionPolicy.objects.create(
        model=model, decisions={"query": {"features": []}}, report={"calibration_set": {"questions": 42}}
    )
    found = calibration_status(model)
    assert found.state == "calibrated" and not found.can_run
    assert found.text.startswith("Calibrated at ") and "(42 labelled questions)" in found.text


def test_the_button_queues_the_calibration_for_a_superuser(second_model, broker, make_user, client) -> None:  # type: ignore[no-untyped-def]
    admin = make_user("root", superuser=True)
    client.force_login(admin)
    page = client.get(reverse("admin:search_indexstate_changelist"))
    assert b"Run calibration now" in page.content
    assert "NONE YET" in index_overview()["decisions"] or "PENDING" in index_overview()["decisions"]
    assert client.get(reverse("admin:search_calibrate")).status_code == 405  # a GET queues nothing
    assert broker() == []
    answer = client.post(reverse("admin:search_calibrate"), follow=True)
    assert answer.status_code == 200
    assert broker() == [(INTERACTIVE, TASK, [second_model.model])]
    assert f"Calibration of {second_model.model} queued" in answer.content.decode()
    assert index_overview()["decisions"].startswith("PENDING: queued at ")
    # CSRF: the admin's form carries a token; a post without one is refused.
    strict = type(client)(enforce_csrf_checks=True)
    strict.force_login(admin)
    assert strict.post(reverse("admin:search_calibrate")).status_code == 403


def test_the_button_is_refused_to_staff_who_are_not_superusers(second_model, broker, make_user, client) -> None:  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import Permission

    staff = make_user("sam", staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__in=["change_indexstate", "view_indexstate"]))
    client.force_login(staff)
    answer = client.post(reverse("admin:search_calibrate"))
    assert answer.status_code == 302 and reverse("admin:login") in answer["Location"]
    assert broker() == []
    assert calibration_status(second_model.model).state == "none"


def test_no_button_where_the_model_has_a_policy(make_user, client) -> None:  # type: ignore[no-untyped-def]
    client.force_login(make_user("root", superuser=True))
    page = client.get(reverse("admin:search_indexstate_changelist"))
    assert b"Shipped with the application" in page.content
    assert b"Run calibration now" not in page.content
