"""Language-aware text helpers shared by indexing, search, answers and summaries.

Everything here is pure Python (plus the small py3langid model, loaded lazily),
so it can be used from request handlers, Celery tasks and tests alike without a
database.  The handbook is bilingual (English / French); the helpers know about
both languages and fall back gracefully for anything else.
"""

from __future__ import annotations

import copy
import functools
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from py3langid.langid import MODEL_FILE, LanguageIdentifier

from core import languages

# --------------------------------------------------------------------------
# Accent folding
# --------------------------------------------------------------------------

# Letters that NFKD does not decompose but that users routinely type without
# the special character ("oeuvre", "Strasse"), plus typographic apostrophes so
# that "l’entreprise" and "l'entreprise" tokenise identically.
_FOLD_TABLE = str.maketrans(
    {
        "œ": "oe",
        "Œ": "OE",
        "æ": "ae",
        "Æ": "AE",
        "ß": "ss",
        "ø": "o",
        "Ø": "O",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "’": "'",
        "‘": "'",
        "ʼ": "'",
        "´": "'",
        "`": "'",
    }
)


def fold_accents(text: str) -> str:
    """Strip diacritics and fold ligatures: "Œuvre à l’été" -> "OEuvre a l'ete".

    Case is preserved on purpose: PostgreSQL's to_tsvector lowercases, and the
    sentence splitter relies on capitals.  Note that the result can be longer
    than the input (œ -> oe, ﬁ -> fi), so do not use it to compute offsets into
    the original string.
    """
    if text.isascii():  # fast path: the vast majority of English text
        return text
    text = text.translate(_FOLD_TABLE)
    folded = _LATIN_MARKS.sub("", unicodedata.normalize("NFKD", text))
    if folded.isascii():  # French, Spanish, German…: their marks are all in the block just removed
        return folded
    # Other characters remain (« », a no-break space, another script): the distinct ones are tested,
    # not every character of the text, and only marks among them are removed.
    marks = [ch for ch in set(folded) if not ch.isascii() and unicodedata.combining(ch)]
    return folded.translate(dict.fromkeys(map(ord, marks))) if marks else folded


# The Combining Diacritical Marks block (U+0300–U+036F), which holds the marks of Latin-script
# accents, except U+034F (the grapheme joiner: not a combining mark). Removed by one regular
# expression, they no longer go character by character through ``unicodedata.combining``: a third of
# the time, and folding was most of the time of a French search's snippets.
_LATIN_MARKS = re.compile("[\u0300-\u034e\u0350-\u036f]+")


STOPWORDS = languages.STOPWORDS

# --------------------------------------------------------------------------
# Tokenisation
# --------------------------------------------------------------------------

# Letters and digits only; the apostrophe is a separator, which is exactly
# what splits French elisions ("l'entreprise" -> "l", "entreprise").
_WORD_RE = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Lowercase, accent-folded word tokens (letters/digits)."""
    return _WORD_RE.findall(fold_accents(text).lower())


def prefix_stem(word: str) -> str:
    """A crude stem, the word's prefix: "congés"/"conge", "expenses"/"expense" meet across both
    languages, where a per-language stemmer would need the word's language first."""
    return word[: max(4, len(word) - 2)]


def content_words(text: str, lang: str) -> list[str]:
    """Words minus the stop-words of ``lang`` (both lists if unknown), len >= 2."""
    stop = STOPWORDS.get(lang, languages.ALL_STOPWORDS)
    return [w for w in words(text) if len(w) > 1 and w not in stop]


# --------------------------------------------------------------------------
# Sentence splitting
# --------------------------------------------------------------------------

# Abbreviations (lowercase, without the final period) after which a period
# does not end a sentence even when a capital follows ("M. Dupont", "e.g. Slack").
# "etc." is deliberately absent: followed by a capital it almost always ends
# the sentence; followed by lowercase we never split anyway.
# fmt: off
_ABBREVIATIONS = frozenset({
    "e.g", "i.e", "cf", "vs", "approx", "dept", "av", "bd", "mr", "mrs", "ms", "dr", "prof", "st",
    "jr", "sr", "inc", "ltd", "co", "corp", "m", "mm", "mme", "mmes", "mlle", "mlles", "pr", "p",
    "pp", "ex", "env", "c.-a-d", "c.-à-d", "fig", "vol", "ch", "tel", "tél", "jan", "feb", "fév",
    "apr", "avr", "aug", "oct", "nov", "dec", "déc",
})
# fmt: on

# Terminal punctuation (possibly repeated: "?!", "..."), optional closing
# quotes/brackets, then whitespace and the first character of what follows.
# French puts a (non-breaking) space before the closing guillemet: "… ». Puis".
_BOUNDARY_RE = re.compile(r"[.!?…]+(?:[\"'”’)\]]|\s?»)*(?=\s+(\S))")
_OPENERS = "\"'“‘«([¿¡"
# A line that starts a list item / table row / quote / heading / fence.
_BLOCK_START_RE = re.compile(r"\s*(?:[-*+•>#|]|```|~~~|\d{1,3}[.)]\s)")
_LINE_END_PUNCT_RE = re.compile(r"[.!?…:;][\"'”’»)\]]*\s*$")
_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_LAST_TOKEN_RE = re.compile(r"(\S+)$")
# "U.S", "e.g" (letters only, so that "rate is 3.5. Then" still splits).
_DOTTED_ACRONYM_RE = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]")


def _line_break_splits(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into blocks: paragraphs, list items, headings.

    A single newline is usually a soft wrap inside a paragraph, so we only
    break on it when the layout says a new unit starts: the previous line
    ended a sentence, the next line is a list item/table row/heading, or the
    previous line looks like a short title followed by a capitalised line.
    """
    spans: list[tuple[int, int]] = []
    para_start = 0
    for m in _PARAGRAPH_BREAK_RE.finditer(text):
        spans.extend(_split_paragraph(text, para_start, m.start()))
        para_start = m.end()
    spans.extend(_split_paragraph(text, para_start, len(text)))
    return spans


def _split_paragraph(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    block_start = line_start = start
    newline = text.find("\n", start, end)
    while newline != -1:
        next_end = text.find("\n", newline + 1, end)
        prev_line = text[line_start:newline]
        next_line = text[newline + 1 : end if next_end == -1 else next_end]
        if _is_line_boundary(prev_line, next_line):
            spans.append((block_start, newline))
            block_start = newline + 1
        line_start = newline + 1
        newline = next_end
    spans.append((block_start, end))
    return spans


def _is_line_boundary(prev_line: str, next_line: str) -> bool:
    stripped_next = next_line.lstrip()
    stripped_prev = prev_line.lstrip()
    if not stripped_next or not stripped_prev:
        return True
    if _BLOCK_START_RE.match(next_line):
        return True  # next list item, table row, heading, quote or fence
    if stripped_prev.startswith(("#", "|", "```", "~~~")):
        return True  # headings, table rows and fences are one line each
    if stripped_next[0].islower():
        return False  # soft wrap inside a sentence
    if _LINE_END_PUNCT_RE.search(prev_line):
        return True
    # Short unpunctuated line followed by a capitalised one: a title.
    return len(prev_line.split()) <= 6


def _is_sentence_end(text: str, match: re.Match[str], block_start: int) -> bool:
    following = match.group(1)
    if not (following[0].isupper() or following[0].isdigit() or following[0] in _OPENERS):
        return False
    punct = match.group(0)
    if punct != ".":
        return True  # "!", "?", "…", "..." or a period with a closing quote
    # Abbreviations are short: only look back a little, which also keeps the
    # splitter linear on long paragraphs.
    lookback = max(block_start, match.start() - 24)
    token_match = _LAST_TOKEN_RE.search(text, lookback, match.start())
    if token_match is None:
        return True
    token = token_match.group(1).lstrip(_OPENERS).lower()
    if token in _ABBREVIATIONS:
        return False
    # Single-letter initials ("J. Smith") and dotted acronyms ("U.S.").
    if len(token) == 1 and token.isalpha():
        return False
    return _DOTTED_ACRONYM_RE.fullmatch(token) is None


def split_sentences(text: str) -> list[str]:
    """Split English/French plain text into sentences.

    Every returned sentence is stripped, non-empty and an exact substring of
    ``text`` (callers quote sentences verbatim and may locate them with
    ``text.find``).  Nothing is dropped: the sentences cover all non-blank
    content of the input, in order.
    """
    sentences: list[str] = []
    for block_start, block_end in _line_break_splits(text):
        piece_start = block_start
        for m in _BOUNDARY_RE.finditer(text, block_start, block_end):
            if _is_sentence_end(text, m, block_start):
                _append_stripped(sentences, text[piece_start : m.end()])
                piece_start = m.end()
        _append_stripped(sentences, text[piece_start:block_end])
    return sentences


def _append_stripped(out: list[str], piece: str) -> None:
    piece = piece.strip()
    if piece:
        out.append(piece)


# --------------------------------------------------------------------------
# Language detection
# --------------------------------------------------------------------------

# Stop-words that are also frequent tokens in the *other* language (or common
# acronyms) make poor language markers: "car" (company car), "comment",
# "est" (EST), "ai" (AI), "eu" (EU), "mon" (Mon.), "dont" (don't typed
# without apostrophe), "aura", "ton", "sa" (SA)...
# fmt: off
_AMBIGUOUS_MARKERS = frozenset({
    "a", "ai", "an", "as", "aura", "car", "comment", "dont", "est", "eu", "ex", "etc", "eg", "ie",
    "mon", "no", "non", "or", "plus", "pour", "sa", "son", "ta", "ton", "via", "me", "ma", "on",
    "y",
})
# fmt: on
_MARKERS: dict[str, frozenset[str]] = {
    "en": frozenset(w for w in STOPWORDS["en"] - STOPWORDS["fr"] - _AMBIGUOUS_MARKERS if len(w) > 1 or w == "i"),
    "fr": frozenset(w for w in STOPWORDS["fr"] - STOPWORDS["en"] - _AMBIGUOUS_MARKERS if len(w) > 1),
}
_FR_ACCENT_RE = re.compile(r"[àâäçéèêëîïôöùûüÿœæ]", re.IGNORECASE)
_FR_ELISION_RE = re.compile(r"\b(?:[cdjlmnst]|qu|jusqu|lorsqu|puisqu|quelqu)['’](?=\w)", re.IGNORECASE)
_EN_CONTRACTION_RE = re.compile(r"\w(?:n['’]t|['’](?:s|re|ll|ve|m|d))\b", re.IGNORECASE)
_LETTERS_RE = re.compile(r"[^\W\d_]{2,}")

# Only the first few kilobytes matter to tell English from French, and
# capping keeps detection cheap on long pages.
_MAX_DETECT_CHARS = 4000

_model_lock = threading.Lock()


@functools.cache
def _model() -> Any:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


@functools.cache
def _identifier_for(choices: tuple[str, ...]) -> Any:
    """A py3langid identifier restricted to ``choices`` (sorted, distinct).

    The model (slow to load) is loaded once; each restriction is a shallow
    copy whose ``set_languages`` slices the shared arrays, so concurrent
    callers with different ``choices`` never mutate each other's state.
    """
    with _model_lock:  # one thread loads the model, the others wait for it
        identifier = copy.copy(_model())
    identifier.set_languages(list(choices))
    return identifier


def _heuristic_scores(text: str, choices: Sequence[str]) -> dict[str, float]:
    tokens = words(text)
    scores = dict.fromkeys(choices, 0.0)
    for lang in choices:
        markers = _MARKERS.get(lang)
        if markers:
            scores[lang] += sum(1 for t in tokens if t in markers)
    if "fr" in scores:
        accented = sum(1 for w in _WORD_RE.findall(text) if _FR_ACCENT_RE.search(w))
        scores["fr"] += accented + len(_FR_ELISION_RE.findall(text))
    if "en" in scores:
        scores["en"] += len(_EN_CONTRACTION_RE.findall(text))
    return scores


@dataclass(frozen=True)
class LanguageEvidence:
    """What tells a text's language: the stop-word / accent heuristic when it settles it, else
    py3langid's guess with its confidence, beside the heuristic's lean and the default."""

    settled: str | None = None  # the heuristic (or the lack of letters) decides
    guess: str | None = None  # py3langid's language, when asked
    confidence: float = 0.0
    lean: str | None = None  # the heuristic's weak lean, when it has one

    def language(self, min_confidence: float, default: str) -> str:
        """The language, py3langid trusted from ``min_confidence``."""
        if self.settled is not None:
            return self.settled
        if self.guess is not None and self.confidence >= min_confidence:
            return self.guess
        return self.lean or default  # a weak heuristic lean beats a coin toss


def language_evidence(text: str, default: str, choices: Sequence[str]) -> LanguageEvidence:
    """The evidence ``detect_language`` decides from (``choices``: two or more)."""
    text = text[:_MAX_DETECT_CHARS]
    letter_runs = _LETTERS_RE.findall(text)
    if not letter_runs:
        return LanguageEvidence(settled=default)  # empty, numbers, punctuation

    scores = _heuristic_scores(text, choices)
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    (best_lang, best), (_, second) = ranked[0], ranked[1]
    if best > 0 and (second == 0 or (best >= 2 * second and best - second >= 2)):
        return LanguageEvidence(settled=best_lang)

    if all(run.isupper() for run in letter_runs) and len(letter_runs) <= 3:
        # Acronyms ("VPN", "SSO", "RH") carry no language evidence.
        return LanguageEvidence(settled=default if best == second else best_lang)
    lang, confidence = _identifier_for(tuple(sorted(set(choices)))).classify(text)
    return LanguageEvidence(
        guess=str(lang) if lang in choices else None,
        confidence=float(confidence),
        lean=best_lang if best > second else None,
    )


def detect_language(text: str, default: str = languages.DEFAULT.code, choices: Sequence[str] = languages.CODES) -> str:
    """Guess the language of ``text`` among ``choices``; ``default`` if unsure.

    Works on short search queries: a stop-word / accent / elision heuristic
    settles most cases in microseconds ("mot de passe", "how do I ...",
    "congés payés"); only undecided texts ("annual leave") go to py3langid,
    restricted to ``choices`` and trusted from its fitted confidence
    (``languages.identifier_min_confidence``).  Acronyms and other low-evidence
    input ("VPN") return ``default``.
    """
    choices = tuple(choices)
    if not choices:
        return default
    if len(choices) == 1:
        return choices[0]
    return language_evidence(text, default, choices).language(languages.identifier_min_confidence(), default)
