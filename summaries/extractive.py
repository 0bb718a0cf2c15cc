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

from config.numbers import (
    DENSITY_MIN_WORDS,
    KEY_POINT_PER_CANDIDATES,
    LONG_PAGE_WORDS,
    MAX_DIGEST_CELL_WORDS,
    MAX_DIGEST_ROWS,
    MAX_DIGEST_WORDS,
    MAX_KEY_POINTS,
    SUMMARY_SENTENCES,
    SUMMARY_SENTENCES_LONG,
)
from config.numbers import SUMMARY_MAX_WORDS as MAX_WORDS
from config.numbers import SUMMARY_MIN_WORDS as MIN_WORDS
from core.text import content_words, split_sentences, words
from handbook.inline_html import without_markup
from statements.answer_units import Unit, page_units

__all__ = ["Candidate", "ExtractiveSummary", "Pool", "candidate_pool", "summarise_extractive", "summary_from_pool"]

_DIGIT_RE = re.compile(r"\d")

# Leading list/quote markers are trimmed (the rest is still a verbatim
# substring); headings, table rows and fences make a sentence unusable.
_LEADING_MARKER_RE = re.compile(r"(?:[-*+•>]|\d{1,3}[.)])\s+")
# Answer units already leave out code blocks, inline code and shell commands; code written as text
# (a template, a placeholder, a flag the parser did not read as code) is told by one token of it, so a
# sentence with brackets, slashes or a "#channel" stays prose. A link's tags are not such a token:
# the sentence reads as prose once they are gone.
_CODE_TOKEN_RE = re.compile(
    r"""[{}\\`]                             # templates ({{ name }}), escapes, unclosed inline code
      | </?(?!a\b)[A-Za-z][^<>]*>           # HTML tags (links aside) and <placeholders>
      | \[\[ | \]\( | \)\[ | \[\^ | \[\s | \[[xX]\]  # wiki links, link residue, footnotes, [ slots ], task boxes
      | (?:^|\s)_\w                          # identifiers opening with an underscore (_key)
      | \w=[^\s"]                            # key=value (a tag's href="…" is not one)
      | \$[A-Za-z_{(\[]                      # shell variables, $[amount] slots
      | (?:^|\s)--?[A-Za-z]                 # command-line flags ("curl -X POST", "--force")
    """,
    re.VERBOSE,
)
_TERMINAL_RE = re.compile(r"[.!?…][\"'”’»)\]]*$")
_QUESTION_RE = re.compile(r"[?？][\"'”’»)\]]*$")


@dataclass
class ExtractiveSummary:
    text: str
    sentences: list[str] = field(default_factory=list)
    key_points: list[str] = field(default_factory=list)


@dataclass
class Candidate:
    index: int  # position among usable sentences (document order)
    sentence: str
    terms: frozenset[str]
    score: float = 0.0


@dataclass
class Pool:
    """The sentences a summary may quote, scored, and how many it quotes: a learnt scorer
    (``summaries/learnt.py``) re-scores the same pool, so only the choice differs."""

    candidates: list[Candidate]
    digests: list[str] | None  # None: plain text, no key-fact weighting
    count: int
    page_words: int = 0


def _trim_marker(sentence: str) -> str:
    match = _LEADING_MARKER_RE.match(sentence)
    return sentence[match.end() :] if match else sentence


def _is_prose(sentence: str) -> bool:
    """Reject Markdown residue: headings, table rows, code, rules, and lines without a letter.

    A line with no letter is a list's numbering ("3.4.") or a figure alone: it states nothing.
    A sentence made mostly of figures (an amount, opening hours, a phone number, a worked
    calculation) is a statement like any other and may be quoted."""
    if sentence.startswith(("#", "|", "```", "~~~")) or "```" in sentence:
        return False
    if sentence.count("|") >= 2:
        return False
    if not any(c.isalpha() for c in sentence):
        return False
    return not _CODE_TOKEN_RE.search(sentence)


def is_whole_sentence(sentence: str) -> bool:
    """A sentence as written, not a piece of one: it opens with a capital or a figure (after any
    quote, bracket or emoji) and ends with . ! ? or …. List items that continue a sentence
    ("si votre poste l'exige, …", "…au nom de l'organisation ;"), link labels, titles and paths
    are pieces: quoted alone they read as a sentence cut in half."""
    opening = next((c for c in sentence if c.isalnum()), "")
    return bool(opening) and not opening.islower() and bool(_TERMINAL_RE.search(sentence.rstrip()))


def is_question(sentence: str) -> bool:
    """A question asks; it does not say what the page says (checklists, FAQ headings)."""
    return bool(_QUESTION_RE.search(sentence.rstrip()))


def _summarisable(prose: list[str]) -> list[str]:
    """The sentences a summary may quote: whole ones that state something. A page's single short
    line (a path, "Ask HR") is not summarised: the summary would only repeat it."""
    stated = [s for s in prose if is_whole_sentence(s) and not is_question(s)]
    if len(stated) == 1 and len(words(stated[0])) < MIN_WORDS:
        return []
    return stated


def _target_count(n_candidates: int, page_words: int, max_sentences: int | None) -> int:
    if max_sentences is not None:
        return max(0, min(max_sentences, n_candidates))
    if n_candidates <= 1:
        return n_candidates
    return min(n_candidates, SUMMARY_SENTENCES_LONG if page_words > LONG_PAGE_WORDS else SUMMARY_SENTENCES)


def _rank(candidates: list[Candidate], limit: int) -> list[Candidate]:
    """Best-scoring candidates, skipping any that states no word those already taken do not."""
    ordered = sorted(candidates, key=lambda c: (-c.score, c.index))
    picked: list[Candidate] = []
    for cand in ordered:
        if len(picked) >= limit:
            break
        if picked and cand.terms <= frozenset().union(*(p.terms for p in picked)):
            continue
        picked.append(cand)
    if len(picked) < limit:  # only duplicates left: better than nothing
        taken = {id(p) for p in picked}
        picked.extend([c for c in ordered if id(c) not in taken][: limit - len(picked)])
    return picked


def _table_digests(units: list[Unit]) -> list[str]:
    """One line per table of short cells holding numbers: "Barème 2026 (Destination: Indemnité par jour) —
    France (hors Paris): 45 €; Norvège: 70 €; …". Cells stay cells: each row is its first cell, a colon,
    then its other cells; tables of long text cells are not digested (they would read as glued prose)."""
    tables: dict[tuple[str, str, tuple[str, ...]], list[Unit]] = {}
    for unit in units:
        if unit.kind == "row" and unit.cells:
            tables.setdefault((unit.anchor, unit.heading, unit.header), []).append(unit)
    digests = []
    for (_anchor, heading, header), rows in tables.items():
        cells = [[without_markup(c) for c in r.cells] for r in rows]  # a reader sees a cell's words, not its tags
        if not any(_DIGIT_RE.search(c) for row in cells for c in row):
            continue
        if any(len(c.split()) > MAX_DIGEST_CELL_WORDS for row in cells for c in row):
            continue
        caption = heading.split(" › ")[-1] if heading else ""
        columns = [c for c in map(without_markup, header) if c]
        head = caption
        if caption and len(columns) > 1:
            head = f"{caption} ({columns[0]}: {', '.join(columns[1:])})"
        parts: list[str] = []
        n_words = len(head.split())
        for row in cells[:MAX_DIGEST_ROWS]:
            filled = [c for c in row if c]
            part = f"{filled[0]}: {', '.join(filled[1:])}" if len(filled) > 1 else (filled[0] if filled else "")
            n_words += len(part.split())
            if parts and n_words > MAX_DIGEST_WORDS:
                parts.append("…")
                break
            if part:
                parts.append(part)
        digest = "; ".join(parts)
        digests.append(f"{head} — {digest}" if head else digest)
    return digests


def shown_source(unit: Unit) -> str:
    """A unit's text as the page has it, as a reader sees it: a link or a block written in HTML
    (``<a href=…>``, ``<details>``) shows its words, not its tags."""
    return without_markup(unit.source)


def _markdown_prose(markdown: str) -> tuple[list[str], list[str]]:
    """Quotable sentences and list items of a page (no code, no navigation, nothing glued), table digests."""
    units = [u for u in page_units(markdown) if not u.filler]
    shown = [shown_source(u) for u in units if u.kind in ("sentence", "item")]
    prose = [s for s in shown if _is_prose(s) and not s.rstrip().endswith(":")]
    return prose, _table_digests(units)


def summarise_extractive(
    plain_text: str,
    *,
    language: str,
    max_sentences: int | None = None,
    markdown: str | None = None,
) -> ExtractiveSummary:
    """Summarise a page by quoting its most representative sentences.

    ``plain_text`` is the page with Markdown stripped (paragraphs separated by
    blank lines).  Two sentences are chosen, three for pages over
    ``LONG_PAGE_WORDS`` words, one for a one-sentence page; ``max_sentences``
    overrides that count.  Sentences are returned in document order and are
    exact substrings of ``plain_text``.

    With ``markdown`` (the page's source), candidates are the page's answer
    units: sentences and list items, never code, commands, navigation or text
    glued across headings, items or cells; and a table holding numbers (rates,
    limits) is kept as a digest of its rows, added after the sentences.

    Only whole sentences that state something are quoted (``_summarisable``): no
    list-item pieces, titles or questions. A page with none (an index of links,
    a checklist of questions, an empty page) gets an empty summary, which is
    not shown.
    """
    pool = candidate_pool(plain_text, language=language, max_sentences=max_sentences, markdown=markdown)
    return summary_from_pool(pool)


def candidate_pool(
    plain_text: str,
    *,
    language: str,
    max_sentences: int | None = None,
    markdown: str | None = None,
) -> Pool:
    """The quotable sentences of a page with today's scores (``summarise_extractive``'s arguments)."""
    digests: list[str] | None = None
    if markdown is not None:
        prose, digests = _markdown_prose(markdown)
    else:
        prose = [s for s in (_trim_marker(s) for s in split_sentences(plain_text)) if _is_prose(s)]
    # Deduplicate repeated boilerplate ("See the FAQ.") while keeping order.
    prose = _summarisable(list(dict.fromkeys(prose)))
    if not prose:
        return Pool([], digests, 0)
    return _scored(prose, plain_text, language, max_sentences, digests)


def _scored(
    prose: list[str],
    plain_text: str,
    language: str,
    max_sentences: int | None,
    digests: list[str] | None,
) -> Pool:
    sized = [s for s in prose if MIN_WORDS <= len(words(s)) <= MAX_WORDS]
    usable = sized or prose  # too-short/too-long only when nothing else exists

    # The page's vocabulary alone: the title, the opening and figures are the fitted scorer's features
    # (summaries/features.py), weighed from editors' ticks. Stop-words of the page language must not count,
    # otherwise "de"/"les" or "the"/"of" would dominate every score.
    tf = Counter(content_words(plain_text, language))
    max_tf = max(tf.values(), default=1)

    candidates: list[Candidate] = []
    for index, sentence in enumerate(usable):
        terms = content_words(sentence, language)
        n_words = len(words(sentence))
        weights = sum(tf[t] for t in set(terms)) / max_tf  # whole counts: the same sum in any set order
        # Density: per word, but with a floor so that a 5-word sentence made of
        # one frequent term does not beat an informative 20-word one.
        density = weights / max(n_words, DENSITY_MIN_WORDS)
        candidates.append(Candidate(index, sentence, frozenset(terms), density))

    page_words = len(words(plain_text))
    count = _target_count(len(candidates), page_words, max_sentences)
    return Pool(candidates, digests, count, page_words)


def summary_from_pool(pool: Pool) -> ExtractiveSummary:
    """The best-scored sentences of the pool in document order, then the first table digest."""
    candidates, digests, count = pool.candidates, pool.digests, pool.count
    if not candidates:
        if digests:
            return ExtractiveSummary(text=digests[0], sentences=[digests[0]], key_points=digests[:MAX_KEY_POINTS])
        return ExtractiveSummary(text="")
    chosen = sorted(_rank(candidates, count), key=lambda c: c.index)

    n_key = min(MAX_KEY_POINTS, len(candidates), max(count, math.ceil(len(candidates) / KEY_POINT_PER_CANDIDATES)))
    key = sorted(_rank(candidates, n_key), key=lambda c: c.index)

    sentences = [c.sentence for c in chosen]
    key_points = [c.sentence for c in key]
    if digests and count:
        # The page's first table of figures follows the sentences; every table is a key point.
        sentences.append(digests[0])
        key_points = (key_points + digests)[: max(MAX_KEY_POINTS, len(digests))]
    return ExtractiveSummary(
        text=" ".join(sentences),
        sentences=sentences,
        key_points=key_points,
    )
