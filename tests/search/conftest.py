"""Fixtures of the retrieval tests: the test handbook of ``tests/search/retrieval_world.py``."""

from __future__ import annotations

import pytest

from search.models import Chunk
from tests.search.retrieval_world import build


@pytest.fixture
def fast_passwords(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def kw(no_embeddings, fast_passwords, make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    """The corpus indexed without vectors: keyword leg only."""
    return build(make_space, make_page, make_user)


@pytest.fixture
def hybrid(fast_passwords, make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    """The corpus indexed with the local embedding model."""
    world = build(make_space, make_page, make_user)
    assert not Chunk.objects.filter(embedding__isnull=True).exists()
    return world
