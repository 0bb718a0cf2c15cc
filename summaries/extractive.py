"""Extractive page summaries: pick the page's most representative sentences.

No model and no network: sentences are scored by how densely they use the
page's own vocabulary, so the result is cheap, deterministic and every
sentence is quoted verbatim (an exact substring of the input), which lets the
UI highlight or link to it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from search.text import content_words, split_sentences, words

__all__ = ["ExtractiveSummary", "summarise_extractive"]

MIN_WORDS = 5
MAX_WORDS = 60
MAX_KEY_POINTS = 5
# Pages longer than this (in words) get three sentences instead of two.
LONG_PAGE_WORDS = 150
TITLE_BONUS = 0.3  # added to a term's weight when it appears in the title
LEAD_BONUS = 0.2  # first sentence x1.2, second x1.1, third x1.07, ...
UNPUNCTUATED_PENALTY = 0.7  # fragments, titles, "Follow these steps:"
MAX_OVERLAP = 0.6  # Jaccard above which two sentences say the same thing

# Leading list/quote markers are trimmed (the rest is still a verbatim
# substring); headings, table rows and fences make a sentence unusable.
_LEADING_MARKER_RE = re.compile(r"(?:[-*+•>]|\d{1,3}[.)])\s+")
_CODE_CHARS = frozenset("{}[]()<>=;`$\\_|#~^@")
# Command-line flags ("curl -X POST", "--force") betray a shell snippet.
_CLI_FLAG_RE = re.compile(r"(?:^|\s)--?[A-Za-z]")
_TERMINAL_RE = re.compile(r"[.!?…][\"'”’»)\]]*$")


@dataclass
class ExtractiveSummary:
    text: str
    sentences: list[str] = field(default_factory=list)
    key_points: list[str] = field(default_factory=list)


@dataclass
class _Candidate:
    index: int  # position among usable sentences (document order)
    sentence: str
    terms: frozenset[str]
    score: float = 0.0


def _trim_marker(sentence: str) -> str:
    match = _LEADING_MARKER_RE.match(sentence)
    return sentence[match.end() :] if match else sentence


def _is_prose(sentence: str) -> bool:
    """Reject Markdown residue: headings, table rows, code, rules."""
    if sentence.startswith(("#", "|", "```", "~~~")) or "```" in sentence:
        return False
    if sentence.count("|") >= 2:
        return False
    visible = [c for c in sentence if not c.isspace()]
    if not visible:
        return False
    letters = sum(c.isalpha() for c in visible)
    if letters / len(visible) < 0.6:
        return False
    code = sum(c in _CODE_CHARS for c in visible) + 3 * len(_CLI_FLAG_RE.findall(sentence))
    return not (code >= 3 and code / len(visible) > 0.1)


def _target_count(n_candidates: int, page_words: int, max_sentences: int | None) -> int:
    if max_sentences is not None:
        return max(0, min(max_sentences, n_candidates))
    if n_candidates <= 1:
        return n_candidates
    return min(n_candidates, 3 if page_words > LONG_PAGE_WORDS else 2)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _rank(candidates: list[_Candidate], limit: int) -> list[_Candidate]:
    """Best-scoring candidates, skipping near-duplicates of those already taken."""
    ordered = sorted(candidates, key=lambda c: (-c.score, c.index))
    picked: list[_Candidate] = []
    for cand in ordered:
        if len(picked) >= limit:
            break
        if any(_jaccard(cand.terms, p.terms) > MAX_OVERLAP for p in picked):
            continue
        picked.append(cand)
    if len(picked) < limit:  # only duplicates left: better than nothing
        taken = {id(p) for p in picked}
        picked.extend([c for c in ordered if id(c) not in taken][: limit - len(picked)])
    return picked


def summarise_extractive(
    plain_text: str,
    *,
    language: str,
    title: str = "",
    max_sentences: int | None = None,
) -> ExtractiveSummary:
    """Summarise a page by quoting its most representative sentences.

    ``plain_text`` is the page with Markdown stripped (paragraphs separated by
    blank lines).  Two sentences are chosen, three for pages over
    ``LONG_PAGE_WORDS`` words, one for a one-sentence page; ``max_sentences``
    overrides that count.  Sentences are returned in document order and are
    exact substrings of ``plain_text``.
    """
    prose = [s for s in (_trim_marker(s) for s in split_sentences(plain_text)) if _is_prose(s)]
    # Deduplicate repeated boilerplate ("See the FAQ.") while keeping order.
    prose = list(dict.fromkeys(prose))
    if not prose:
        return ExtractiveSummary(text="")

    sized = [s for s in prose if MIN_WORDS <= len(words(s)) <= MAX_WORDS]
    usable = sized or prose  # too-short/too-long only when nothing else exists

    # The page's vocabulary: stop-words of the page language must not count,
    # otherwise "de"/"les" or "the"/"of" would dominate every score.
    tf = Counter(content_words(plain_text, language))
    max_tf = max(tf.values(), default=1)
    title_terms = set(content_words(title, language))

    candidates: list[_Candidate] = []
    for index, sentence in enumerate(usable):
        terms = content_words(sentence, language)
        n_words = len(words(sentence))
        weights = sum(tf[t] / max_tf + (TITLE_BONUS if t in title_terms else 0.0) for t in set(terms))
        # Density: per word, but with a floor so that a 5-word sentence made of
        # one frequent term does not beat an informative 20-word one.
        density = weights / max(n_words, 8)
        density *= 1.0 + LEAD_BONUS / (1 + index)
        if not _TERMINAL_RE.search(sentence):
            density *= UNPUNCTUATED_PENALTY
        candidates.append(_Candidate(index, sentence, frozenset(terms), density))

    page_words = len(words(plain_text))
    count = _target_count(len(candidates), page_words, max_sentences)
    chosen = sorted(_rank(candidates, count), key=lambda c: c.index)

    n_key = min(MAX_KEY_POINTS, len(candidates), max(count, math.ceil(len(candidates) / 5)))
    key = sorted(_rank(candidates, n_key), key=lambda c: c.index)

    sentences = [c.sentence for c in chosen]
    return ExtractiveSummary(
        text=" ".join(sentences),
        sentences=sentences,
        key_points=[c.sentence for c in key],
    )
