"""Which results are confident and which are only loosely related (issue 49: "25 pages found").

Retrieval keeps every page a list found above its floors, so most queries list most of a small
handbook: the language-centred list has no real floor (``Floor.centred``), and a page near in
meaning with one of the query's words is kept. A reader takes "25 pages found" for "the whole
handbook answers this". The results page shows the confident ones and folds the rest.

No new number: a page is confident by the two tests ``retrieve`` already makes of a whole query
(search/retrieval/pipeline.py), asked of the page alone —

- with its nearest chunk as the query's nearest, the query decision (``search/decisions/query.py``)
  would be confident: the query "means something here" had this been its nearest chunk;
- or one of its chunks holds ``KEYWORD_ALONE_COVERAGE`` of the query's words: enough for the words
  alone to carry a match when nothing is close in meaning.

The confident results are the leading run of such pages, so folding the rest keeps the order
(and nDCG) exactly. Both tests read only the page's own chunks, scored against the reader's
statistics: what the reader cannot read changes neither a page's test nor the run.
"""

from __future__ import annotations

from search.decisions.policy import Decision
from search.decisions.query import QueryDecision, page_confident, query_decision
from search.retrieval.hits import PageHit, Retrieval
from search.retrieval.keyword import KEYWORD_ALONE_COVERAGE

# Coverage is a float share summed from IDF weights: compared as found_by_words/without_weak_word_matches do.
_EPSILON = 1e-9


def is_confident(page: PageHit, query: QueryDecision, decision: Decision | None) -> bool:
    """Whether this page alone would make its query confident (see the module docstring)."""
    for chunk in page.chunks:
        if chunk.vector_distance is not None and page_confident(1.0 - chunk.vector_distance, query, decision):
            return True
        if (chunk.coverage or 0.0) >= KEYWORD_ALONE_COVERAGE - _EPSILON:
            return True
    return False


def confident_count(pages: list[PageHit], retrieval: Retrieval, decision: Decision | None = None) -> int:
    """How many of ``pages`` (best first) lead as confident results; all of them when the query was
    not embedded (keyword search only) or the model has no policy yet (no decision on meaning to
    read), or when the first page is not confident (there is then no confident run to set apart).
    ``decision``: the model's query decision (read from its policy when not given)."""
    query = retrieval.decision
    if query is None or query.probability is None or retrieval.embedder is None:
        return len(pages)
    decision = decision or query_decision(retrieval.embedder.model_name)
    count = 0
    for page in pages:
        if not is_confident(page, query, decision):
            break
        count += 1
    return count or len(pages)
