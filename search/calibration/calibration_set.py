"""The material the decisions learn from: text the project ships, never what readers may read.

``search/calibration/material/`` (read by serving too: ``search/embedding/sentence_sets.py``) holds a small
handbook of a fictional company on generic workplace subjects, in English and French
(``handbook.jsonl``), questions it answers with the passage and the sentence that answer each
(``questions.jsonl``), workplace questions it does not answer — mostly near misses, on a subject it
covers but a detail it does not state (``unanswerable.jsonl``) — and queries on other subjects,
random strings and keyboard mashes (``no_match.jsonl``).

A company adds its own labelled material in the same formats: a JSONL file given to
``manage.py calibrate --extra FILE`` whose lines are passages (``{"id", "language", "page",
"heading", "text"}``), questions (``{"question", "language", "passage", "answer"}``), unanswerable
questions (``{"question", "language", "unanswerable": true}``) or no-match queries
(``{"query", "language"}``). Its own pages' text belongs there only if every reader may read it.

A question may also name sentences that do NOT answer it: ``"not_answers": ["sentence", ...]``. On a
question with its ``passage`` and ``answer`` they are negatives beside its answer; on a question with
neither (``{"question", "language", "not_answers": [...]}``) they are all it teaches — the sentences
are wrong answers, the question is not made unanswerable (the answer decision's threshold rules leave
it out). Each sentence must be in one of the material's passages.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "material"


@dataclass(frozen=True)
class CalibrationPassage:
    id: str
    language: str
    page: str
    heading: str
    text: str

    @property
    def heading_path(self) -> str:
        return f"{self.page} › {self.heading}" if self.heading else self.page


@dataclass(frozen=True)
class CalibrationQuestion:
    text: str
    language: str
    passage: str | None  # None: the handbook does not answer it
    answer: str = ""  # the sentence of the passage that states the answer
    # Sentences a reader or editor said do not answer it (not in repr: the digest adds them only when
    # there are some, so material without them names the same fit as before they existed).
    not_answers: tuple[str, ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class CalibrationSet:
    passages: tuple[CalibrationPassage, ...]
    questions: tuple[CalibrationQuestion, ...]  # answerable
    unanswerable: tuple[CalibrationQuestion, ...]
    no_match: tuple[tuple[str, str], ...]  # (query, language or "none")
    # Questions known only by sentences that do not answer them: neither answerable nor unanswerable.
    rejected: tuple[CalibrationQuestion, ...] = ()

    def digest(self) -> str:
        """What a fit was made from (its report names it)."""
        parts: list[Any] = [self.passages, self.questions, self.unanswerable, self.no_match]
        negatives = [(q.text, q.not_answers) for q in (*self.questions, *self.unanswerable) if q.not_answers]
        if negatives or self.rejected:
            parts += [negatives, [(q.text, q.not_answers) for q in self.rejected]]
        body = json.dumps(parts, default=repr)
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    def counts(self) -> dict[str, int]:
        return {
            "passages": len(self.passages),
            "questions": len(self.questions),
            "unanswerable": len(self.unanswerable),
            "no_match": len(self.no_match),
        } | ({"rejected": len(self.rejected)} if self.rejected else {})


class CalibrationDataError(ValueError):
    """A line of calibration material is not what its format says (file and line in the message)."""


def _lines(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CalibrationDataError(f"{path.name}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise CalibrationDataError(f"{path.name}:{number}: not a JSON object")
        yield number, row


def _text(row: dict[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CalibrationDataError(f"{where}: {key!r} must be a non-empty string")
    return value.strip()


def _not_answers(row: dict[str, Any], where: str) -> tuple[str, ...]:
    value = row.get("not_answers", [])
    if not isinstance(value, list) or not all(isinstance(t, str) and t.strip() for t in value):
        raise CalibrationDataError(f"{where}: 'not_answers' must be a list of non-empty strings")
    return tuple(t.strip() for t in value)


def _read(paths: Iterable[Path]) -> CalibrationSet:
    passages: dict[str, CalibrationPassage] = {}
    questions: list[CalibrationQuestion] = []
    unanswerable: list[CalibrationQuestion] = []
    rejected: list[CalibrationQuestion] = []
    no_match: list[tuple[str, str]] = []
    for path in paths:
        for number, row in _lines(path):
            where = f"{path.name}:{number}"
            if "text" in row and "id" in row:
                passage = CalibrationPassage(
                    _text(row, "id", where),
                    _text(row, "language", where),
                    _text(row, "page", where),
                    str(row.get("heading") or ""),
                    _text(row, "text", where),
                )
                if passage.id in passages:
                    raise CalibrationDataError(f"{where}: passage id {passage.id!r} appears twice")
                passages[passage.id] = passage
            elif "query" in row:
                no_match.append((_text(row, "query", where), str(row.get("language") or "none")))
            elif "question" in row and "passage" not in row and not row.get("unanswerable") and "not_answers" in row:
                rejected.append(
                    CalibrationQuestion(
                        _text(row, "question", where),
                        _text(row, "language", where),
                        None,
                        not_answers=_not_answers(row, where),
                    )
                )
            elif row.get("unanswerable") or ("question" in row and "passage" not in row):
                unanswerable.append(
                    CalibrationQuestion(_text(row, "question", where), _text(row, "language", where), None)
                )
            elif "question" in row:
                question = CalibrationQuestion(
                    _text(row, "question", where),
                    _text(row, "language", where),
                    _text(row, "passage", where),
                    _text(row, "answer", where),
                    not_answers=_not_answers(row, where),
                )
                questions.append(question)
            else:
                raise CalibrationDataError(f"{where}: neither a passage, a question nor a no-match query")
    for question in questions:
        asked = passages.get(question.passage or "")
        if asked is None:
            raise CalibrationDataError(f"question {question.text!r}: no passage {question.passage!r}")
        if question.answer not in asked.text:
            raise CalibrationDataError(f"question {question.text!r}: its answer is not in passage {asked.id!r}")
    for question in (*questions, *rejected):
        for text in question.not_answers:
            if not any(text in p.text for p in passages.values()):
                raise CalibrationDataError(f"question {question.text!r}: not-answer {text!r} is in no passage")
    return CalibrationSet(
        tuple(passages.values()), tuple(questions), tuple(unanswerable), tuple(no_match), tuple(rejected)
    )


SHIPPED_FILES = ("handbook.jsonl", "questions.jsonl", "unanswerable.jsonl", "no_match.jsonl")


def calibration_set(extra: Iterable[Path] = (), *, shipped: bool = True) -> CalibrationSet:
    """The shipped material (unless ``shipped`` is False), plus a company's own files (``extra``)."""
    material = _read([*(DATA / name for name in SHIPPED_FILES if shipped), *extra])
    if not (material.passages and material.questions and material.no_match):
        raise CalibrationDataError("the material needs passages, questions they answer and no-match queries")
    return material
