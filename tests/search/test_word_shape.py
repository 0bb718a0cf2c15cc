"""Keyboard mashes and codes are not words: they get no translation."""

from __future__ import annotations

import pytest

from search.lexicon.word_shape import looks_like_a_word, vocabulary_triples


@pytest.mark.parametrize("mash", ["zzzz", "optdq", "hjkl", "bvcx", "mlkj", "xkcd", "jkjkjk", "wq0x3", "lpz88"])
def test_keyboard_mashes_and_codes_are_not_words(mash: str) -> None:
    assert not looks_like_a_word(mash)


@pytest.mark.parametrize(
    "word", ["canteen", "severance", "reimbursement", "stylos", "remboursement", "nourrisson", "mailbox", "telework"]
)
def test_everyday_words_of_either_language_are_words(word: str) -> None:
    assert looks_like_a_word(word)


def test_the_reader_vocabulary_makes_its_own_terms_words() -> None:
    # An internal tool's name is shaped like no everyday word; the reader's pages make it one.
    assert not looks_like_a_word("qzvkts")
    assert looks_like_a_word("qzvkts", vocabulary_triples(["qzvkt", "budget"]))


def test_a_word_is_a_string_whose_letter_triples_are_mostly_known() -> None:
    known = vocabulary_triples(["qzvkt"])  # ^qz qzv zvk vkt kt$
    assert looks_like_a_word("qzvkx", known)  # ^qz qzv zvk known, vkx kx$ not: three of five
    assert not looks_like_a_word("qzvxx", known)  # ^qz qzv known, zvx vxx xx$ not: two of five
    assert not looks_like_a_word("qzvx", known)  # ^qz qzv known, zvx vx$ not: half is not most
