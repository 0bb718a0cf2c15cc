"""Which results match closely and which are only loosely related ("25 pages found").

Retrieval keeps every page a list found above its floors, so a query that means something here
lists most of a small handbook. A reader takes "25 pages found" for "the whole handbook answers
this". The results page shows the close ones and folds the rest.

A page matches closely by the fitted page decision (``search/decisions/query.py``, ``PAGE``): its
nearest chunk's similarity to the query, how far behind the query's nearest chunk it is, and the
share of the query's words its best chunk holds. The close results are the leading run of such
pages, so folding the rest keeps the order, and every ranking measure, exactly. Every feature reads only the page's
own chunks and the reader's lists: what the reader cannot read changes neither a page nor the run.
"""

from __future__ import annotations

from search.decisions.policy import Decision
from search.decisions.query import PageFeatures, page_close, page_decision, query_decision, vector_floors
from search.retrieval.hits import PageHit, Retrieval


def page_features(page: PageHit, query_nearest: float, vector_floor: float) -> PageFeatures:
    """A page's features; one only the word lists found is as far as a vector hit may be."""
    similarities = [1.0 - c.vector_distance for c in page.chunks if c.vector_distance is not None]
    similarity = max(similarities) if similarities else vector_floor
    coverage = max((c.coverage or 0.0 for c in page.chunks), default=0.0)
    return PageFeatures(similarity, max(0.0, query_nearest - similarity), coverage)


def confident_count(pages: list[PageHit], retrieval: Retrieval, decision: Decision | None = None) -> int:
    """How many of ``pages`` (best first) lead as close results; all of them when the query was not
    embedded (keyword search only), when it was not confident (the words carried it: every listed
    page holds most of them), when the model has no policy yet, or when the first page is not close
    (there is then no close run to set apart). ``decision``: the page decision (the one the search
    read with its query decision, else read from the policy)."""
    query = retrieval.decision
    if query is None or not query.confident or query.features is None or retrieval.embedder is None:
        return len(pages)
    model = retrieval.embedder.model_name
    decision = decision or retrieval.page_decision or page_decision(model)
    floor = retrieval.vector_floor if retrieval.vector_floor is not None else vector_floors(query_decision(model))[0]
    count = 0
    for page in pages:
        if not page_close(page_features(page, query.features.nearest, floor), decision):
            break
        count += 1
    return count or len(pages)
