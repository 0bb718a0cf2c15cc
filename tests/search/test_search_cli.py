"""``manage.py search``: one query or a batch, as a user, through the one retrieval path."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.decisions import every_neighbour

LEAVE = """# Annual leave

Every employee gets 25 days of paid leave per year. Ask your manager before booking leave.

## Carry over

Up to five unused days of leave may be carried over to the next year.
"""

SALARIES = """# Salary bands for leave cover

Confidential: salary bands and the bonus paid to staff who cover annual leave.
"""

BOARD = """# Board minutes on leave policy

The board discussed extending annual leave to 30 days.
"""


@pytest.fixture
def handbook(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    people = make_space("people", viewers=("staff",))
    board = make_space("board", viewers=("board",))
    pages = {
        "leave": make_page(people, "Leave policy", LEAVE, ref="test:leave"),
        "salaries": make_page(people, "Salary bands", SALARIES, restricted_to=("hr",), ref="test:salaries"),
        "board": make_page(board, "Board minutes", BOARD, ref="test:board"),
    }
    users = {
        "bob": make_user("bob", "staff"),
        "alice": make_user("alice", "staff", "hr"),
        "root": make_user("root", superuser=True),
    }
    return pages, users


RESTRICTED = {"test:salaries", "test:board"}


def run(*args: str, **options) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    out, err = StringIO(), StringIO()
    call_command("search", *args, stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def refs(output: str) -> list[str]:
    return [r["ref"] for r in json.loads(output)["results"]]


@pytest.mark.django_db
def test_json_shape(handbook):  # type: ignore[no-untyped-def]
    out, _ = run("paid leave carry over", user="bob", json=True)
    data = json.loads(out)
    assert data["query"] == "paid leave carry over"
    assert data["results"], "the leave page should match"
    first = data["results"][0]
    assert set(first) == {"ref", "title", "anchor", "score", "space", "language", "snippet", "url"}
    assert first["ref"] == "test:leave"
    assert first["title"] == "Leave policy"
    assert first["space"] == "people"
    assert first["language"] == "en"
    assert first["anchor"] in {"annual-leave", "carry-over"}
    assert isinstance(first["score"], float) and first["score"] > 0
    assert "<mark>" not in first["snippet"] and "leave" in first["snippet"]
    assert len({r["ref"] for r in data["results"]}) == len(data["results"]), "each page once"


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["hybrid", "keyword", "vector"])
def test_user_never_sees_restricted_refs(handbook, mode):  # type: ignore[no-untyped-def]
    query = "annual leave salary bands board minutes bonus"
    if mode == "vector":  # meaning alone lists pages only for a query that means something: say it does
        every_neighbour()
    out, _ = run(query, user="bob", json=True, mode=mode, limit=100)
    assert "test:leave" in refs(out)
    assert not RESTRICTED & set(refs(out))

    table, _ = run(query, user="bob", mode=mode)
    assert "Leave policy" in table
    assert "Salary bands" not in table and "test:salaries" not in table and "Board minutes" not in table

    # The reader in the right groups does see them: the filter is per user, not a blanket one.
    out, _ = run(query, user="alice", json=True, mode=mode, limit=100)
    assert "test:salaries" in refs(out) and "test:board" not in refs(out)
    out, _ = run(query, user="root", json=True, mode=mode, limit=100)
    assert set(refs(out)) >= RESTRICTED


@pytest.mark.django_db
def test_batch_reports_bad_lines_and_continues(handbook, tmp_path):  # type: ignore[no-untyped-def]
    batch = tmp_path / "queries.jsonl"
    batch.write_text(
        "\n".join(
            [
                json.dumps({"qid": "q1", "query": "annual leave"}),
                "{not json",
                json.dumps({"qid": "q2"}),
                json.dumps(["qid", "query"]),
                "",
                json.dumps({"qid": "q3", "query": "salary bands bonus"}),
                json.dumps({"qid": 4, "query": "leave " * 400}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    out, err = run(batch=str(batch), user="bob", limit=5)
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["qid"] for line in lines] == ["q1", "q3", 4]
    for line in lines[:2]:
        assert set(line) == {"qid", "results"}
        assert all(set(r) == {"ref", "title", "anchor", "score"} for r in line["results"])
        assert len(line["results"]) <= 5
        assert not RESTRICTED & {r["ref"] for r in line["results"]}
        page_refs = [r["ref"] for r in line["results"]]
        assert len(page_refs) == len(set(page_refs))
        scores = [r["score"] for r in line["results"]]
        assert scores == sorted(scores, reverse=True)
    assert lines[0]["results"][0]["ref"] == "test:leave"
    assert lines[2]["results"] == [] and "too long" in lines[2]["error"]
    assert f"{batch}:2:" in err and "bad JSON" in err
    assert f"{batch}:3:" in err and "query" in err
    assert f"{batch}:4:" in err
    assert f"{batch}:7:" in err and "too long" in err
    assert "Traceback" not in err


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["", "   ", "?!…", '""'])
def test_empty_query_says_so(handbook, query):  # type: ignore[no-untyped-def]
    with pytest.raises(CommandError, match="Nothing to search for"):
        run(query, user="bob")
    out, err = run(query, user="bob", json=True)
    assert json.loads(out) == {"query": query, "results": []}
    assert "Nothing to search for" in err


@pytest.mark.django_db
def test_ten_kilobyte_query_is_a_clear_error(handbook):  # type: ignore[no-untyped-def]
    query = "leave " * 1700  # ~10 kB
    with pytest.raises(CommandError, match=r"too long \(\d+ characters\); the limit is 1000") as info:
        run(query, user="bob")
    assert "Traceback" not in str(info.value)
    with pytest.raises(CommandError, match="too long"):
        run(query, user="bob", json=True)


@pytest.mark.django_db
def test_unknown_user_and_missing_query(handbook):  # type: ignore[no-untyped-def]
    with pytest.raises(CommandError, match="no such user"):
        run("leave", user="mallory")
    with pytest.raises(CommandError, match="QUERY"):
        run(user="bob")
    with pytest.raises(CommandError, match="not both"):
        run("leave", user="bob", batch="whatever.jsonl")
    with pytest.raises(CommandError, match="no such file"):
        run(user="bob", batch="/nonexistent/queries.jsonl")


@pytest.mark.django_db
def test_limit_and_no_results(handbook):  # type: ignore[no-untyped-def]
    out, _ = run("leave", user="root", json=True, limit=1)
    assert len(json.loads(out)["results"]) == 1
    with pytest.raises(CommandError):
        run("leave", user="bob", limit=0)
    table, _ = run("zzzqqq", user="bob", mode="keyword")
    assert table.startswith('No results for "zzzqqq"')


@pytest.mark.django_db
def test_inactive_user_sees_nothing(handbook):  # type: ignore[no-untyped-def]
    _pages, users = handbook
    users["alice"].is_active = False
    users["alice"].save()
    out, _ = run("salary bands leave", user="alice", json=True)
    assert refs(out) == []
