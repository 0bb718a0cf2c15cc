"""Tests for summaries.extractive (pure Python, no database)."""

from __future__ import annotations

import pytest

from core.text import split_sentences
from summaries.extractive import ExtractiveSummary, candidate_pool, summarise_extractive

LEAVE_PAGE = """Annual leave

Every employee is entitled to 25 days of annual leave per calendar year.

Annual leave requests are submitted in the HR portal at least two weeks in advance.

The office kitchen is cleaned every Friday afternoon by the facilities team.

Your manager approves or declines annual leave requests within five working days.

Unused annual leave can be carried over until the end of March of the following year.
"""

FR_PAGE = """Le télétravail est possible trois jours par semaine.

Et de la sorte, il en est de même pour les uns et pour les autres dans la vie de tous les jours.

La demande de télétravail se fait dans l'outil RH.

Le matériel de télétravail est fourni sur demande.

Les jours de télétravail sont déclarés chaque semaine."""

FR_FILLER = "Et de la sorte, il en est de même pour les uns et pour les autres dans la vie de tous les jours."


def _assert_verbatim(summary: ExtractiveSummary, source: str) -> None:
    for sentence in summary.sentences + summary.key_points:
        assert sentence and sentence in source
    assert summary.text == " ".join(summary.sentences)


def test_sentences_are_verbatim_and_text_joins_them() -> None:
    summary = summarise_extractive(LEAVE_PAGE, language="en")
    _assert_verbatim(summary, LEAVE_PAGE)
    assert len(summary.sentences) == 2


def test_sentences_come_in_document_order() -> None:
    summary = summarise_extractive(LEAVE_PAGE, language="en", max_sentences=3)
    positions = [LEAVE_PAGE.index(s) for s in summary.sentences]
    assert positions == sorted(positions)
    assert len(summary.sentences) == 3


def test_off_topic_sentence_and_bare_title_are_not_chosen() -> None:
    summary = summarise_extractive(LEAVE_PAGE, language="en", max_sentences=4)
    assert "The office kitchen is cleaned every Friday afternoon by the facilities team." not in summary.sentences
    assert "Annual leave" not in summary.sentences  # under five words
    assert summary.sentences[0].startswith("Every employee is entitled")


def test_key_points_are_verbatim_and_include_summary_sentences() -> None:
    summary = summarise_extractive(LEAVE_PAGE, language="en")
    assert set(summary.sentences) <= set(summary.key_points)
    assert len(summary.key_points) <= 5


def test_french_page_uses_french_stopwords() -> None:
    fr = summarise_extractive(FR_PAGE, language="fr", max_sentences=4)
    assert FR_FILLER not in fr.sentences  # only function words: nothing to say
    assert fr.sentences[0] == "Le télétravail est possible trois jours par semaine."
    _assert_verbatim(fr, FR_PAGE)
    # With the wrong stop-words, "de", "les", "la"... count as vocabulary.
    as_en = summarise_extractive(FR_PAGE, language="en")
    fr_default = summarise_extractive(FR_PAGE, language="fr")
    assert as_en.sentences != fr_default.sentences


def test_empty_page() -> None:
    for text in ("", "   \n\n  "):
        summary = summarise_extractive(text, language="en")
        assert summary == ExtractiveSummary(text="", sentences=[], key_points=[])


def test_one_sentence_page() -> None:
    summary = summarise_extractive("Only one sentence lives on this page.", language="en")
    assert summary.sentences == ["Only one sentence lives on this page."]
    assert summary.text == "Only one sentence lives on this page."
    assert summary.key_points == summary.sentences


def test_short_sentences_used_when_no_alternative() -> None:
    summary = summarise_extractive("Ask HR.\n\nCall IT.", language="en")
    assert summary.sentences == ["Ask HR.", "Call IT."]


def test_markdown_residue_is_never_chosen() -> None:
    page = """# Expense reports policy for all employees and contractors

## How to submit your expense reports to finance

| Item | Limit per expense report |
|------|-------|
| Hotel night in Paris for one employee | 150 EUR |

```python
def submit(report): return api.post("/expenses", json={"report": report})
```

curl -X POST https://finance.example/api/expenses -d @report.json

---

Expense reports must be submitted within 30 days of the expense.

- Attach a scanned receipt for every expense over 10 EUR.
- Your manager approves the expense report in the finance tool.
"""
    summary = summarise_extractive(page, language="en", max_sentences=5)
    assert summary.sentences == [
        "Expense reports must be submitted within 30 days of the expense.",
        "Attach a scanned receipt for every expense over 10 EUR.",
        "Your manager approves the expense report in the finance tool.",
    ]
    for sentence in summary.sentences + summary.key_points:
        assert not sentence.startswith(("#", "|", "-", "`"))
        assert "|" not in sentence and "```" not in sentence
        assert sentence in page


def test_length_scaling() -> None:
    short = summarise_extractive(LEAVE_PAGE, language="en")
    topics = ["leave", "expenses", "laptops", "badges", "parking", "training", "payroll", "travel"]
    long_page = "\n\n".join(
        f"The {topic} policy explains how employees request {topic} support from the people team. "
        f"Questions about {topic} go to the dedicated {topic} channel in the company chat."
        for topic in topics
    )
    long = summarise_extractive(long_page, language="en")
    assert len(short.sentences) == 2
    assert len(long.sentences) == 3
    assert len(split_sentences(long_page)) == 16
    assert 3 <= len(long.key_points) <= 5


@pytest.mark.parametrize("limit", [0, 1, 2, 4, 10])
def test_max_sentences_override(limit: int) -> None:
    summary = summarise_extractive(LEAVE_PAGE, language="en", max_sentences=limit)
    assert len(summary.sentences) == min(limit, 5)
    _assert_verbatim(summary, LEAVE_PAGE)


def test_deterministic() -> None:
    runs = {repr(summarise_extractive(LEAVE_PAGE, language="en")) for _ in range(5)}
    assert len(runs) == 1


def test_a_sentence_scores_the_same_wherever_it_stands() -> None:
    """The score is the page's vocabulary alone: where a sentence stands is the fitted scorer's to weigh."""
    reordered = "\n\n".join(reversed(LEAVE_PAGE.strip().split("\n\n")))

    def scores(text: str) -> dict[str, float]:
        return {c.sentence: c.score for c in candidate_pool(text, language="en").candidates}

    assert len(scores(LEAVE_PAGE)) == 5
    assert scores(reordered) == scores(LEAVE_PAGE)


def test_sentence_length_limits() -> None:
    too_long = "Leave " + " ".join(["policy"] * 70) + "."
    page = (
        f"{too_long}\n\n"
        "Leave policy applies to every employee of the company.\n\n"
        "Leave policy is reviewed each year by HR."
    )
    summary = summarise_extractive(page, language="en")
    assert too_long not in summary.sentences
    assert len(summary.sentences) == 2


def test_a_sentence_that_says_nothing_new_is_not_quoted_again() -> None:
    """The same statement twice (its words in another order) is quoted once, as Ask quotes a further
    unit only when it states something the quotes before it do not; a sentence adding a word stays."""
    text = (
        "Expense reports must be filed within thirty days. "
        "Within thirty days, expense reports must be filed. "
        "Receipts for expense reports are scanned within thirty days by the traveller. "
        "Managers approve expense reports every Friday before payment."
    )
    summary = summarise_extractive(text, language="en", max_sentences=3)
    assert len(summary.sentences) == 3
    repeated = {
        "Expense reports must be filed within thirty days.",
        "Within thirty days, expense reports must be filed.",
    }
    assert len(repeated & set(summary.sentences)) == 1
