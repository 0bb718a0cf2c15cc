"""What retrieval produces and takes: chunk and page hits, the result, the filters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from search.retrieval.query import ParsedQuery


@dataclass
class ChunkHit:
    chunk_id: int
    page_id: int
    score: float = 0.0
    keyword_rank: int | None = None
    vector_rank: int | None = None
    vector_distance: float | None = None
    crosslang_rank: int | None = None
    translated_rank: int | None = None
    language: str = ""  # the chunk's language, where the leg knows it (the language-centred list)
    coverage: float | None = None  # keyword lists: share of the query words' IDF the chunk holds


@dataclass
class PageHit:
    page_id: int
    score: float
    chunks: list[ChunkHit]

    @property
    def best(self) -> ChunkHit:
        return self.chunks[0]


@dataclass
class Retrieval:
    query: ParsedQuery
    pages: list[PageHit]  # all fused pages, best first
    query_language: str
    timings: dict[str, float] = field(default_factory=dict)
    used_vectors: bool = False
    query_vector: list[float] | None = None  # what later steps (Ask's sentence choice) reuse
    embedder: Any = None  # the serving query embedder the vector came from
    decision: Any = None  # QueryDecision: whether the query means something here (None: not embedded)
    vector_floor: float | None = None  # the similarity a vector hit needed (None: read from the policy)
    page_decision: Any = None  # Decision: the page decision of the policy the query decision came from
    reader: Any = None  # Reader: the scopes the search read with (None: the query was empty)
    # The query in each other handbook language, as the translated list searched it (None: not translated)
    translations: dict[str, str] | None = None


@dataclass
class Filters:
    space: str | None = None
    language: str | None = None

    def sql(self) -> tuple[str, list[Any]]:
        clauses, params = [], []
        if self.space:
            clauses.append(
                "AND c.page_id IN (SELECT p.id FROM handbook_page p JOIN handbook_space s ON s.id = p.space_id"
                " WHERE s.slug = %s)"
            )
            params.append(self.space)
        if self.language:
            clauses.append("AND c.language = %s")
            params.append(self.language)
        return " ".join(clauses), params
