"""Fit the meaning floor and the words test of the sentence check (``search/decisions/statement_floor.py``)
for one model.

Material: ``material/statements.jsonl`` (written by ``bench/statement_material.py``): pages of the
demo handbook with their statements (answer units), and sentences a model could write citing one of
them — faithful paraphrases, some in the other language, and sentences of its own (invented). Each
is embedded as the check embeds it: both sides as passages. A sentence's score is its cosine to the
closest statement of the page it cites; its share of new words, that of the check's words test
against the statements of that page when it is written in the page's language (the check tests no
sentence by its words against sources in another language). The material holds no question: the
check also counts the question's words as known, so a sentence's share there is at most this one.

Rules, over a grid of ``GRID_STEP``:
- ``min_similarity``: the highest floor that keeps at least ``KEPT_SHARE`` of the faithful
  paraphrases written in their page's language;
- ``cross_language_offset``: the least offset (from 0) with which at least ``KEPT_SHARE`` of the
  faithful paraphrases written in the other language reach that floor;
- ``max_new_words``: the lowest share of new words with which the words test and the floor together
  still keep at least ``KEPT_SHARE`` of the faithful paraphrases written in their page's language
  (``KEPT_SHARE`` is what the whole check may refuse, not each test apart: a paraphrase kept by the
  floor is then refused by its words only where the floor left room).

Invented sentences do not set any number: a floor raised to refuse them would refuse faithful
paraphrases with them. The report says how many pass by cosine alone, how many the words test
refuses and how many pass both.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from config.numbers import STATEMENT_FIT_GRID_STEP as GRID_STEP
from config.numbers import STATEMENT_FIT_KEPT_SHARE as KEPT_SHARE
from config.numbers import STATEMENT_FIT_SWEEP_SPAN as SWEEP_SPAN
from search.calibration.calibration_set import DATA, CalibrationDataError
from search.decisions.policy import Decision
from search.decisions.statement_floor import CROSS_LANGUAGE_OFFSET, MAX_NEW_WORDS, MIN_SIMILARITY
from search.embedding.embedders import Embedder
from statements.statement_check import new_word_share, says_its_own

MATERIAL = DATA / "statements.jsonl"


@dataclass(frozen=True)
class Scored:
    sentence: str
    label: str  # "faithful" | "invented"
    same_language: bool
    cosine: float  # to the closest statement of the page it cites
    new_words: float  # the words test's share against that page's statements (0 across languages)


def _material() -> tuple[dict[str, tuple[str, list[str]]], list[dict[str, Any]], str]:
    """(pages by title: (language, statements), sentences, digest of the file)."""
    body = MATERIAL.read_text(encoding="utf-8")
    pages: dict[str, tuple[str, list[str]]] = {}
    sentences: list[dict[str, Any]] = []
    for number, line in enumerate(body.splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        if "statements" in row:
            pages[row["page"]] = (row["language"], [str(s) for s in row["statements"]])
        elif row.get("page") in pages and row.get("label") in ("faithful", "invented"):
            sentences.append(row)
        else:
            raise CalibrationDataError(f"{MATERIAL.name} line {number}: neither a page nor a sentence of one above")
    return pages, sentences, hashlib.sha256(body.encode()).hexdigest()[:16]


def _unit(vectors: list[list[float]]) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float64)  # a cosine on the grid stays on it
    return array / np.maximum(np.linalg.norm(array, axis=1, keepdims=True), 1e-9)


def scored_sentences(embedder: Embedder) -> tuple[list[Scored], str]:
    """Every sentence of the material with its cosine to its page's closest statement, and the digest."""
    pages, sentences, digest = _material()
    statements = list(dict.fromkeys(s for _language, texts in pages.values() for s in texts))
    written = [str(row["sentence"]) for row in sentences]
    vectors = _unit(embedder.embed_passages(written + statements))
    position = {s: i for i, s in enumerate(statements)}
    scored = []
    for row, vector in zip(sentences, vectors[: len(written)], strict=True):
        language, texts = pages[row["page"]]
        own = vectors[len(written) + np.asarray([position[s] for s in texts])]
        same = row["language"] == language
        new = new_word_share(row["sentence"], language, " ".join(texts)) if same else 0.0
        scored.append(Scored(row["sentence"], row["label"], same, float((own @ vector).max()), new))
    return scored, digest


def _grid(start: float, stop: float) -> np.ndarray:
    return np.round(np.arange(start, stop + GRID_STEP / 2, GRID_STEP), 6)


def _share(values: np.ndarray, floor: float) -> float:
    return float(np.mean(values >= floor - 1e-9)) if len(values) else 1.0


def fit_statement_check(embedder: Embedder) -> Decision:
    scored, digest = scored_sentences(embedder)
    same = np.asarray([s.cosine for s in scored if s.label == "faithful" and s.same_language])
    other = np.asarray([s.cosine for s in scored if s.label == "faithful" and not s.same_language])
    if not len(same):
        raise CalibrationDataError(f"{MATERIAL.name} has no faithful paraphrase in its page's language")
    floors = _grid(-1.0, 1.0)
    floor = float(max(f for f in floors if _share(same, f) >= KEPT_SHARE))
    offsets = _grid(0.0, 2.0)
    offset = float(min(o for o in offsets if _share(other + o, floor) >= KEPT_SHARE))
    max_new_words, words = _fit_words(scored, floor, offset)

    def passing(label: str, at: float) -> dict[str, float]:
        cosines = np.asarray([s.cosine + (0.0 if s.same_language else offset) for s in scored if s.label == label])
        return {"share": round(_share(cosines, at), 4), "count": int(np.sum(cosines >= at - 1e-9))}

    report = {
        "material": {
            "file": MATERIAL.name,
            "digest": digest,
            "faithful_same_language": len(same),
            "faithful_other_language": len(other),
            "invented": sum(1 for s in scored if s.label == "invented"),
        },
        "grid": {"floor": [floors[0], floors[-1]], "offset": [offsets[0], offsets[-1]], "step": GRID_STEP},
        "kept": {
            "faithful_same_language": round(_share(same, floor), 4),
            "faithful_other_language": round(_share(other + offset, floor), 4),
        },
        "invented_passing_by_cosine": passing("invented", floor),
        "sweep": [
            {"floor": f, "faithful_kept": passing("faithful", f)["share"], "invented_passing": passing("invented", f)}
            for f in _grid(floor - SWEEP_SPAN, floor + SWEEP_SPAN)[::2]
        ],
        "words": words,
        "cosines": {
            "faithful_same_language_least": round(float(same.min()), 4),
            "faithful_other_language_least": round(float(other.min()), 4) if len(other) else None,
            "invented_greatest": round(max((s.cosine for s in scored if s.label == "invented"), default=0.0), 4),
        },
        "rules": {
            MIN_SIMILARITY: f"highest floor keeping at least {KEPT_SHARE} of faithful same-language paraphrases",
            CROSS_LANGUAGE_OFFSET: f"least offset with which at least {KEPT_SHARE} of faithful "
            "other-language paraphrases reach the floor",
            MAX_NEW_WORDS: f"lowest share of new words with which the words test and the floor together keep at "
            f"least {KEPT_SHARE} of faithful same-language paraphrases",
        },
    }
    thresholds = {MIN_SIMILARITY: floor, CROSS_LANGUAGE_OFFSET: offset, MAX_NEW_WORDS: max_new_words}
    return Decision((), (), 0.0, thresholds, report)


def _fit_words(scored: list[Scored], floor: float, offset: float) -> tuple[float, dict[str, Any]]:
    """``max_new_words`` by its rule, and its report: what the words test refuses at it, alone and with
    the floor, beside what the check refused by its words without a fit (most of them new)."""
    faithful = [s for s in scored if s.label == "faithful" and s.same_language]
    invented = [s for s in scored if s.label == "invented"]

    def by_floor(s: Scored) -> bool:
        return s.cosine + (0.0 if s.same_language else offset) >= floor - 1e-9

    def counts(group: list[Scored], bound: float | None, *, with_floor: bool) -> dict[str, float]:
        kept = sum(1 for s in group if not says_its_own(s.new_words, bound) and (by_floor(s) or not with_floor))
        return {"share": round(kept / len(group), 4) if group else 1.0, "count": kept}

    shares = _grid(0.0, 1.0)
    chosen = float(min(m for m in shares if counts(faithful, m, with_floor=True)["share"] >= KEPT_SHARE))
    tested = [s for s in invented if s.same_language]
    report = {
        "grid": [shares[0], shares[-1]],
        "faithful_kept_by_words": counts(faithful, chosen, with_floor=False),
        "faithful_kept_by_words_and_floor": counts(faithful, chosen, with_floor=True),
        "invented_tested": len(tested),
        "invented_refused_by_words": len(tested) - int(counts(tested, chosen, with_floor=False)["count"]),
        "invented_passing_words_and_floor": counts(invented, chosen, with_floor=True),
        "without_a_fit": {
            "faithful_kept_by_words": counts(faithful, None, with_floor=False),
            "invented_refused_by_words": len(tested) - int(counts(tested, None, with_floor=False)["count"]),
            "invented_passing_words_and_floor": counts(invented, None, with_floor=True),
        },
        "new_words_faithful_greatest": round(max((s.new_words for s in faithful), default=0.0), 4),
    }
    return chosen, report
