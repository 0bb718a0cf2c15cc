"""Surface features of each quotable sentence of a page, for the learnt sentence choice.

Named features, one pure function (``pool_features``): the fitted weights (``learnt.py``) are a
number per name, and a fit report can say which ones matter.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from config.numbers import FEATURE_LENGTH_CAP_WORDS, FEATURE_LENGTH_UNIT_WORDS
from core.text import content_words, words
from statements.answer_units import Unit, page_units
from summaries.extractive import Pool, shown_source

FEATURES = (
    "extractive",  # today's score, divided by the page's best
    "extractive_rank",  # 1 for today's best sentence, 1/2 for the next, ...
    "page_position",  # 0 for the first quotable sentence, 1 for the last
    "opens_page",
    "section_position",  # 1 for a section's opening statement, 1/2 for the next, ...
    "section_order",  # 0 for the page's first section, 1 for its last
    "words",  # length, in units of 30 words (capped at 2)
    "figures",  # states a number: an amount, a limit, a date
    "cue",  # rule words: must, required, deadline / doit, obligatoire, délai
    "opening_overlap",  # share of its words found in the title and the page's first sentence
    "heading_depth",  # 0 before the first heading, then d / (1 + d) for a heading path d levels deep
    "list_item",
    "table_section",  # its section holds a table (a sentence that introduces the figures)
    "has_link",
)

# Rule and key-fact wording, English and French, folded to lower case.
_CUE_RE = re.compile(
    r"\b(?:must|required?|mandatory|always|never|deadline|within|at\ least|no\ later|only|entitled|eligible|"
    r"policy|rule|should|need\ to|have\ to|responsible|approv\w*|"
    r"doi[st]|doivent|obligatoire\w*|toujours|jamais|d[ée]lai|au\ plus\ tard|au\ moins|uniquement|seul\w*|"
    r"droit|r[èe]gle|il\ faut|faut|responsable|valid\w*)\b",
    re.IGNORECASE,
)
_DIGIT_RE = re.compile(r"\d")


def unit_hash(text: str) -> str:
    """A unit's address across revisions: its text, spaces folded (an edit to it makes a new unit).

    The same address as verified answers use, so both kinds of pick travel alike."""
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:16]


def quotable_units(markdown: str) -> list[Unit]:
    """The units an editor may pick: sentences, list items and table rows, fillers left out."""
    return [u for u in page_units(markdown) if not u.filler]


def pool_units(pool: Pool, markdown: str | None) -> list[Unit | None]:
    """The unit each candidate sentence was quoted from (None on the plain-text path)."""
    if markdown is None:
        return [None] * len(pool.candidates)
    by_source: dict[str, Unit] = {}
    for unit in quotable_units(markdown):
        by_source.setdefault(shown_source(unit), unit)
    return [by_source.get(c.sentence) for c in pool.candidates]


def candidate_hashes(pool: Pool, markdown: str | None) -> list[str]:
    """The address of each candidate, as the picker shows it (the unit's text when known)."""
    units = pool_units(pool, markdown)
    return [unit_hash(u.text if u else c.sentence) for c, u in zip(pool.candidates, units, strict=True)]


def pool_features(pool: Pool, *, markdown: str | None, title: str, language: str) -> np.ndarray:
    """One row of ``FEATURES`` per candidate of the pool, in the pool's order."""
    candidates = pool.candidates
    if not candidates:
        return np.zeros((0, len(FEATURES)))
    units = pool_units(pool, markdown)
    best = max((c.score for c in candidates), default=0.0) or 1.0
    order = sorted(range(len(candidates)), key=lambda i: (-candidates[i].score, i))
    rank = {i: r for r, i in enumerate(order)}
    opening = set(content_words(title, language)) | set(content_words(candidates[0].sentence, language))
    all_units = quotable_units(markdown) if markdown is not None else []
    anchors = list(dict.fromkeys(u.anchor for u in all_units))
    table_anchors = {u.anchor for u in all_units if u.kind == "row"}
    last = max(len(candidates) - 1, 1)
    rows = []
    for i, (cand, unit) in enumerate(zip(candidates, units, strict=True)):
        n_words = len(words(cand.sentence))
        terms = set(cand.terms)
        section = anchors.index(unit.anchor) if unit is not None and unit.anchor in anchors else 0
        depth = unit.heading.count(" › ") + 1 if unit is not None and unit.heading else 0
        rows.append(
            [
                cand.score / best,
                1.0 / (1 + rank[i]),
                i / last,
                1.0 if i == 0 else 0.0,
                1.0 / (1 + (unit.section_index if unit is not None else i)),
                section / max(len(anchors) - 1, 1),
                min(n_words, FEATURE_LENGTH_CAP_WORDS) / FEATURE_LENGTH_UNIT_WORDS,
                1.0 if _DIGIT_RE.search(cand.sentence) else 0.0,
                1.0 if _CUE_RE.search(cand.sentence) else 0.0,
                len(terms & opening) / len(terms) if terms and i else (1.0 if i == 0 else 0.0),
                depth / (1 + depth),
                1.0 if unit is not None and unit.kind == "item" else 0.0,
                1.0 if unit is not None and unit.anchor in table_anchors else 0.0,
                1.0 if unit is not None and unit.has_link else 0.0,
            ]
        )
    return np.asarray(rows, dtype=np.float64)
