"""Generated pages for the fit tests: distinct sentences, so which one is ticked is all that differs."""

from __future__ import annotations

import random
from typing import Any

from handbook.markdown import markdown_to_text
from summaries.extractive import candidate_pool
from summaries.features import candidate_hashes
from summaries.models import SummaryPick

NOUNS = [
    "laptop",
    "badge",
    "holiday",
    "salary",
    "canteen",
    "parking",
    "printer",
    "invoice",
    "contract",
    "meeting",
    "training",
    "pension",
    "bonus",
    "desk",
    "visitor",
    "travel",
    "hotel",
    "receipt",
    "manager",
    "budget",
    "locker",
    "shuttle",
    "bicycle",
    "library",
    "coffee",
    "phone",
    "screen",
    "chair",
    "insurance",
    "mentor",
    "payroll",
    "archive",
    "kitchen",
    "garden",
    "roof",
    "elevator",
]


def body(seed: int, n: int = 6) -> str:
    rng = random.Random(seed)
    sentences = []
    for _ in range(n):
        a, b, c = rng.sample(NOUNS, 3)
        sentences.append(f"The {a} request goes to the {b} desk before the {c} review starts.")
    return f"# Page {seed}\n\n" + "\n".join(sentences[:3]) + "\n\n## Details\n\n" + "\n".join(sentences[3:]) + "\n"


def candidates_of(page: Any) -> list[str]:
    """Addresses of the page's candidate sentences, in document order."""
    revision = page.published_revision
    pool = candidate_pool(markdown_to_text(revision.body), language=page.language, markdown=revision.body)
    return candidate_hashes(pool, revision.body)


def tick(page: Any, which: int, editor: Any = None) -> SummaryPick:
    """Tick the page's candidate sentence ``which`` (-1: the last one)."""
    return SummaryPick.objects.create(
        page=page, revision=page.published_revision, units=[candidates_of(page)[which]], editor=editor
    )


def make_ticked(make_page: Any, space: Any, count: int, which: int, start: int = 0) -> list[Any]:
    pages = []
    for i in range(start, start + count):
        page = make_page(space, f"Page {i}", body(i), index=False)
        tick(page, which)
        pages.append(page)
    return pages
