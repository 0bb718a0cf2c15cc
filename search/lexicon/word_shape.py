"""Whether a word nobody's pages hold looks like a word at all.

A question's word that the reader's pages of its own language don't hold is translated through the
nearest word of the other language ("canteen" -> "cantine"). The embedding model places any string
somewhere, so a keyboard mash or a random string gets a "translation" too, a word spelt alike
("zzzz" -> "xyz", "optdq" -> "opt"), and then matches pages. Words are made of letter sequences a
language uses: a string is a word when most of its letter triples appear in a known word; one whose
triples are at least half unknown ("optdq": "ptd", "tdq", "dq" at the end) is not, and a string
mixing letters and digits is a code. Neither is translated; a real word of either language
("severance", "stylos", "mailbox") passes, and so does one written with a letter sequence no known
word has beside it ("chatgpt", "promu").

The known words are fixed everyday text shipped with the product (the stop-word lists and the
everyday sentences of the off-topic test) plus the reader's own vocabulary, so pages the reader
cannot read never change the decision.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from core.text import STOPWORDS, words
from search.embedding.sentence_sets import EVERYDAY


def triples(word: str) -> set[str]:
    marked = f"^{word}$"
    return {marked[i : i + 3] for i in range(len(marked) - 2)}


def vocabulary_triples(vocabulary: Iterable[str]) -> frozenset[str]:
    found: set[str] = set()
    for word in vocabulary:
        found |= triples(word)
    return frozenset(found)


@lru_cache(maxsize=1)
def everyday_triples() -> frozenset[str]:
    """Letter triples of the shipped everyday text: the stop words and the off-topic sentences."""
    everyday = {w for sentence in EVERYDAY.sentences() for w in words(sentence)}
    for stop in STOPWORDS.values():
        everyday |= set(stop)
    return vocabulary_triples(everyday)


def looks_like_a_word(word: str, *known: frozenset[str]) -> bool:
    """False for a code (letters and digits mixed) or a string whose letter triples are not mostly known."""
    if any(c.isdigit() for c in word):
        return False
    shape = triples(word)
    everyday = everyday_triples()
    unseen = sum(1 for t in shape if t not in everyday and not any(t in k for k in known))
    return unseen < len(shape) - unseen
