"""What a model wrote, checked sentence by sentence against the text it cites.

A citation check catches an invented source; it cannot catch an invented
sentence hung on a real one ("You get 41 days [1]" citing a page that says 25).
Each written sentence is therefore checked on its own, against the sources it
cites (its own ``[n]`` markers, or every cited source when it has none):

- **figures** (numbers, amounts, dates, small numbers in words) must appear in
  those sources or in the question, and, with vectors, in one of the statements
  the sentence is closest to (another row's "75 €" in the same table does not
  support "Norway: 75 €"): figures are written the same way in both languages,
  so this holds for an English sentence drawn from a French page;
- **names** (words written with a capital inside the sentence: places, tools,
  teams) must appear in a source of the sentence's own language or in the
  question; across languages a name is often translated (Norvège / Norway), so
  sources in another language do not decide it;
- **words**: in the sources' own language, at most a share of the sentence's
  content words may be absent from them and from the question (an invented
  sentence brings its own subject: "donated to a charity", "airport lounges"):
  the share fitted with the meaning floor (``MeaningFloor.max_new_words``), or,
  without one, half: a sentence is refused when most of its words are new;
- **meaning**: the sentence must be close to one statement of its sources, by
  the embedding model's cosine similarity when the caller gives one (any
  language): at least the floor of ``MeaningFloor``, a statement in another
  language getting its offset. Both cosines hold for one embedding model only,
  so the caller passes the ones fitted for its model; without them no sentence
  is judged by its cosine (the cosines still say which statements are closest,
  for the figures test).

A sentence that fails any test is unsupported; the caller leaves it out and,
when nothing is left, falls back to quoting the sources.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from config.numbers import FIGURES_NEAR, MIN_WORDS_TESTED
from core.text import content_words, detect_language, fold_accents, prefix_stem, split_sentences

MARKER = re.compile(r"\[(\d{1,2})\]")

# A figure: a quantity standing alone, digits with thousands grouped by commas, dots or spaces
# ("61,000", "61 000") or a decimal; not part of a code or a word ("E3", "v2", "3rd") nor an
# enumeration or call in brackets ("(1)").
_FIGURE = re.compile(r"(?<![\w(\[.,])\d+(?:[.,\u00a0\u202f ]\d{3})*(?:[.,]\d+)?(?![\w)\]])")
_NUMBER_WORDS = {
    word: str(value)
    for value, words in enumerate(
        [
            ("zero", "zéro"), ("one", "un", "une"), ("two", "deux"), ("three", "trois"), ("four", "quatre"),
            ("five", "cinq"), ("six",), ("seven", "sept"), ("eight", "huit"), ("nine", "neuf"), ("ten", "dix"),
            ("eleven", "onze"), ("twelve", "douze"), ("thirteen", "treize"), ("fourteen", "quatorze"),
            ("fifteen", "quinze"), ("sixteen", "seize"), ("seventeen",), ("eighteen",), ("nineteen",),
            ("twenty", "vingt"),
        ]
    )
    for word in words
} | {"thirty": "30", "trente": "30", "forty": "40", "quarante": "40", "fifty": "50", "cinquante": "50"}  # fmt: skip
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_NAME = re.compile(r"(?<![\w@./-])[A-ZÀ-ÖØ-Þ][\w'’-]*[^\W\d_]")
# What a statement says is its prose: markup a model wrote (tags, link targets, addresses) is shown
# escaped, as text, and says nothing the sources could support or contradict.
_MARKUP = re.compile(
    r"<(script|style)\b.*?</\1\s*>|<[^>]*>|\]\((?:[^()]|\([^()]*\))*\)|\b[a-z][a-z0-9+.-]*:(?://)?\S*\(\S*|"
    r"\b[a-z][a-z0-9+.-]*://\S+",
    re.IGNORECASE | re.S,
)
_ARTICLES = frozenset({"un", "une", "one"})
_LEADING_MARKERS = re.compile(r"^((?:\[\d{1,2}\]\s*)+)(.*)$", re.S)

# Similarities of sentences (rows) to statements (columns), for the meaning test.
Similarity = Callable[[list[str], list[str]], list[list[float]]]


@dataclass(frozen=True)
class MeaningFloor:
    """The meaning test's cosines for one embedding model (both sides embedded as passages), and the
    words test's share fitted beside them, by the caller's calibration on shipped paraphrases."""

    min_similarity: float  # a sentence's least cosine to its closest source statement
    cross_language_offset: float  # added to its cosine to a statement in another language
    # The share of a sentence's content words (crude stems) that its same-language sources and the
    # question may lack; None (a fit made before it): see ``says_its_own``.
    max_new_words: float | None = None


@dataclass(frozen=True)
class Source:
    number: int  # the [n] that cites it
    text: str
    language: str
    statements: tuple[str, ...] = ()  # its quotable units; its sentences when empty


@dataclass(frozen=True)
class Verdict:
    sentence: str
    supported: bool
    reason: str = ""  # "figure" | "name" | "meaning" when unsupported
    detail: str = ""  # the figure or name at fault
    similarity: float | None = None


def figures(text: str, *, number_words: bool = False, articles: bool = True) -> set[str]:
    """Figures of ``text`` as bare digits ("3 000 €" -> "3000"); small numbers written as words too
    with ``number_words``, the articles that are also numbers ("un", "une", "one") unless ``articles``
    is false."""
    found = {_normal(m) for m in _FIGURE.findall(MARKER.sub(" ", _URL.sub(" ", text)))}
    if number_words:
        skipped = frozenset() if articles else _ARTICLES
        found |= {
            _NUMBER_WORDS[w] for w in re.findall(r"[^\W\d_]+", text.lower()) if w in _NUMBER_WORDS and w not in skipped
        }
    return found


def known_figures(question: str, texts: Iterable[str]) -> set[str]:
    """Every figure a statement may state: those of the question and of its sources."""
    known = figures(question, number_words=True)
    for text in texts:
        known |= figures(text, number_words=True)
    return known


def _normal(figure: str) -> str:
    """One spelling per quantity: thousands separators dropped, a decimal comma made a point
    ("3 000" and "3,000" -> "3000"; "2,5" and "2.5" -> "2.5", never "25")."""
    match = re.fullmatch(r"(.*?)[.,](\d{1,2}|\d{4,})", figure)
    whole, decimals = (match.group(1), match.group(2)) if match else (figure, "")
    whole = re.sub(r"\D", "", whole)
    return f"{whole}.{decimals}" if decimals else whole


def prose(sentence: str) -> str:
    """The sentence without its markup and markers."""
    return MARKER.sub(" ", _MARKUP.sub(" ", sentence))


def _stated(sentence: str) -> set[str]:
    """The figures a written sentence states, small numbers in words included ("eight weeks")."""
    return figures(prose(sentence), number_words=True, articles=False)


def written_sentences(text: str) -> list[str]:
    """The sentences of a model's text, each keeping the ``[n]`` markers written after its full stop."""
    out: list[str] = []
    for piece in split_sentences(text):
        match = _LEADING_MARKERS.match(piece)
        if match and out:
            out[-1] = f"{out[-1]} {match.group(1).strip()}"
            piece = match.group(2).strip()
        if piece:
            out.append(piece)
    return out


def _names(sentence: str) -> set[str]:
    """Words written with a capital past the sentence's first word: names of places, tools, teams."""
    text = prose(sentence)
    found = set()
    for match in _NAME.finditer(text):
        if match.start() == len(text) - len(text.lstrip()):
            continue  # the sentence's own capital
        before = text[: match.start()].rstrip()
        if before.endswith((".", ":", "!", "?", "«", '"', "“", "(")):
            continue  # a capital that starts a clause or a quotation
        found.add(fold_accents(match.group(0)).lower())
    return found


def _stems(words: list[str]) -> set[str]:
    return {prefix_stem(w) for w in words}


def new_word_share(sentence: str, language: str, known: str) -> float:
    """The share of the sentence's content words that ``known`` (same language) does not hold;
    0 for a sentence of fewer than ``MIN_WORDS_TESTED`` content words."""
    own = _stems(content_words(prose(sentence), language))
    if len(own) < MIN_WORDS_TESTED:
        return 0.0
    return len(own - _stems(content_words(known, language))) / len(own)


def says_its_own(share: float, max_new_words: float | None) -> bool:
    """Whether a sentence whose content words are ``share`` new to its sources says something of its
    own: beyond the fitted ``max_new_words`` (a share on the fit's grid is kept), or, without a fit,
    when most of them are new — the words test stays on when no meaning floor judges either."""
    if max_new_words is None:
        return share > 1 / 2
    return share > max_new_words + 1e-9


def _statements(source: Source) -> tuple[str, ...]:
    return source.statements or tuple(split_sentences(source.text))


def check_sentences(
    text: str,
    sources: Sequence[Source],
    *,
    language: str,
    question: str = "",
    similarity: Similarity | None = None,
    floor: MeaningFloor | None,
) -> list[Verdict]:
    """A verdict for every sentence of ``text``, in order. ``language``: the answer's; each sentence's
    own is detected (a model may quote a French rule in an English answer). ``floor``: the embedding
    model's, None when it has none (the cosines then only rank statements for the figures test, and a
    sentence is refused by its words when most of them are new)."""
    sentences = written_sentences(text)
    by_number = {s.number: s for s in sources}
    cited_by: list[list[Source]] = []
    for sentence in sentences:
        own = [by_number[int(n)] for n in MARKER.findall(sentence) if int(n) in by_number]
        cited_by.append(list(dict.fromkeys(own)) or list(sources))
    known_in_question = figures(question, number_words=True)
    source_figures = {id(s): figures(s.text, number_words=True) for s in sources}
    question_names = {fold_accents(w).lower() for w in re.findall(r"[\w'’-]+", question)}
    most_new = floor.max_new_words if floor is not None else None
    verdicts: list[Verdict | None] = []
    languages = [detect_language(prose(sentence), default=language) for sentence in sentences]
    for sentence, cited, own_language in zip(sentences, cited_by, languages, strict=True):
        known = known_in_question.union(*(source_figures[id(source)] for source in cited))
        missing = _stated(sentence) - known
        if missing:
            verdicts.append(Verdict(sentence, False, "figure", ", ".join(sorted(missing))))
            continue
        same_language = [s for s in cited if s.language == own_language]
        if same_language:
            pool = " ".join(s.text for s in same_language)
            folded = fold_accents(pool).lower()
            unknown = {n for n in _names(sentence) - question_names if n not in folded}
            if unknown:
                verdicts.append(Verdict(sentence, False, "name", ", ".join(sorted(unknown))))
                continue
            novel = new_word_share(sentence, own_language, f"{pool} {question}")
            if says_its_own(novel, most_new):
                verdicts.append(Verdict(sentence, False, "words", f"{novel:.2f}"))
                continue
        if len(content_words(prose(sentence), own_language)) < MIN_WORDS_TESTED:
            verdicts.append(Verdict(sentence, True))  # "25 days [1].": its figures and names decided
            continue
        verdicts.append(None)  # meaning decides
    pending = [i for i, v in enumerate(verdicts) if v is None]
    if pending and similarity is not None:
        statements = sorted({(st, s.language) for s in sources for st in _statements(s)})
        offset = floor.cross_language_offset if floor is not None else 0.0
        least = floor.min_similarity if floor is not None else -math.inf
        rows = similarity([" ".join(prose(sentences[i]).split()) for i in pending], [st for st, _ in statements])
        for i, row in zip(pending, rows, strict=True):
            allowed = {st for s in cited_by[i] for st in _statements(s)}
            closest = sorted(
                (
                    (value + (0.0 if st_language == languages[i] else offset), st)
                    for (st, st_language), value in zip(statements, row, strict=True)
                    if st in allowed
                ),
                reverse=True,
            )
            best = closest[0][0] if closest else 0.0
            # Its figures must be those of the statements it is closest to, not merely somewhere in
            # the passage ("75 €" is another country's rate in the same table).
            near = set(known_in_question)
            for _value, st in closest[:FIGURES_NEAR]:
                near |= figures(st, number_words=True)
            missing = _stated(sentences[i]) - near
            if missing and best >= least:
                verdicts[i] = Verdict(sentences[i], False, "figure", ", ".join(sorted(missing)), best)
                continue
            ok = best >= least
            verdicts[i] = Verdict(sentences[i], ok, "" if ok else "meaning", similarity=best)
    for i in pending:  # without vectors, figures, names and words have decided
        if verdicts[i] is None:
            verdicts[i] = Verdict(sentences[i], True)
    return [v for v in verdicts if v is not None]
