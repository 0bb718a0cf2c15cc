"""``load_corpus`` and ``seed_demo``: JSONL import through the real management commands."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command

from handbook.models import Page, Revision, Space
from search.models import Chunk, IndexState
from summaries.models import Summary

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_passwords(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def item(ref: str, title: str = "Title", body: str = "Body text.", lang: str = "en", **extra) -> dict:  # type: ignore[no-untyped-def,type-arg]
    return {"id": ref, "title": title, "body": body, "lang": lang, **extra}


def write_jsonl(path: Path, *lines: dict | str | bytes) -> Path:  # type: ignore[type-arg]
    with path.open("wb") as handle:
        for line in lines:
            if isinstance(line, dict):
                line = json.dumps(line, ensure_ascii=False)
            if isinstance(line, str):
                line = line.encode("utf-8")
            handle.write(line + b"\n")
    return path


def load(path: Path, *args: str, space: str = "people") -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("load_corpus", str(path), "--space", space, *args, verbosity=0, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


# --- creating, updating, idempotence -------------------------------------------------


def test_import_creates_space_groups_and_pages(tmp_path):  # type: ignore[no-untyped-def]
    path = write_jsonl(
        tmp_path / "c.jsonl",
        item("ext:1", "Annual leave", "Twenty five days."),
        item("ext:2", "Congés payés", "Vingt-cinq jours.", lang="fr"),
    )
    out, err = load(path, "--space-title", "People & Leave", "--viewer-group", "staff", "--editor-group", "hr")
    assert "2 created, 0 updated, 0 unchanged, 0 bad line(s) skipped" in out
    assert err == ""
    space = Space.objects.get(slug="people")
    assert space.title == "People & Leave"
    assert list(space.viewer_groups.values_list("name", flat=True)) == ["staff"]
    assert list(space.editor_groups.values_list("name", flat=True)) == ["hr"]
    leave = Page.objects.get(ref="ext:1")
    assert leave.space == space and leave.is_published and leave.body == "Twenty five days."
    assert leave.language == "en"
    conges = Page.objects.get(ref="ext:2")
    assert conges.language == "fr" and conges.slug == "conges-payes"


def test_default_space_title_from_slug(tmp_path):  # type: ignore[no-untyped-def]
    load(write_jsonl(tmp_path / "c.jsonl", item("ext:1")), space="it-security")
    assert Space.objects.get(slug="it-security").title == "It Security"


def test_rerun_without_space_title_keeps_the_title(tmp_path):  # type: ignore[no-untyped-def]
    """GIVEN a space created with --space-title (or renamed since)
    WHEN the corpus is loaded again without --space-title
    THEN the space keeps its title (it used to be reset to the slug in title case)."""
    path = write_jsonl(tmp_path / "c.jsonl", item("ext:1"))
    load(path, "--space-title", "People & Leave")
    out, _err = load(path)
    assert Space.objects.get(slug="people").title == "People & Leave"
    assert "renamed" not in out
    Space.objects.filter(slug="people").update(title="People (renamed by an admin)")
    load(path, "--viewer-group", "staff")
    space = Space.objects.get(slug="people")
    assert space.title == "People (renamed by an admin)"
    assert list(space.viewer_groups.values_list("name", flat=True)) == ["staff"]


def test_space_title_renames_when_given(tmp_path):  # type: ignore[no-untyped-def]
    path = write_jsonl(tmp_path / "c.jsonl", item("ext:1"))
    load(path, "--space-title", "People & Leave")
    out, _err = load(path, "--space-title", "  People  ")
    assert Space.objects.get(slug="people").title == "People"
    assert "Space 'people' renamed from 'People & Leave' to 'People'." in out


def test_empty_space_title_is_refused_and_changes_nothing(tmp_path):  # type: ignore[no-untyped-def]
    path = write_jsonl(tmp_path / "c.jsonl", item("ext:1"))
    load(path, "--space-title", "People & Leave")
    with pytest.raises(CommandError, match="--space-title is empty"):
        load(write_jsonl(tmp_path / "v2.jsonl", item("ext:2")), "--space-title", " ", "--viewer-group", "new")
    assert Space.objects.get(slug="people").title == "People & Leave"
    assert not Page.objects.filter(ref="ext:2").exists()
    assert not Group.objects.filter(name="new").exists()


def test_second_identical_import_changes_nothing(tmp_path):  # type: ignore[no-untyped-def]
    path = write_jsonl(tmp_path / "c.jsonl", item("ext:1", "A", "One."), item("ext:2", "B", "Two."))
    load(path)
    revisions = set(Revision.objects.values_list("id", flat=True))
    out, _err = load(path)
    assert "0 created, 0 updated, 2 unchanged" in out
    assert set(Revision.objects.values_list("id", flat=True)) == revisions
    assert Page.objects.count() == 2


def test_changed_body_writes_a_new_revision(tmp_path):  # type: ignore[no-untyped-def]
    load(write_jsonl(tmp_path / "v1.jsonl", item("ext:1", "A", "One."), item("ext:2", "B", "Two.")))
    out, _err = load(write_jsonl(tmp_path / "v2.jsonl", item("ext:1", "A", "One, edited."), item("ext:2", "B", "Two.")))
    assert "0 created, 1 updated, 1 unchanged" in out
    page = Page.objects.get(ref="ext:1")
    assert page.body == "One, edited."
    assert page.published_revision.number == 2
    assert Page.objects.get(ref="ext:2").revisions.count() == 1


def test_a_known_id_keeps_its_space(tmp_path):  # type: ignore[no-untyped-def]
    """An id is a page: importing it into another space updates it where it lives."""
    path = write_jsonl(tmp_path / "c.jsonl", item("ext:1", "A", "One."))
    load(path, space="people")
    out, _err = load(path, space="it")
    assert "0 created, 0 updated, 1 unchanged" in out
    assert Page.objects.get(ref="ext:1").space.slug == "people"


# --- bad lines ---------------------------------------------------------------------


def test_bad_lines_are_reported_with_numbers_and_skipped(tmp_path):  # type: ignore[no-untyped-def]
    path = write_jsonl(
        tmp_path / "c.jsonl",
        item("ok:1", "First", "Fine."),  # 1
        '{"id": "broken", "title": ',  # 2 bad JSON
        json.dumps({"id": "x", "title": "t"}),  # 3 missing fields
        "[1, 2, 3]",  # 4 not an object
        json.dumps({"id": 5, "title": "t", "body": "b", "lang": "en"}),  # 5 wrong type
        json.dumps(item("nul", "NUL", "a\x00b")),  # 6 NUL in body
        json.dumps(item("   ", "Empty id", "x")),  # 7 empty id
        b'{"id": "bin", "title": "\xff\xfe", "body": "x", "lang": "en"}',  # 8 not UTF-8
        "",  # 9 blank
        "   ",  # 10 blank
        json.dumps(item("ok:2", "Second", "Fine too.")),  # 11
        json.dumps(item("grp", "Groups", "x", restricted_to="hr")),  # 12 restricted_to not a list
        json.dumps(item("notitle", "   ", "x")),  # 13 empty title
        json.dumps(item("long", "Long id", "x") | {"id": "x" * 501}),  # 14 id too long
        json.dumps(item("ok:3", "Third", "Fine as well.")),  # 15
    )
    out, err = load(path)
    assert "3 created, 0 updated, 0 unchanged, 10 bad line(s) skipped" in out
    reported = {int(line.split(":")[1]): line for line in err.strip().splitlines()}
    assert sorted(reported) == [2, 3, 4, 5, 6, 7, 8, 12, 13, 14]
    assert all(line.startswith(f"{path}:") and ": skipped: " in line for line in reported.values())
    assert "bad JSON" in reported[2]
    assert "missing field(s): body, lang" in reported[3]
    assert "expected a JSON object" in reported[4]
    assert "field 'id' must be a string" in reported[5]
    assert "NUL" in reported[6]
    assert "field 'id' is empty" in reported[7]
    assert "not UTF-8" in reported[8]
    assert "restricted_to" in reported[12]
    assert "field 'title' is empty" in reported[13]
    assert "longer than 500" in reported[14]
    assert set(Page.objects.values_list("ref", flat=True)) == {"ok:1", "ok:2", "ok:3"}


def test_bad_line_count_in_summary_matches_stderr(tmp_path):  # type: ignore[no-untyped-def]
    path = write_jsonl(tmp_path / "c.jsonl", item("ok:1"), "not json", "[]")
    out, err = load(path)
    assert "1 created, 0 updated, 0 unchanged, 2 bad line(s) skipped" in out
    assert len(err.strip().splitlines()) == 2


def test_raw_nul_byte_and_control_characters(tmp_path):  # type: ignore[no-untyped-def]
    path = write_jsonl(
        tmp_path / "c.jsonl",
        b'{"id": "raw", "title": "t", "body": "a\x00b", "lang": "en"}',
        json.dumps(item("tab", "Tabs\tand\x07bell", "Body\twith\x0bcontrols.")),
    )
    out, err = load(path)
    assert "1 created" in out
    assert f"{path}:1: skipped:" in err
    assert Page.objects.get(ref="tab").body == "Body\twith\x0bcontrols."


def test_nul_in_id_is_a_bad_line(tmp_path):  # type: ignore[no-untyped-def]
    path = write_jsonl(tmp_path / "c.jsonl", item("bad\x00id"), item("ok:1"))
    out, err = load(path)
    assert f"{path}:1: skipped:" in err
    assert Page.objects.filter(ref="ok:1").exists()


def test_overlong_group_name_is_a_bad_line(tmp_path):  # type: ignore[no-untyped-def]
    path = write_jsonl(tmp_path / "c.jsonl", item("grp", restricted_to=["g" * 200]), item("ok:1"))
    out, err = load(path)
    assert f"{path}:1: skipped:" in err
    assert Page.objects.filter(ref="ok:1").exists()


def test_file_of_only_blank_and_bad_lines(tmp_path):  # type: ignore[no-untyped-def]
    out, err = load(write_jsonl(tmp_path / "c.jsonl", "", "nope", ""))
    assert "0 created, 0 updated, 0 unchanged, 1 bad line(s) skipped" in out
    assert f"{tmp_path / 'c.jsonl'}:2: skipped:" in err
    assert not Page.objects.exists()


def test_missing_file_is_a_command_error(tmp_path):  # type: ignore[no-untyped-def]
    with pytest.raises(CommandError, match="no such file"):
        load(tmp_path / "absent.jsonl")
    assert not Space.objects.filter(slug="people").exists()


# --- fields ------------------------------------------------------------------------


def test_restricted_to_creates_groups_and_restricts(tmp_path):  # type: ignore[no-untyped-def]
    load(
        write_jsonl(
            tmp_path / "c.jsonl",
            item("sec", "Salary bands", "Levels.", restricted_to=["payroll", "hr"]),
            item("pub", "Open", "Everyone."),
        )
    )
    assert set(Page.objects.get(ref="sec").restricted_to_groups.values_list("name", flat=True)) == {"payroll", "hr"}
    assert not Page.objects.get(ref="pub").restricted_to_groups.exists()
    assert Group.objects.filter(name="payroll").exists()


def test_restricted_to_changes_on_reimport(tmp_path):  # type: ignore[no-untyped-def]
    load(write_jsonl(tmp_path / "v1.jsonl", item("sec", "Salary bands", "Levels.", restricted_to=["payroll"])))
    load(write_jsonl(tmp_path / "v2.jsonl", item("sec", "Salary bands", "Levels.", restricted_to=["finance"])))
    assert list(Page.objects.get(ref="sec").restricted_to_groups.values_list("name", flat=True)) == ["finance"]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "en"),
        ("fr", "fr"),
        ("FR", "fr"),
        ("fr-CA", "fr"),
        ("fr_CA", "fr"),
        ("en-GB", "en"),
        (" fr ", "fr"),
    ],
)
def test_language_is_normalised(tmp_path, lang, expected):  # type: ignore[no-untyped-def]
    load(write_jsonl(tmp_path / "c.jsonl", item("ext:1", lang=lang)))
    assert Page.objects.get(ref="ext:1").language == expected


@pytest.mark.parametrize("lang", ["de", "", "  ", "klingon", "french", "de-FR", "x"])
def test_unknown_language_is_a_bad_line_not_english(tmp_path, lang):  # type: ignore[no-untyped-def]
    """GIVEN a line whose lang is not a handbook language
    WHEN it is loaded
    THEN that line is reported with its number and the allowed languages, and skipped (it used to
    be imported as English, indexed with the wrong stemming); the other lines import."""
    path = write_jsonl(tmp_path / "c.jsonl", item("ok:1", "Fine"), item("ext:de", "Urlaub", lang=lang))
    out, err = load(path)
    assert "1 created, 0 updated, 0 unchanged, 1 bad line(s) skipped" in out
    assert err.startswith(f"{path}:2: skipped: field 'lang' ")
    assert "(allowed: en, fr)" in err
    assert len(err.strip().splitlines()) == 1
    assert not Page.objects.filter(ref="ext:de").exists()
    assert Page.objects.filter(ref="ok:1").exists()


def test_unknown_language_on_reimport_leaves_the_page_alone(tmp_path):  # type: ignore[no-untyped-def]
    load(write_jsonl(tmp_path / "v1.jsonl", item("ext:1", "Congés", "Vingt-cinq jours.", lang="fr")))
    page = Page.objects.get(ref="ext:1")
    out, err = load(write_jsonl(tmp_path / "v2.jsonl", item("ext:1", "Urlaub", "Fünfundzwanzig Tage.", lang="de")))
    assert "0 created, 0 updated, 0 unchanged, 1 bad line(s) skipped" in out
    assert "field 'lang' is 'de'" in err
    page.refresh_from_db()
    assert (page.language, page.title, page.body) == ("fr", "Congés", "Vingt-cinq jours.")
    assert page.revisions.count() == 1


def test_title_is_trimmed_and_capped(tmp_path):  # type: ignore[no-untyped-def]
    load(write_jsonl(tmp_path / "c.jsonl", item("ext:1", "  Spaced  "), item("ext:2", "T" * 400)))
    assert Page.objects.get(ref="ext:1").title == "Spaced"
    assert len(Page.objects.get(ref="ext:2").title) == 300


# --- --wait without a worker ----------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_worker(monkeypatch):  # type: ignore[no-untyped-def]
    """These tests prove the no-worker path: a worker left by another test must not be used."""
    monkeypatch.setattr("handbook.management.commands.load_corpus.workers_available", lambda timeout=1.0: False)


def test_wait_without_worker_indexes_inline(tmp_path):  # type: ignore[no-untyped-def]
    path = write_jsonl(
        tmp_path / "c.jsonl",
        item(
            "ext:1",
            "Annual leave",
            "# Annual leave\n\nEvery employee gets twenty five days of "
            "paid leave per year. Requests go through the portal.",
        ),
        item(
            "ext:2",
            "Congés",
            "# Congés\n\nChaque salarié a droit à vingt-cinq jours de congés "
            "payés par an. Les demandes passent par le portail.",
            lang="fr",
        ),
    )
    out, _err = load(path, "--wait", "--timeout", "30")
    assert "No worker is running: indexing 2 page(s) in this process." in out
    assert out.rstrip().endswith("All pages indexed.")
    for page in Page.objects.all():
        chunks = list(Chunk.objects.filter(page=page))
        assert chunks, page.ref
        assert all(c.embedding is not None for c in chunks)
        assert all(c.language == page.language for c in chunks)
        state = IndexState.objects.get(page=page)
        assert state.status == IndexState.Status.INDEXED
        assert state.revision_id == page.published_revision_id
        assert Summary.objects.filter(page=page, status=Summary.Status.READY).exists()


def test_wait_again_has_nothing_to_do(tmp_path, no_embeddings):  # type: ignore[no-untyped-def]
    path = write_jsonl(tmp_path / "c.jsonl", item("ext:1", "A", "# A\n\nSome words about leave and pay."))
    load(path, "--wait", "--timeout", "30")
    summaries = set(Summary.objects.values_list("id", "updated_at"))
    out, _err = load(path, "--wait", "--timeout", "30")
    assert "indexing 0 page(s)" in out
    assert set(Summary.objects.values_list("id", "updated_at")) == summaries


def test_language_change_on_reimport_reindexes(tmp_path, no_embeddings):  # type: ignore[no-untyped-def]
    body = "# Télétravail\n\nLe télétravail est possible deux jours par semaine."
    load(write_jsonl(tmp_path / "v1.jsonl", item("ext:1", "Télétravail", body, lang="en")), "--wait", "--timeout", "30")
    out, _err = load(
        write_jsonl(tmp_path / "v2.jsonl", item("ext:1", "Télétravail", body, lang="fr")), "--wait", "--timeout", "30"
    )
    page = Page.objects.get(ref="ext:1")
    assert page.language == "fr"
    assert set(Chunk.objects.filter(page=page).values_list("language", flat=True)) == {"fr"}


# --- seed_demo ---------------------------------------------------------------------


def test_seed_demo_creates_users_spaces_pages_and_is_idempotent(no_embeddings, monkeypatch):  # type: ignore[no-untyped-def]
    from search import tasks

    queued: list[str] = []
    monkeypatch.setattr(tasks.refresh_lexicon, "apply_async", lambda *args, **kwargs: queued.append("lexicon"))
    out, err = StringIO(), StringIO()
    call_command("seed_demo", stdout=out, stderr=err)
    assert err.getvalue() == ""
    assert queued == ["lexicon"]  # the word-translation vocabulary follows the demo's indexing
    assert "vocabulary: queued" in out.getvalue()
    assert "0 updated, 0 unchanged" in out.getvalue()
    assert set(User.objects.values_list("username", flat=True)) >= {"admin", "alice", "bob", "chloe", "david"}
    assert User.objects.get(username="admin").is_superuser
    assert set(User.objects.get(username="alice").groups.values_list("name", flat=True)) == {"staff", "hr"}
    assert authenticate(username="bob", password="bob-demo") is not None
    slugs = set(Space.objects.values_list("slug", flat=True))
    assert slugs >= {"people", "finance", "it", "onboarding", "hr-confidential"}
    pages = Page.objects.count()
    assert pages >= 30
    assert Page.objects.filter(language="fr").exists() and Page.objects.filter(language="en").exists()
    assert Page.objects.filter(restricted_to_groups__isnull=False).exists()
    assert set(Space.objects.get(slug="hr-confidential").viewer_groups.values_list("name", flat=True)) == {"hr"}
    revisions = Revision.objects.count()
    users = User.objects.count()

    out2 = StringIO()
    call_command("seed_demo", stdout=out2, stderr=StringIO())
    assert f"0 pages created, 0 updated, {pages} unchanged" in out2.getvalue()
    assert Revision.objects.count() == revisions
    assert User.objects.count() == users
    assert Page.objects.count() == pages
    # Passwords are not reset on a second run.
    assert authenticate(username="bob", password="bob-demo") is not None
