"""Request and response shapes; the JSON of search and ask is that of ``manage.py search|ask --json``."""

from __future__ import annotations

from datetime import datetime

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


class AskOut(CliShape):
    answer: str
    mode: str
    citations: list[AskCitation]
    language: str
    notice: str


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
