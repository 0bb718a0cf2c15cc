"""How close in meaning a chunk must be to count as a result.

Nearest neighbours always exist: without a floor the vector lists return their
``depth`` nearest chunks for any query, gibberish included, so every search
"finds" every page and none can say "nothing matches". A vector hit therefore
counts only when its cosine similarity to the query reaches a floor. Keyword
hits (the query's words, or their translation) need no floor: a page that
holds the words matches.

Similarities are a property of the embedding model (multilingual-e5 puts any
two texts above 0.7; other models spread them differently), so the floor is
calibrated per model by ``python -m bench.no_match`` over the dev query sets
and a set of gibberish and out-of-domain queries, and kept here per model
name. Another model (an OpenAI-compatible endpoint) gets its own from
``EMBEDDINGS_SIMILARITY_FLOOR`` (``plain`` or ``plain,centred``); a model
with no floor keeps every neighbour, as before.

Per list: ``plain`` is the cosine of chunk and query (the vector list);
``centred`` is the cosine of chunk and the language-centred query
(``search/retrieval/crosslang.py``), which sits on another scale because the language
mean is taken out of the query. And per query, ``confident``: when even the
nearest chunk is farther than that, the query means nothing clear here, and a
page is listed only if one of its chunks holds most of the query's words
(``retrieval.KEYWORD_ALONE_COVERAGE``), else nothing matches.

Measured (bench/no_match.py, local model, dev sets, all five corpora loaded):
random strings reach 0.83-0.87 on the handbook corpora, as high as many
answerable questions (p5 0.86), while on the FAQ corpora they stay under 0.84.
Hit floors high enough to drop them cost nDCG, so the hit floors stay low and
the query-level tests do the work: ``confident``, ``wordless`` for queries
that are not made of words (``shares_words``), the off-topic margin for
questions on other subjects (``search/retrieval/off_topic.py``) and, just above
it, a word no readable page holds (``unheld_words``). With the floors below, no
corpus loses nDCG@10, no answerable question is left empty, and the no-match
queries find nothing for 97.1 % (the first set, both readers), 97.3 % on a set
written blind (bench/no_match.py reports every set).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from rapidfuzz import process
from rapidfuzz.distance import OSA

from core.languages import ALL_STOPWORDS
from search.indexing.embedders import LOCAL_MODEL_NAME
from search.statistics.scopes import Reader
from search.statistics.term_statistics import readable_chunks, term_weights

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Floor:
    plain: float  # least cosine(chunk, query) of a vector-list hit
    centred: float  # least cosine(chunk, language-centred query) of a language-centred-list hit
    # A query whose nearest chunk is closer than this means something here; one whose nearest chunk
    # is farther lists pages only if some chunk holds most of its words (retrieval.KEYWORD_ALONE_COVERAGE).
    confident: float = -1.0
    # A query that does not share words with the readable pages (``shares_words``) is confident only
    # from this similarity: keyboard mashes and other-domain questions sit at 0.83-0.87 with e5, as
    # close as real questions, but real questions are made of the handbook's words.
    wordless: float = -1.0
    # A confident query must also be at least this much nearer the handbook (its nearest readable chunk,
    # blended with its nearest workplace sentence) than its nearest sentence on an everyday subject the
    # handbook does not cover (off_topic.off_topic_gap); None: no test.
    off_topic_margin: float | None = None

    @property
    def plain_distance(self) -> float:
        """The greatest cosine distance (pgvector ``<=>``) a vector-list hit may have."""
        return 1.0 - self.plain

    @property
    def centred_distance(self) -> float:
        return 1.0 - self.centred


NO_FLOOR = Floor(plain=-1.0, centred=-1.0, confident=-1.0)  # every neighbour counts

# Calibrated with bench/no_match.py (see its docstring for the figures).
CALIBRATED: dict[str, Floor] = {
    LOCAL_MODEL_NAME: Floor(plain=0.78, centred=0.0, confident=0.84, wordless=0.88, off_topic_margin=-0.015),
}


def shares_words(typed: list[str], found_words: bool) -> bool:
    """Whether a query is made of words: a keyword list (its words, typos corrected, or their
    translation) found a chunk the reader may read, or it is a sentence (it has a stop-word).

    Not: a keyboard mash, a random string. A stricter test (most content words held by some
    readable chunk) emptied 6 % more of the no-match queries but also paraphrases whose words the
    handbook lacks ("Can I do my job at my house?" over a page on remote work), so it is not used.
    """
    return found_words or any(t in ALL_STOPWORDS for t in typed)


# A confident query this little above the off-topic margin that holds a word no page the reader may read
# holds (typos corrected first) is not confident: its meaning is not clearly the handbook's, and one of
# its words is not the handbook's at all ("poux traitement", "best time of year to visit iceland").
# Calibrated with bench/no_match.py and bench/typos.py: of the 243 answerable dev questions, 5 hold such
# a word ("basemap", "blanchisserie", "internship"…), the lowest 0.025 above the margin. A misspelling
# typo correction leaves alone is such a word too: the misspelt dev questions keep 0.926 of their
# nDCG@10 (goal 0.9; 0.933 without the band, 0.895 with the band 0.005 higher).
UNHELD_WORD_BAND = 0.015
MISSPELT_STOP_WORD_CHARS = 5
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


def parse_floor(raw: str) -> Floor:
    """``"0.8"`` (every number), ``"0.8,0.3"`` (plain, centred), ``"0.8,0.3,0.85"`` (…, confident),
    ``"0.8,0.3,0.85,0.88"`` (…, wordless: the nearest chunk's least similarity for a query that
    shares no word with the readable pages; the confident one when left out) or
    ``"0.8,0.3,0.85,0.88,0.0"`` (…, off-topic margin: how much closer than to its nearest everyday
    sentence a confident query's nearest chunk must be; no such test when left out)."""
    parts = [p.strip() for p in raw.split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError as exc:
        raise ImproperlyConfigured(f"EMBEDDINGS_SIMILARITY_FLOOR={raw!r} is not a number or two") from exc
    if len(values) not in (1, 2, 3, 4, 5) or not all(-1.0 <= v <= 1.0 for v in values):
        raise ImproperlyConfigured(f"EMBEDDINGS_SIMILARITY_FLOOR={raw!r}: one to five numbers between -1 and 1")
    confident = max(values[0], values[min(2, len(values) - 1)])
    wordless = values[3] if len(values) >= 4 else confident
    margin = values[4] if len(values) == 5 else None
    return Floor(
        plain=values[0],
        centred=values[min(1, len(values) - 1)],
        confident=confident,
        wordless=wordless,
        off_topic_margin=margin,
    )


def _configured_model() -> str:
    if getattr(settings, "EMBEDDINGS_BASE_URL", ""):
        return str(getattr(settings, "EMBEDDINGS_MODEL", ""))
    return LOCAL_MODEL_NAME


def similarity_floor(model: str) -> Floor:
    """The floor of ``model``: the configured one for the configured model, else the calibrated one."""
    raw = getattr(settings, "EMBEDDINGS_SIMILARITY_FLOOR", "")
    if raw and model == _configured_model():
        return parse_floor(raw)
    floor = CALIBRATED.get(model)
    if floor is None:
        return NO_FLOOR
    return floor
