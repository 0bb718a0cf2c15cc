"""Tests for core.text: folding, stop-words, tokens, sentences, language."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.text import (
    _FOLD_TABLE,
    STOPWORDS,
    content_words,
    detect_language,
    fold_accents,
    split_sentences,
    words,
)

# --- folding -----------------------------------------------------------------


def test_fold_accents_strips_diacritics_and_ligatures() -> None:
    assert fold_accents("Congés payés à l’été") == "Conges payes a l'ete"
    assert fold_accents("Œuvre cœur ex æquo Straße") == "OEuvre coeur ex aequo Strasse"
    assert fold_accents("ÇA VA") == "CA VA"  # case is preserved


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40))
def test_fold_accents_drops_exactly_the_combining_marks(text: str) -> None:
    # The definition, character by character (ASCII text is returned as it is); the block removed at
    # once (U+0300–U+036F less the grapheme joiner) and the distinct others must change nothing.
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD_TABLE))
    expected = text if text.isascii() else "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    assert fold_accents(text) == expected
    assert fold_accents("e\u0301\u034f\U0001d165") == "e\u034f"  # the joiner stays; a mark past the block goes


def test_fold_accents_ascii_is_unchanged() -> None:
    text = "Plain ASCII text, 3.5 times. It's fine!"
    assert fold_accents(text) == text


# --- stop-words --------------------------------------------------------------


def test_stopwords_are_folded_lowercase_and_reasonably_sized() -> None:
    for lang in ("en", "fr"):
        stop = STOPWORDS[lang]
        assert 150 <= len(stop) <= 250
        assert all(w == fold_accents(w).lower() for w in stop)


def test_stopwords_include_question_words_and_elisions() -> None:
    assert {"qu", "est", "ce", "que", "quoi", "comment", "peut", "on", "l", "d", "j", "n", "s", "c"} <= STOPWORDS["fr"]
    assert {"what", "how", "can", "does", "do", "i", "the"} <= STOPWORDS["en"]
    assert {"etre", "a", "ou", "deja", "apres"} <= STOPWORDS["fr"]  # folded être, à, où...


# --- tokens ------------------------------------------------------------------


def test_words_lowercases_folds_and_splits_elisions() -> None:
    assert words("L'entreprise a œuvré") == ["l", "entreprise", "a", "oeuvre"]
    assert words("l’été jusqu'au 3.5") == ["l", "ete", "jusqu", "au", "3", "5"]
    assert words("snake_case -- e-mail") == ["snake", "case", "e", "mail"]


def test_content_words_french_question() -> None:
    query = "Qu'est-ce que le télétravail ? Comment peut-on l'obtenir ?"
    assert content_words(query, "fr") == ["teletravail", "obtenir"]


def test_content_words_english_question() -> None:
    assert content_words("How do I reset my password?", "en") == ["reset", "password"]


def test_content_words_language_matters_and_unknown_uses_both() -> None:
    text = "the leave policy de la société"
    assert "de" in content_words(text, "en")
    assert "the" in content_words(text, "fr")
    assert content_words(text, "xx") == ["leave", "policy", "societe"]


# --- sentences ---------------------------------------------------------------


def test_split_sentences_basic_en_fr() -> None:
    text = "Peut-on travailler à distance ? Oui, avec l'accord du manager. Super ! 2 jours max."
    assert split_sentences(text) == [
        "Peut-on travailler à distance ?",
        "Oui, avec l'accord du manager.",
        "Super !",
        "2 jours max.",
    ]


def test_split_sentences_keeps_abbreviations_and_decimals() -> None:
    text = (
        "Use a chat tool, e.g. Slack. Ask HR, i.e. Claire. M. Dupont signe. "
        "Mme. Martin valide. Bring pens, paper, etc. for the session. The rate is 3.5 percent."
    )
    assert split_sentences(text) == [
        "Use a chat tool, e.g. Slack.",
        "Ask HR, i.e. Claire.",
        "M. Dupont signe.",
        "Mme. Martin valide.",
        "Bring pens, paper, etc. for the session.",
        "The rate is 3.5 percent.",
    ]


def test_split_sentences_number_at_end_and_ellipsis() -> None:
    assert split_sentences("The rate is 3.5. Then it rises… Wait... What?! Yes.") == [
        "The rate is 3.5.",
        "Then it rises…",
        "Wait...",
        "What?!",
        "Yes.",
    ]


def test_split_sentences_newlines_lists_and_soft_wraps() -> None:
    text = (
        "Annual leave\n"
        "Employees get 25 days.\n\n"
        "- First item\n"
        "- Second item that wraps\n  onto the next line\n\n"
        "This sentence is hard\nwrapped over two lines. Done."
    )
    assert split_sentences(text) == [
        "Annual leave",
        "Employees get 25 days.",
        "- First item",
        "- Second item that wraps\n  onto the next line",
        "This sentence is hard\nwrapped over two lines.",
        "Done.",
    ]


def test_split_sentences_empty_and_blank() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\n \t") == []


_SENTENCE = st.builds(
    lambda first, rest, end: first + rest + end,
    st.sampled_from(["The", "Les", "M.", "e.g.", "Été", "3.5", "«", "Mme.", "Un", "I"]),
    st.text(alphabet=st.sampled_from(list("abcdé  ,.'’-\n3")), max_size=40),
    st.sampled_from([".", "!", "?", " ?", "…", "...", "", ":"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SENTENCE, max_size=8), st.lists(st.sampled_from([" ", "\n", "\n\n", "  "]), min_size=8, max_size=8))
def test_split_sentences_verbatim_property(sentences: list[str], seps: list[str]) -> None:
    text = "".join(s + sep for s, sep in zip(sentences, seps, strict=False))
    result = split_sentences(text)
    position = 0
    for sentence in result:
        assert sentence and sentence == sentence.strip()
        found = text.find(sentence, position)
        assert found >= 0  # exact substring, in document order
        position = found + len(sentence)
    # Nothing is lost: all non-blank content is covered.
    assert re.sub(r"\s", "", "".join(result)) == re.sub(r"\s", "", text)


# --- language detection -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("congés payés", "fr"),
        ("annual leave", "en"),
        ("Peut-on travailler à distance ?", "fr"),
        ("how do I reset my password", "en"),
        ("note de frais", "fr"),
        ("expense report", "en"),
        ("mot de passe", "fr"),
        ("Où trouver la mutuelle ?", "fr"),
        ("remote work", "en"),
        ("télétravail", "fr"),
        ("CONGÉS PAYÉS", "fr"),
        ("Qu'est-ce que le forfait jours", "fr"),
        ("What's the holiday policy?", "en"),
    ],
)
def test_detect_language_examples(text: str, expected: str) -> None:
    assert detect_language(text) == expected


def test_detect_language_falls_back_to_default() -> None:
    assert detect_language("VPN") == "en"
    assert detect_language("VPN", default="fr") == "fr"
    assert detect_language("", default="fr") == "fr"
    assert detect_language("1234 !!", default="fr") == "fr"


def test_detect_language_respects_choices() -> None:
    assert detect_language("congés payés", choices=("en",)) == "en"
    assert detect_language("mot de passe", choices=("fr", "en")) == "fr"


def test_detect_language_long_page() -> None:
    page = (
        "Les salariés disposent de vingt-cinq jours de congés payés par an. "
        "La demande se fait dans l'outil RH au moins deux semaines avant le départ. " * 40
    )
    assert detect_language(page) == "fr"
    assert detect_language("The VPN is required for remote work. " * 200) == "en"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_split_sentences_any_text_is_verbatim(text: str) -> None:
    for sentence in split_sentences(text):
        assert sentence and sentence == sentence.strip() and sentence in text
    detect_language(text)  # never raises, whatever the input
