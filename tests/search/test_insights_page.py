"""The Insights page: space editors see their spaces' gaps, and nothing of other spaces."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache

from search.models import AskLog, SearchMiss

pytestmark = pytest.mark.django_db

GARAGE = "# Parking\n\nThe garage under building B has forty spaces.\n"
BANDS = "# Salary bands\n\nThe bandsecret grid of engineering levels.\n"


@pytest.fixture(autouse=True)
def _fast(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


def _log(question: str, *, spaces: list[int], mode: str = AskLog.Mode.NO_ANSWER, **fields: Any) -> AskLog:
    return AskLog.objects.create(question=question, mode=mode, passage_spaces=spaces, **fields)


def _cite(page: Any, quote: str = "", revision: int = 1) -> dict[str, Any]:
    return {"ref": page.ref, "anchor": "", "revision": revision, "quote": quote}


@pytest.fixture
def world(make_space, make_page, make_user, no_embeddings) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    a = make_space("facilities", viewers=("staff",), editors=("a-editors",))
    b = make_space("payroll", viewers=("payroll",), editors=("b-editors",))
    garage = make_page(a, "Parking garage", GARAGE, ref="garage")
    bands = make_page(b, "Salary bandtitle", BANDS, ref="bands")
    # Unanswered questions: near-misses in A, in B only, in both, and nowhere (asked by several
    # people, and by one).
    for n in range(3):
        _log("What is the wifi password?", spaces=[], user=make_user(f"asker{n}", "staff"))
    for n in range(3):  # searched by several people (visibility.MIN_ASKERS), and by one
        SearchMiss.objects.create(query="plughsearch", searcher_key=f"searcher-{n}")
    SearchMiss.objects.create(query="lonelysearch", searcher_key="searcher-0")
    _log("Where do I charge my electric car?", spaces=[a.pk], passage_pages=[garage.pk])
    _log("where do I charge my electric car", spaces=[a.pk], passage_pages=[garage.pk])
    _log("Where do I charge my ELECTRIC car!", spaces=[a.pk], passage_pages=[garage.pk])
    _log("When is the bonusquestion paid?", spaces=[b.pk], passage_pages=[bands.pk])
    _log("Is there bike storage in the garage?", spaces=[b.pk, a.pk], passage_pages=[bands.pk, garage.pk])
    _log("Who is the lonelyasker?", spaces=[], user=make_user("lonely", "staff"))
    _log("Legacy row before spaces were kept", spaces=None)
    _log("Legacy row before pages were kept", spaces=[a.pk])
    # Answers readers rejected.
    _log(
        "How many spaces in the garage?",
        spaces=[a.pk],
        mode=AskLog.Mode.EXTRACTIVE,
        answer="“The garage under building B has forty spaces.” [1]",
        citations=[_cite(garage, "The garage under building B has forty spaces.")],
        passage_pages=[garage.pk],
        helpful=False,
        comment="garagecomment: it moved to building C",
    )
    _log(
        "What are the salary bands?",
        spaces=[b.pk],
        mode=AskLog.Mode.EXTRACTIVE,
        answer="“The bandsecret grid of engineering levels.” [1]",
        citations=[_cite(bands, "The bandsecret grid of engineering levels.")],
        passage_pages=[bands.pk],
        helpful=False,
        comment="bandcomment: out of date",
    )
    _log(
        "Garage and salary?",
        spaces=[a.pk, b.pk],
        mode=AskLog.Mode.LLM,
        answer="Forty spaces [1]; the bandsecret grid [2].",
        citations=[_cite(garage), _cite(bands)],
        passage_pages=[garage.pk, bands.pk],
        helpful=False,
        comment="mixedcomment",
    )
    return SimpleNamespace(
        a=a,
        b=b,
        garage=garage,
        bands=bands,
        editor_a=make_user("eda", "staff", "a-editors"),
        editor_b=make_user("edb", "payroll", "b-editors"),
        reader=make_user("reader", "staff", "payroll"),
        root=make_user("root", superuser=True),
    )


def _page(client, user) -> str:  # type: ignore[no-untyped-def]
    client.force_login(user)
    response = client.get("/insights/")
    assert response.status_code == 200
    return response.content.decode()


def test_an_editor_sees_the_gaps_of_their_spaces_and_nothing_of_others(client, world):
    body = _page(client, world.editor_a)
    assert "where do i charge my electric car" in body.lower()
    assert "What is the wifi password?" in body  # matched nothing, asked by several people
    assert "plughsearch" in body  # a search that found nothing, by several people
    assert "lonelysearch" not in body
    # B's: its question, its space, its page title, snippet and the reader's comment on it; a
    # question that reached B too; one person's question that matched nothing; legacy rows.
    for hidden in ("bonusquestion", "Payroll", "bandtitle", "bandsecret", "bandcomment", "Legacy row"):
        assert hidden not in body, hidden
    assert "bike storage" not in body and "lonelyasker" not in body
    # A's rejected answer: the comment, the quote and a link to the cited page.
    assert "garagecomment" in body
    assert "The garage under building B has forty spaces." in body
    assert f'href="{world.garage.get_absolute_url()}"' in body
    # The mixed answer came from B's page too: not listed at all.
    assert "mixedcomment" not in body


def test_a_source_in_a_space_they_do_not_edit_is_not_named(client, world, make_user):
    """An editor of A who may read B too sees the mixed answer, without naming B's page."""
    body = _page(client, make_user("edab", "staff", "payroll", "a-editors"))
    assert "mixedcomment" in body and "Forty spaces [1]; the bandsecret grid [2]." in body
    assert "1 other source is not shown" in body and "bandtitle" not in body


def test_the_editor_of_the_other_space_sees_its_own(client, world):
    body = _page(client, world.editor_b)
    assert "bonusquestion" in body and "bandcomment" in body and "bandsecret" in body
    assert "electric car" not in body.lower()
    assert "garagecomment" not in body and "mixedcomment" not in body and "bike storage" not in body
    assert "Facilities" not in body


def test_a_superuser_sees_everything(client, world):
    body = _page(client, world.root)
    for text in ("Where do I charge", "bonusquestion", "garagecomment", "bandcomment", "mixedcomment"):
        assert text in body, text
    for text in ("bike storage", "lonelyasker", "Legacy row before spaces", "Legacy row before pages"):
        assert text in body, text
    assert "Forty spaces [1]; the bandsecret grid [2]." in body  # the text of an answer that cites both


def test_a_reader_has_no_insights_link_and_cannot_open_the_page(client, world):
    client.force_login(world.reader)
    home = client.get("/").content.decode()
    assert 'href="/insights/"' not in home
    assert client.get("/insights/").status_code == 404
    client.force_login(world.editor_a)
    assert 'href="/insights/"' in client.get("/").content.decode()
    client.logout()
    assert client.get("/insights/").status_code == 302  # to the login page


def test_near_duplicate_wordings_are_counted_together(client, world):
    from search.insights.selectors import insights_scope, unanswered

    groups = unanswered(insights_scope(world.editor_a))
    charge = [g for g in groups if "electric car" in g.group.text.lower()]
    assert len(charge) == 1
    assert charge[0].group.count == 3 and charge[0].group.asks == 3
    assert [s.slug for s in charge[0].spaces] == ["facilities"]
    assert groups[0] is charge[0]  # the most asked first (then the most recent)


def test_the_page_speaks_french(client, world):
    client.force_login(world.editor_a)
    body = client.get("/insights/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Questions sans réponse" in body
    assert "Réponses rejetées par les lecteurs" in body
    assert "Ce que les gens cherchent" in body
    assert 'lang="fr"' in body


def test_what_people_look_for_counts_questions_per_space(client, world):
    from search.insights.selectors import insights_scope, top_questions

    top = top_questions(insights_scope(world.editor_a))
    assert [entry.space.slug for entry in top] == ["facilities"]
    (entry,) = top
    # Questions whose every passage page the editor may read, by the space of the best one.
    assert entry.total == 4
    assert entry.groups[0].text.lower().startswith("where do i charge") and entry.groups[0].count == 3
    assert not any("bike storage" in g.text for g in entry.groups)


def test_a_rejected_answer_is_possibly_fixed_once_its_page_changes(client, world):
    from handbook.services import page_save

    assert "possibly fixed" not in _page(client, world.editor_a)
    page_save(page=world.garage, title=world.garage.title, body=GARAGE + "\nNow in building C.\n")
    body = _page(client, world.editor_a)
    assert "possibly fixed" in body


def test_restricted_pages_of_an_edited_space_stay_hidden(client, world, make_page):
    """An editor of A who may not read a restricted page of A sees neither its title nor its quote."""
    hidden = make_page(world.a, "Gatecodetitle", "# Codes\n\nThe gatecodesecret is 1234.\n", restricted_to=("guards",))
    _log(
        "What is the gate code?",
        spaces=[world.a.pk],
        mode=AskLog.Mode.EXTRACTIVE,
        answer="“The gatecodesecret is 1234.” [1]",
        citations=[_cite(hidden, "The gatecodesecret is 1234.")],
        passage_pages=[hidden.pk],
        helpful=False,
        comment="gatecomment",
    )
    body = _page(client, world.editor_a)
    assert "Gatecodetitle" not in body and "gatecodesecret" not in body and "gatecomment" not in body
