"""Word tests of a query, read from what the reader may read: is it made of words, and which of its
words does no readable page hold. Both are features of the query decision
(``search/decisions/query.py``): nearest neighbours always exist, so meaning alone cannot say that
a keyboard mash or a question on another subject finds nothing here; words help.
"""

from __future__ import annotations

from rapidfuzz import process
from rapidfuzz.distance import OSA

from config.numbers import MISSPELT_STOP_WORD_CHARS
from core.languages import ALL_STOPWORDS
from search.statistics.scopes import Reader
from search.statistics.term_statistics import readable_chunks, term_weights


def shares_words(typed: list[str], found_words: bool) -> bool:
    """Whether a query is made of words: a keyword list (its words, typos corrected, or their
    translation) found a chunk the reader may read, or it is a sentence (it has a stop-word).

    Not: a keyboard mash, a random string. A stricter test (most content words held by some
    readable chunk) emptied more of the no-match queries (bench.no_match) but also paraphrases whose words the
    handbook lacks ("Can I do my job at my house?" over a page on remote work), so it is not used.
    """
    return found_words or any(t in ALL_STOPWORDS for t in typed)


_STOPWORDS = sorted(ALL_STOPWORDS)


def unheld_words(terms: list[str], reader: Reader, language: str) -> list[str]:
    """The words of ``terms`` (stop-words aside) that no chunk ``reader`` may read holds, in any language;
    none when the reader has no chunk in the query's ``language`` (every word would be missing, as expected).

    Read from the reader's own word statistics: a hidden page holding the word changes nothing."""
    content = [t for t in terms if t not in ALL_STOPWORDS and not _misspelt_stop_word(t)]
    if not content:
        return []
    held = {w.term for weights in term_weights(content, reader).values() for w in weights if w.ndoc > 0}
    missing = [t for t in content if t not in held]
    # The language's chunk count only when it matters: most queries hold every word.
    return missing if missing and readable_chunks(language, reader) else []


def _misspelt_stop_word(word: str) -> bool:
    """One edit from a stop-word ("combirn", "pouquoi"): typo correction leaves those alone (stop-words
    are not in its vocabulary), and a question with one is no less a handbook question. Short words
    aside: "poux" is one edit from "pour" and no typo."""
    if len(word) < MISSPELT_STOP_WORD_CHARS:
        return False
    return process.extractOne(word, _STOPWORDS, scorer=OSA.distance, score_cutoff=1, processor=None) is not None
