"""Readers' Yes/No on Ask's answers, and editors' verified answers, as labels for the answer decision.

A label is calibration material (``search/calibration/calibration_set.py``) the answer decision is
refitted with (``search/calibration/reader_fit.py``):

- **Yes on an answer**: an answerable question — the reader's question, the cited chunk's text as its
  passage, the lead quote as the sentence that answers it.
- **No on an answer**: the lead quote does not answer — a negative unit, not an unanswerable question
  (the reader says which sentence is wrong, not that the handbook is silent). The cited chunk joins
  the material's handbook and the quote is one of the question's ``not_answers``. When the same
  question is also taught as answerable (a Yes on another unit, or a verified answer), the negatives
  sit beside its answer; otherwise the question teaches only its negatives
  (``CalibrationSet.rejected``) and the answer decision's threshold rules leave it out.
- **No on a no-answer**: a question the handbook answers but Ask declined. It names no sentence, so it
  teaches only once an editor verifies an answer to that question — and then the verified answer
  is the label.
- **Verified answer** (an editor's picked units): an answerable question, its first picked unit the
  answer, the chunk holding that unit the passage.

Rules:

- **No side channel.** As for the quote ranker (``search/ask/quote_learning.py``): only pages every
  active member of staff may read teach (``handbook.permissions.pages_everyone_reads``). A label
  citing any other page is dropped, so the fitted decision — one for everybody — is a function of
  content everyone may read. The passage is read from the page's published revision: a quote edited
  away since teaches nothing.
- **One person, one vote per question.** A person's labels on the same question (folded: case,
  accents, punctuation) count once: their latest.
- **No one steers alone.** A reader's label teaches only when ``MIN_AGREEING`` distinct readers give
  the same verdict on the same quote, more of them than gave the other verdict; or when an editor of
  the cited page's space gives it (an editor's verdict wins over readers'); or when an editor verified
  an answer to that question (the verified answer then teaches that question).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import F

from config.numbers import MIN_AGREEING
from handbook.models import Page, Space
from handbook.permissions import pages_everyone_reads
from search.calibration.calibration_set import CalibrationPassage, CalibrationQuestion, CalibrationSet
from search.decisions.same_question import fold
from search.models import AskLog, Chunk, VerifiedAnswer


@dataclass(frozen=True)
class ReaderLabel:
    """One person's Yes or No on one answer (``passage`` None: on a no-answer)."""

    person: str
    question: str
    language: str
    helpful: bool
    passage: CalibrationPassage | None = None
    quote: str = ""  # the lead quote of the answer rated
    editor: bool = False  # the person edits the space of the cited page


@dataclass(frozen=True)
class VerifiedLabel:
    """An editor's verified answer: the question's wordings (folded), its passage and answer sentence."""

    question: str
    language: str
    passage: CalibrationPassage
    answer: str
    wordings: frozenset[str] = frozenset()


@dataclass
class ReaderMaterial:
    """What the labels teach, and what they came to (the fit report shows it)."""

    passages: dict[str, CalibrationPassage] = field(default_factory=dict)
    questions: list[CalibrationQuestion] = field(default_factory=list)
    unanswerable: list[CalibrationQuestion] = field(default_factory=list)
    rejected: list[CalibrationQuestion] = field(default_factory=list)  # known only by wrong answers
    counts: Counter[str] = field(default_factory=Counter)

    def merged(self, base: CalibrationSet) -> CalibrationSet:
        """``base`` with this material added (a passage id already in ``base`` keeps base's text)."""
        known = {p.id for p in base.passages}
        passages = base.passages + tuple(p for pid, p in self.passages.items() if pid not in known)
        return CalibrationSet(
            passages,
            base.questions + tuple(self.questions),
            base.unanswerable + tuple(self.unanswerable),
            base.no_match,
            base.rejected + tuple(self.rejected),
        )

    def report(self) -> dict[str, Any]:
        return dict(sorted(self.counts.items())) | {
            "taught_answerable": len(self.questions),
            "taught_unanswerable": len(self.unanswerable),
            "taught_not_answers": sum(len(q.not_answers) for q in (*self.questions, *self.rejected)),
            "taught_negatives_only": len(self.rejected),
            "passages": len(self.passages),
        }


def _verdicts(labels: list[ReaderLabel]) -> bool | None:
    """The verdict a group of one-person labels on one quote teaches, or None."""
    editors = Counter(label.helpful for label in labels if label.editor)
    if editors:
        return None if editors[True] == editors[False] else editors[True] > editors[False]
    readers = Counter(label.helpful for label in labels)
    for verdict in (True, False):
        if readers[verdict] >= MIN_AGREEING and readers[verdict] > readers[not verdict]:
            return verdict
    return None


def teaching_material(labels: Iterable[ReaderLabel], verified: Iterable[VerifiedLabel] = ()) -> ReaderMaterial:
    """The material ``labels`` (oldest first) and ``verified`` teach under the rules above."""
    out = ReaderMaterial()
    answered: dict[str, int] = {}  # folded wording -> its verified question's place in out.questions
    for v in verified:
        wordings = {fold(v.question), *v.wordings}
        if answered.keys() & wordings or v.answer not in v.passage.text:
            continue
        answered |= dict.fromkeys(wordings, len(out.questions))
        out.passages[v.passage.id] = v.passage
        out.questions.append(CalibrationQuestion(v.question, v.language, v.passage.id, v.answer))
        out.counts["verified_answers"] += 1
    latest: dict[tuple[str, str], ReaderLabel] = {}
    for label in labels:
        out.counts["labels"] += 1
        latest[(label.person, fold(label.question))] = label  # one vote per person and question
    out.counts["votes"] = len(latest)
    groups: dict[tuple[str, str, str], list[ReaderLabel]] = defaultdict(list)
    for (_person, folded), label in latest.items():
        if folded in answered:  # the verified answer teaches; only a No on a quote still adds to it
            out.counts["votes_on_verified_questions"] += 1
            if label.passage is None or label.helpful:
                continue
        elif label.passage is None:
            out.counts["votes_on_no_answers_unverified"] += 1
            continue
        if label.quote and label.quote in label.passage.text:
            groups[(folded, label.passage.id, label.quote)].append(label)
    taught: dict[str, list[tuple[bool, int, ReaderLabel]]] = defaultdict(list)
    for (folded, _pid, _quote), group in groups.items():
        verdict = _verdicts(group)
        if verdict is None:
            out.counts["votes_without_agreement"] += len(group)
            continue
        taught[folded].append((verdict, sum(label.helpful == verdict for label in group), group[0]))
    for folded in sorted(taught):
        verdicts = taught[folded]
        yes = sorted((v for v in verdicts if v[0]), key=lambda v: -v[1])
        wrong = tuple(dict.fromkeys(label.quote for verdict, _n, label in verdicts if not verdict))
        if folded in answered:  # the verified answer teaches; agreed Noes sit beside it as negatives
            yes = []
            if not wrong:
                continue
        for verdict, _n, label in verdicts:
            assert label.passage is not None
            if folded not in answered or not verdict:
                out.passages[label.passage.id] = label.passage
        if folded in answered:
            place = answered[folded]
            known = out.questions[place]
            negatives = tuple(dict.fromkeys(known.not_answers + tuple(q for q in wrong if q != known.answer)))
            out.questions[place] = replace(known, not_answers=negatives)
        elif yes:  # answerable: one answer per question, the best supported; its Noes its negatives
            label = yes[0][2]
            assert label.passage is not None
            negatives = tuple(q for q in wrong if q != label.quote)
            out.questions.append(
                CalibrationQuestion(label.question, label.language, label.passage.id, label.quote, negatives)
            )
        else:  # no answer known: only which sentences are wrong
            label = verdicts[0][2]
            out.rejected.append(CalibrationQuestion(label.question, label.language, None, not_answers=wrong))
    return out


# --- read from the database -------------------------------------------------------------------


def _passage(chunk: Chunk, page: Page) -> CalibrationPassage:
    # Whitespace folded, as the shipped material's passages are written: a quote is a unit of the text,
    # and a paragraph hard-wrapped in the page would otherwise not hold its own sentences.
    text = " ".join(chunk.text.split())
    return CalibrationPassage(f"reader-chunk-{chunk.pk}", chunk.language, page.title, chunk.heading, text)


class _Pages:
    """The published chunks of the pages everyone reads, looked up by page ref and quoted text."""

    def __init__(self, everyone: set[int]) -> None:
        self.by_ref = {p.ref: p for p in Page.objects.filter(pk__in=everyone)}
        self.by_id = {p.pk: p for p in self.by_ref.values()}
        self._chunks: dict[int, list[Chunk]] = {}

    def holding(self, page: Page, quote: str) -> CalibrationPassage | None:
        if page.pk not in self._chunks:
            self._chunks[page.pk] = list(
                Chunk.objects.filter(page=page, revision_id=page.published_revision_id or 0).order_by("ordinal")
            )
        quote = " ".join(quote.split())
        for chunk in self._chunks[page.pk]:
            if quote and quote in " ".join(chunk.text.split()):
                return _passage(chunk, page)
        return None


def _reader_labels(pages: _Pages) -> list[ReaderLabel]:
    editable: dict[int, set[int]] = {}
    rows = AskLog.objects.filter(helpful__isnull=False, user__isnull=False).order_by("created_at", "pk")
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=rows.values("user_id"))}
    out: list[ReaderLabel] = []
    for log in rows.only("user_id", "question", "language", "mode", "citations", "helpful"):
        citations = [c for c in log.citations or [] if isinstance(c, dict)]
        label = ReaderLabel(str(log.user_id), log.question, log.language, bool(log.helpful))
        if log.mode == AskLog.Mode.NO_ANSWER or not citations:
            out.append(label)
            continue
        cited = [pages.by_ref.get(str(c.get("ref", ""))) for c in citations]
        if any(page is None for page in cited):  # a page not everyone reads: the label teaches nothing
            continue
        lead, quote = cited[0], " ".join(str(citations[0].get("quote") or "").split())
        assert lead is not None
        passage = pages.holding(lead, quote)
        if passage is None:  # the quote is no longer on the published page
            continue
        user = users.get(log.user_id or 0)
        if log.user_id not in editable:
            editable[log.user_id or 0] = (
                set(Space.objects.editable_by(user).values_list("pk", flat=True)) if user is not None else set()
            )
        editor = lead.space_id in editable[log.user_id or 0]
        out.append(ReaderLabel(label.person, log.question, log.language, label.helpful, passage, quote, editor))
    return out


def _verified_labels(pages: _Pages) -> list[VerifiedLabel]:
    out: list[VerifiedLabel] = []
    answers = (
        VerifiedAnswer.objects.filter(
            kind=VerifiedAnswer.Kind.ANSWER,
            page_id__in=list(pages.by_id),
            revision_id=F("page__published_revision_id"),
        )
        .order_by("verified_at", "pk")
        .prefetch_related("wordings")
    )
    for verified in answers:
        page = pages.by_id[verified.page_id or 0]
        for unit in verified.units or []:
            text = " ".join(str(unit.get("text") or "").split())
            passage = pages.holding(page, text)
            if passage is not None:
                wordings = frozenset(w.folded for w in verified.wordings.all())
                out.append(VerifiedLabel(verified.question, verified.language, passage, text, wordings))
                break
    return out


def reader_material() -> ReaderMaterial:
    """What this installation's readers and editors teach the answer decision now."""
    pages = _Pages(pages_everyone_reads())
    return teaching_material(_reader_labels(pages), _verified_labels(pages))
