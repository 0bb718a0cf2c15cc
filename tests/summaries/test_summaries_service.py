"""summary_generate and summary_for_page against the real database and a fake OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import AnonymousUser

from core.llm import LLMUnavailable
from core.text import split_sentences
from handbook.markdown import markdown_to_text
from handbook.services import page_create, page_delete, page_save
from summaries.models import Summary
from summaries.selectors import pages_without_current_summary, source_hash, summaries_for_pages, summary_for_page
from summaries.services import summary_generate
from tests.fake_llm import Reply

pytestmark = pytest.mark.django_db

BODY = """# Remote work

Employees may work from home up to two days per week once their trial period is over.
Remote days are agreed with the manager at the start of each month.

## Equipment

The company lends a laptop and a second screen for home use. Broken equipment is replaced
by the IT desk within two working days. Personal printers are not reimbursed.

## Security

Work laptops must use the VPN on every network outside the office. Public computers must
never be used to open company documents.
"""


@pytest.fixture(autouse=True)
def _fast_passwords(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def space(make_space):  # type: ignore[no-untyped-def]
    return make_space("people", viewers=("staff",), editors=("hr",))


@pytest.fixture
def page(space, make_page):  # type: ignore[no-untyped-def]
    """A published page whose summary has not been generated yet."""
    return make_page(space, "Remote work", BODY, index=False)


@pytest.fixture
def fast_llm(fake_llm, settings):  # type: ignore[no-untyped-def]
    """The fake LLM with short timeouts and no client-side retries."""
    settings.LLM_TIMEOUT_S = 0.5
    settings.LLM_MAX_RETRIES = 0
    return fake_llm


def generate(page):  # type: ignore[no-untyped-def]
    page.refresh_from_db()
    return summary_generate(page_id=page.pk, revision_id=page.published_revision_id)


# --- extractive ---------------------------------------------------------------------


def test_extractive_summary_is_ready_and_verbatim(page):  # type: ignore[no-untyped-def]
    summary = generate(page)
    plain = markdown_to_text(BODY)
    assert summary.status == Summary.Status.READY
    assert summary.method == Summary.Method.EXTRACTIVE
    assert summary.model == ""
    assert summary.revision_id == page.published_revision_id
    assert summary.source_hash == source_hash("Remote work", BODY)
    assert summary.text
    for sentence in split_sentences(summary.text):
        assert sentence in plain, sentence
    assert summary.key_points
    for point in summary.key_points:
        assert point in plain, point


def test_generate_is_idempotent(page):  # type: ignore[no-untyped-def]
    first = generate(page)
    second = generate(page)
    assert second.pk == first.pk
    assert second.updated_at == first.updated_at  # not rewritten
    assert Summary.objects.filter(page=page).count() == 1


def test_force_rewrites_the_same_row(page):  # type: ignore[no-untyped-def]
    first = generate(page)
    forced = summary_generate(page_id=page.pk, revision_id=None, force=True)
    assert forced.pk == first.pk
    assert forced.updated_at > first.updated_at
    assert Summary.objects.filter(page=page).count() == 1


def test_stale_revision_is_skipped(page):  # type: ignore[no-untyped-def]
    old = page.published_revision_id
    page_save(page=page, title="Remote work", body=BODY + "\nThree days from June.\n")
    assert summary_generate(page_id=page.pk, revision_id=old) is None
    assert not Summary.objects.filter(page=page).exists()


def test_revision_none_means_the_published_one(page):  # type: ignore[no-untyped-def]
    summary = summary_generate(page_id=page.pk, revision_id=None)
    assert summary is not None and summary.revision_id == page.published_revision_id


def test_missing_deleted_and_draft_pages_are_skipped(page, space):  # type: ignore[no-untyped-def]
    assert summary_generate(page_id=10**9, revision_id=None) is None
    draft = page_create(space=space, title="Draft", body=BODY, publish=False)
    assert summary_generate(page_id=draft.pk, revision_id=None) is None
    page_delete(page=page)
    assert summary_generate(page_id=page.pk, revision_id=None) is None
    assert not Summary.objects.exists()


def test_same_text_on_a_new_revision_reuses_the_summary(page):  # type: ignore[no-untyped-def]
    first = generate(page)
    page_save(page=page, title="Remote work", body=BODY + "\n")  # a new revision ...
    page_save(page=page, title="Remote work", body=BODY)  # ... and back to the same text
    second = generate(page)
    assert second.pk == first.pk  # keyed by source text, not revision id


def test_empty_page_gets_an_empty_ready_summary(space, make_page):  # type: ignore[no-untyped-def]
    page = make_page(space, "Empty", "", index=False)
    summary = generate(page)
    assert summary.status == Summary.Status.READY
    assert summary.text == ""


# --- LLM -----------------------------------------------------------------------------


def test_llm_summary(page, fast_llm):  # type: ignore[no-untyped-def]
    fast_llm.queue_json(
        {
            "summary": "Two remote days a week after the trial period.",
            "key_points": [" Two days ", "Agree with manager", ""],
        }
    )
    summary = generate(page)
    assert summary.method == Summary.Method.LLM
    assert summary.status == Summary.Status.READY
    assert summary.text == "Two remote days a week after the trial period."
    assert summary.key_points == ["Two days", "Agree with manager"]
    assert summary.model == "fake-model"
    assert len(fast_llm.requests) == 1
    assert "trial period is over" in fast_llm.prompts()  # the page text reached the model
    # Idempotent on the LLM path too: no second call.
    assert generate(page).pk == summary.pk
    assert len(fast_llm.requests) == 1


def test_llm_summary_sentences_the_page_does_not_support_are_left_out(page, fast_llm):  # type: ignore[no-untyped-def]
    fast_llm.queue_json(
        {
            "summary": "Employees may work from home two days per week after the trial period. "
            "Employees may work from home four days per week in summer. "
            "Every employee also receives a yearly gym membership and free lunches.",
            "key_points": ["Two remote days a week", "Broken equipment replaced within five days"],
        }
    )
    summary = generate(page)
    assert summary.method == Summary.Method.LLM
    assert summary.text == "Employees may work from home two days per week after the trial period."
    assert summary.key_points == ["Two remote days a week"]


def test_llm_summary_with_nothing_supported_falls_back_to_extractive(page, fast_llm):  # type: ignore[no-untyped-def]
    fast_llm.queue_json({"summary": "Staff get 45 remote days a year.", "key_points": []})
    summary = generate(page)
    assert summary.method == Summary.Method.EXTRACTIVE and "45" not in summary.text
    assert Summary.objects.get(page=page, method=Summary.Method.LLM).status == Summary.Status.FAILED


@pytest.mark.parametrize(
    "replies",
    [
        [Reply(content="this is not json"), Reply(content="still not json")],
        [Reply(content=""), Reply(content="")],
        [Reply(content=json.dumps({"answer": "wrong shape"}))],
        [Reply(content=json.dumps({"summary": "   "}))],
        [Reply(content=json.dumps({"summary": "ok", "key_points": "not a list"}))],
        [Reply(content=json.dumps({"summary": "ok", "key_points": [1, 2]}))],
        [Reply(content=json.dumps(["summary"]))],
        [Reply(status=400)],
    ],
    ids=[
        "malformed",
        "empty",
        "wrong-shape",
        "blank-summary",
        "points-not-list",
        "points-not-strings",
        "json-array",
        "http-400",
    ],
)
def test_bad_llm_reply_falls_back_to_extractive(page, fast_llm, replies):  # type: ignore[no-untyped-def]
    fast_llm.queue(*replies)
    summary = generate(page)
    assert summary.method == Summary.Method.EXTRACTIVE
    assert summary.status == Summary.Status.READY
    assert summary.text and summary.text.split(" ")[0] in markdown_to_text(BODY)
    failed = Summary.objects.get(page=page, method=Summary.Method.LLM)
    assert failed.status == Summary.Status.FAILED
    assert failed.error
    assert failed.text == ""
    assert fast_llm.requests  # the model was asked


def test_llm_timeout_falls_back(page, fast_llm):  # type: ignore[no-untyped-def]
    fast_llm.queue(Reply(content=json.dumps({"summary": "late"}), delay=1.5))
    summary = generate(page)
    assert summary.method == Summary.Method.EXTRACTIVE and summary.status == Summary.Status.READY
    failed = Summary.objects.get(page=page, method=Summary.Method.LLM)
    assert failed.status == Summary.Status.FAILED
    assert "unavailable" in failed.error


def test_llm_server_error_with_retry_unavailable_raises(page, fast_llm):  # type: ignore[no-untyped-def]
    fast_llm.queue(Reply(status=503))
    page.refresh_from_db()
    with pytest.raises(LLMUnavailable):
        summary_generate(page_id=page.pk, revision_id=page.published_revision_id, retry_unavailable=True)
    failed = Summary.objects.get(page=page, method=Summary.Method.LLM)
    assert failed.status == Summary.Status.FAILED
    assert not Summary.objects.filter(page=page, status=Summary.Status.READY).exists()


def test_llm_success_after_a_failure_clears_the_error(page, fast_llm):  # type: ignore[no-untyped-def]
    fast_llm.queue(Reply(status=503))
    page.refresh_from_db()
    with pytest.raises(LLMUnavailable):
        summary_generate(page_id=page.pk, revision_id=page.published_revision_id, retry_unavailable=True)
    fast_llm.queue_json({"summary": "Two remote days.", "key_points": []})
    summary = generate(page)
    assert summary.method == Summary.Method.LLM and summary.status == Summary.Status.READY
    assert summary.error == ""
    assert Summary.objects.filter(page=page).count() == 1  # the failed row became the ready one


def test_configuring_an_llm_later_produces_an_llm_summary(page, settings):  # type: ignore[no-untyped-def]
    from tests.fake_llm import FakeLLMServer

    assert generate(page).method == Summary.Method.EXTRACTIVE
    with FakeLLMServer() as fake:
        settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_TIMEOUT_S = fake.base_url, "fake-model", 2.0
        fake.queue_json({"summary": "Two remote days.", "key_points": []})
        assert generate(page).method == Summary.Method.LLM


# --- summary_for_page -----------------------------------------------------------------


def test_summary_for_page_respects_read_permission(page, space, make_user, make_page):  # type: ignore[no-untyped-def]
    summary = generate(page)
    reader = make_user("bob", "staff")
    assert summary_for_page(page=page, user=reader) == (summary, False)  # (summary, updating)
    assert summary_for_page(page=page, user=make_user("eve")) == (None, False)
    assert summary_for_page(page=page, user=AnonymousUser()) == (None, False)

    restricted = make_page(
        space,
        "Salary bands",
        "# Salary\n\nBands are reviewed every spring by the board.",
        restricted_to=("payroll",),
        index=False,
    )
    assert generate(restricted) is not None
    assert summary_for_page(page=restricted, user=reader) == (None, False)
    payroll = make_user("paula", "staff", "payroll")
    found, updating = summary_for_page(page=restricted, user=payroll)
    assert found is not None and not updating


def test_summary_for_page_after_delete(page, make_user):  # type: ignore[no-untyped-def]
    generate(page)
    page_delete(page=page)
    assert summary_for_page(page=page, user=make_user("bob", "staff")) == (None, False)


def test_older_summary_is_never_returned(page, make_user):  # type: ignore[no-untyped-def]
    reader = make_user("bob", "staff")
    old = generate(page)
    page_save(page=page, title="Remote work", body=BODY.replace("two days", "three days"))
    page.refresh_from_db()
    # It may quote text the new revision removed: the page says "being updated" instead.
    assert summary_for_page(page=page, user=reader) == (None, True)
    assert pages_without_current_summary(type(page).objects.filter(pk=page.pk)) == [page.pk]
    assert summaries_for_pages([page.pk]) == {}  # search shows no outdated summary

    new = generate(page)
    assert new.pk != old.pk
    assert summary_for_page(page=page, user=reader) == (new, False)
    assert pages_without_current_summary(type(page).objects.filter(pk=page.pk)) == []
    assert summaries_for_pages([page.pk]) == {page.pk: new}


def test_a_summary_of_the_same_text_counts_whatever_revision_it_names(space, make_page):  # type: ignore[no-untyped-def]
    """The text's hash is computed by Postgres: it must be source_hash's, accents and emoji included."""
    page = make_page(space, "Télétravail 🙂", BODY.replace("Remote work", "Travail à distance — été"), index=False)
    summary = generate(page)
    assert pages_without_current_summary(type(page).objects.filter(pk=page.pk)) == []
    shown = summaries_for_pages([page.pk])[page.pk]  # read raw: every field as the ORM reads it
    assert shown.key_points and all(isinstance(point, str) for point in shown.key_points)
    for field in Summary._meta.concrete_fields:
        assert getattr(shown, field.attname) == getattr(summary, field.attname), field.name
    Summary.objects.filter(pk=summary.pk).update(revision=None)  # as after its revision was deleted
    assert pages_without_current_summary(type(page).objects.filter(pk=page.pk)) == []  # the same text
    assert list(summaries_for_pages([page.pk])) == [page.pk]
    Summary.objects.filter(pk=summary.pk).update(source_hash=source_hash("other", "text"))
    assert pages_without_current_summary(type(page).objects.filter(pk=page.pk)) == [page.pk]


def test_failed_llm_row_is_never_shown(page, fast_llm, make_user):  # type: ignore[no-untyped-def]
    fast_llm.queue(Reply(status=503))
    page.refresh_from_db()
    with pytest.raises(LLMUnavailable):
        summary_generate(page_id=page.pk, revision_id=page.published_revision_id, retry_unavailable=True)
    assert summary_for_page(page=page, user=make_user("bob", "staff")) == (None, False)
    assert summaries_for_pages([page.pk]) == {}
