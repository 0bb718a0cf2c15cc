"""Ask's passages as tests build them: one passage of a page, numbered ``number``, everything else a
plain default a test may override by name."""

from __future__ import annotations

from typing import Any

from search.ask.passages import Passage


def make_passage(text: str = "", number: int = 1, **fields: Any) -> Passage:
    values: dict[str, Any] = {
        "number": number,
        "passage_id": f"p-{number}",
        "chunk_id": number,
        "page_id": number,
        "ref": f"page-{number}",
        "title": f"Page {number}",
        "url": f"/page-{number}/",
        "anchor": "",
        "heading": "",
        "text": text,
        "language": "en",
        "revision_id": number,
        "revision_number": 1,
        "content_hash": str(number),
        "score": 1.0,
        "vector_distance": 0.1,
        "keyword_rank": None,
    }
    return Passage(**(values | fields))
