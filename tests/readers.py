"""What a reader sees, computed the plain way, for tests to compare the product's paths with."""

from __future__ import annotations

from typing import Any

from handbook.models import Page
from search.decisions.policy import policy_for
from search.decisions.retrieval import retrieval_weights
from search.retrieval.crosslang import CentredQuery, centred_query, merge_partitions, partition_leg
from search.retrieval.visibility import as_visible


def visible_page_ids(user: Any) -> list[int]:
    """Ids of the pages the user may read, straight from the permission query set."""
    return list(Page.objects.visible_to(user).order_by().values_list("id", flat=True))


def crosslang_leg(
    vector: list[float],
    model: str,
    query_language: str,
    visible: Any,
    filters: Any,
    depth: int,
    exact: bool | None = None,
    centred: CentredQuery | None = None,
) -> list[Any]:
    """Language-centred nearest chunks across every language partition, best first, in one call
    (retrieve() runs each partition as its own list), centred by the model's fitted α as retrieve() centres."""
    centring = retrieval_weights(policy_for(model)).centring
    centred = centred or centred_query(
        vector, model, query_language, filters, as_visible(visible).reader, centring=centring
    )
    if centred is None:
        return []
    per_language = {
        language: partition_leg(centred, language, model, visible, filters, depth, exact) for language in centred.sizes
    }
    return merge_partitions(per_language, centred, depth)
