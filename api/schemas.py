"""Request and response shapes; the JSON of search and ask is that of ``manage.py search|ask --json``."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from ninja import Schema
from pydantic import ConfigDict


class CliShape(Schema):
    """The CLI's JSON is the contract: fields it gains later pass through unchanged."""

    model_config = ConfigDict(extra="allow")


class SearchHit(CliShape):
    ref: str
    title: str
    anchor: str
    score: float
    space: str
    language: str
    snippet: str
    url: str  # the page's path on this site with the passage's anchor ("/spaces/hr/remote-work/#equipment")


class SearchOut(CliShape):
    query: str
    results: list[SearchHit]


class AskIn(Schema):
    question: str


class AskCitation(CliShape):
    ref: str
    anchor: str
    revision: int
    title: str
    language: str
    quote: str
    outdated: bool
    url: str  # as in search results
    context_before: str = ""  # an unsure quote's context in its passage
    context_after: str = ""


class AskOut(CliShape):
    answer: str
    mode: str
    citations: list[AskCitation]
    language: str
    notice: str
    confidence: Literal["sure", "unsure"] | None = None  # how sure Ask is of its answer; None for no_answer
    probability: float | None = None  # the fitted probability that the quoted lead states the answer


class PageOut(Schema):
    ref: str
    title: str
    language: str
    revision: int
    html: str
    summary: str | None
    url: str


class PageListItem(Schema):
    ref: str
    title: str
    language: str
    updated: datetime
    url: str


class SpaceOut(Schema):
    slug: str
    title: str
    description: str


class ErrorOut(Schema):
    detail: str


class ImpactAnswerOut(Schema):
    mode: str  # "extractive", "no_answer", or "verified" for a verified answer's quoted units
    text: str
    lead: str  # the first quote
    title: str  # the page it cites
    ref: str
    url: str


class ImpactRowOut(Schema):
    question: str
    mark: Literal["changes", "now_answered", "no_longer_answered", "unchanged", "verified_stale"]
    askers: int  # distinct people who asked it in these words (never who); 0 for a verified answer
    times: int
    verified: bool
    before: ImpactAnswerOut | None
    after: ImpactAnswerOut | None  # None: a verified answer none of whose units is left


class ImpactOut(Schema):
    ref: str
    revision: int
    rows: list[ImpactRowOut]
    not_previewed: int  # questions past the preview's limit or time budget
    failed: bool  # the draft could not be indexed for the preview: no rows
