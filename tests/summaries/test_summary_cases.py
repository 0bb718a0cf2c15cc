"""Summaries that are not summaries, each case as the Markdown that produced it
(shapes met on the demo handbook and the two imported Markdown sites)."""

from __future__ import annotations

import pytest
from django.test import Client

from handbook.markdown import markdown_to_text
from summaries.extractive import ExtractiveSummary, is_question, is_whole_sentence, summarise_extractive


def _summary(markdown: str, language: str = "en") -> ExtractiveSummary:
    return summarise_extractive(markdown_to_text(markdown), language=language, markdown=markdown)


def test_a_list_item_that_continues_a_sentence_is_never_quoted() -> None:
    """A fragment cut mid-sentence: the item reads as the end of the sentence that introduces the list."""
    page = (
        "# Multifactor authentication\n\n"
        "Since 2024, multifactor authentication is mandatory for every account.\n\n"
        "To finish the set-up you must:\n\n"
        "- if your job requires it, register your two FIDO2 keys;\n"
        "- suppliers that negotiated an early-payment discount: per contract ;\n\n"
        "Add a new phone from the account page before resetting the old one.\n"
    )
    summary = _summary(page)
    assert summary.sentences == [
        "Since 2024, multifactor authentication is mandatory for every account.",
        "Add a new phone from the account page before resetting the old one.",
    ]
    assert all(is_whole_sentence(s) for s in summary.key_points)


def test_link_labels_and_titles_without_a_full_stop_are_not_sentences() -> None:
    page = (
        "# Performance management\n\n"
        "Supervisors conduct performance reviews for each of their direct reports.\n\n"
        "For guidance, refer to:\n\n"
        "- [FY25 performance calendar and guidance TK](/spaces/18f/calendar/)\n"
        "- [Workforce Planning Performance Management Guide](/spaces/18f/guide/)\n"
    )
    assert _summary(page).sentences == ["Supervisors conduct performance reviews for each of their direct reports."]


def test_a_checklist_of_questions_is_not_a_summary() -> None:
    page = (
        "# Publier un jeu de données\n\n"
        "Avant de publier, vérifiez :\n\n"
        "- Le jeu de données possède-t-il une description ?\n"
        "- Le format du jeu de données est-il ouvert ?\n"
        "- Les ressources du jeu de données sont-elles accessibles ?\n"
    )
    assert _summary(page, "fr").text == ""


def test_questions_are_skipped_and_the_answers_kept() -> None:
    page = (
        "# Open data\n\n"
        "What is public open data?\n\n"
        "Public open data is data published for everyone, free of charge, in a reusable format.\n\n"
        "Would you be giving the feedback at all? Acknowledge that feedback can be hard to receive.\n"
    )
    summary = _summary(page)
    assert not any(is_question(s) for s in summary.sentences + summary.key_points)
    assert summary.sentences[0].startswith("Public open data is data published")


@pytest.mark.parametrize(
    "page",
    [
        "",  # front matter only: the importer leaves an empty body
        "# Index\n",
        # An index page: links to the guide's pages, nothing stated.
        "# Guides\n\n- [Publier un jeu de données](/spaces/etalab/publier/)\n- [Animer](/spaces/etalab/animer/)\n",
        "pages/CONTRIBUTING.md\n",  # a page's one line, a path
        "Les images du guide réutilisation\n",
        "Ask HR.\n",  # one short procedural line: the summary would only repeat it
    ],
)
def test_nothing_to_summarise_gives_no_summary(page: str) -> None:
    assert _summary(page, "fr").text == ""


def test_a_table_of_figures_is_still_summarised_without_any_sentence() -> None:
    page = "# Per diem\n\n| Destination | Per day |\n|---|---|\n| Paris | 55 € |\n| Oslo | 70 € |\n"
    assert _summary(page).text.startswith("Per diem (Destination: Per day) — Paris: 55 €")


@pytest.mark.django_db
def test_a_page_with_nothing_to_summarise_shows_no_summary_box(make_space, make_page, make_user) -> None:  # type: ignore[no-untyped-def]
    """The summary is stored (empty, ready: the page's work is done), and the page shows no box."""
    space = make_space("etalab", viewers=("staff",))
    index = make_page(
        space, "Guides", "# Guides\n\n- [Publier](/spaces/etalab/publier/)\n- [Animer](/spaces/etalab/animer/)\n"
    )
    page = make_page(space, "Publier", "# Publier\n\nLa publication se fait depuis votre compte sur la plateforme.\n")
    client = Client()
    client.force_login(make_user("reader", "staff"))
    assert 'class="summary"' not in client.get(index.get_absolute_url()).content.decode()
    assert "La publication se fait depuis votre compte" in client.get(page.get_absolute_url()).content.decode()
    assert 'class="summary"' in client.get(page.get_absolute_url()).content.decode()
