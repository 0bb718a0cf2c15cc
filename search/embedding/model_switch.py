"""Changing the embedding model without a search outage.

The *serving* model is the one whose vectors fill ``Chunk.embedding`` and
whose embedder encodes queries. When the configured model differs, indexing
writes the new vectors to ``Chunk.next_embedding``; search keeps serving the
old ones. Once every chunk has a vector of the new model, one UPDATE swaps
them and the new model starts serving.
"""

from __future__ import annotations

import logging

from celery import current_app
from django.db import connection, transaction

from search.embedding.embedders import Embedder, get_embedder, local_embedder
from search.models import Chunk, IndexSettings

logger = logging.getLogger(__name__)


def serving_model() -> str:
    """The model search reads; on a fresh index, the configured one."""
    current = IndexSettings.objects.filter(pk=1).values_list("serving_model", flat=True).first()
    if current:
        return current
    embedder = get_embedder()
    return embedder.model_name if embedder else ""


def ensure_serving_model(model: str) -> str:
    """Record ``model`` as serving if nothing serves yet (first index of a new install)."""
    settings_row, _created = IndexSettings.objects.get_or_create(pk=1)
    if not settings_row.serving_model:
        has_other = Chunk.objects.exclude(embedding_model="").exclude(embedding_model=model).exists()
        if not has_other:
            settings_row.serving_model = model
            settings_row.save(update_fields=["serving_model", "updated_at"])
    return settings_row.serving_model or model


def is_switching(configured: str) -> bool:
    serving = serving_model()
    return bool(configured and serving and serving != configured)


def query_embedder() -> Embedder | None:
    """The embedder that encodes queries for the serving vectors, or None."""
    configured = get_embedder()
    if configured is None:
        return None
    serving = serving_model()
    if serving == configured.model_name:
        return configured
    local = local_embedder()
    if serving == local.model_name:
        return local
    # The old provider is no longer configured: no query vectors can match the
    # serving ones, so the vector leg sits out until the switch completes.
    logger.warning("serving embedding model %r has no embedder configured; keyword search only", serving)
    return None


def try_complete_switch(configured: str) -> bool:
    """Swap in the new vectors once every chunk has one. Returns True if it switched."""
    if not is_switching(configured):
        return False
    with transaction.atomic():
        settings_row = IndexSettings.objects.select_for_update().get(pk=1)
        if settings_row.serving_model == configured:
            return False
        if Chunk.objects.exclude(next_embedding_model=configured).exists():
            return False
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE search_chunk SET embedding = next_embedding, embedding_model = next_embedding_model,"
                " embedded_at = now(), next_embedding = NULL, next_embedding_model = ''"
            )
        settings_row.serving_model = configured
        settings_row.save(update_fields=["serving_model", "updated_at"])
    logger.info("embedding model switch complete: now serving %s", configured)
    # Its decisions are fitted now if it has none (search/decisions/): similarities are the model's own.
    transaction.on_commit(lambda: current_app.send_task("search.tasks.calibrate_model", args=[configured]))
    return True
