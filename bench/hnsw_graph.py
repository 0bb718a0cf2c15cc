"""HNSW recall by graph parameters, on real vectors and on synthetic ones of the same size.

    python -m bench.hnsw_graph [--params 16:64,16:200,24:200,32:128] [--ef 100,200,400]

The 1M bench needs synthetic vectors (``bench/synthetic_vectors.py``); this tells how far its
recall says something about real ones. The bench instance stores ~64k real vectors: the answer
units of the five corpora, embedded by the serving model. On the distinct ones (N) and on N
synthetic vectors drawn from a mixture fitted on 10k of them (as the 1M bench fits on the real
chunks), it builds each HNSW graph (m, ef_construction) in a scratch table and reports, for the
dev questions:

- recall@10 against exact search at each ``hnsw.ef_search`` (a returned row counts when it is
  as close as the 10th exact one: ties between duplicate texts are not misses), and the time a
  walk takes;
- how hard the data is for any index: the local intrinsic dimension around each question
  (maximum-likelihood estimate over its 20 nearest rows) and the contrast d10/d1.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

if __package__ != "bench":
    raise SystemExit("run as: python -m bench.hnsw_graph ...")

from bench import common  # noqa: E402

FIT_SIZE = 10_000  # real vectors the mixture is fitted on (the 1M bench has ~10k real chunks)
QUESTIONS = 128
TABLE = "bench_hnsw_graph"


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _real_vectors() -> np.ndarray:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT embedding::text FROM search_unitvector")
        rows = [np.array(text.strip("[]").split(","), dtype=np.float32) for (text,) in cursor.fetchall()]
    return _unit(np.stack(rows))


def _questions() -> np.ndarray:
    from bench.search import _queries_for_scale
    from search.embedding.embedders import get_embedder
    from search.retrieval.query_embedding import query_embedding

    texts = _queries_for_scale()
    texts = texts[:: max(1, len(texts) // QUESTIONS)][:QUESTIONS]
    embedder = get_embedder()
    assert embedder is not None
    return _unit(np.array([query_embedding(t, embedder) for t in texts], dtype=np.float32))


def _hardness(data: np.ndarray, questions: np.ndarray, k: int = 20) -> tuple[float, float]:
    distances = np.sort(1.0 - questions @ data.T, axis=1)[:, :k]
    distances = np.maximum(distances, 1e-9)
    lid = -1.0 / np.mean(np.log(distances[:, :-1] / distances[:, -1:]), axis=1)
    return float(np.mean(lid)), float(np.mean(distances[:, 9] / distances[:, 0]))


def _recalls(cursor: Any, data: np.ndarray, questions: np.ndarray, efs: list[int]) -> list[tuple[float, float]]:
    from pgvector import Vector

    similarities = questions @ data.T
    tenth = -np.sort(-similarities, axis=1)[:, 9]
    out = []
    for ef in efs:
        cursor.execute(f"SET hnsw.ef_search = {int(ef)}")
        recalls, started = [], time.perf_counter()
        for i, question in enumerate(questions):
            cursor.execute(
                f"SELECT id FROM {TABLE} ORDER BY v <=> %s::vector LIMIT 10",  # noqa: S608 - our own table
                [Vector(question.tolist()).to_text()],
            )
            ids = [row[0] for row in cursor.fetchall()]
            recalls.append(sum(similarities[i, j] >= tenth[i] - 1e-6 for j in ids) / 10)
        out.append((common.mean(recalls), (time.perf_counter() - started) / len(questions) * 1000))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.hnsw_graph", description=__doc__.split("\n\n")[0])
    parser.add_argument("--params", default="16:64,16:200,24:200,32:128", help="m:ef_construction, comma-separated")
    parser.add_argument("--ef", default="100,200,400", help="hnsw.ef_search values")
    args = parser.parse_args(argv)
    params = [tuple(int(x) for x in p.split(":")) for p in args.params.split(",")]
    efs = [int(x) for x in args.ef.split(",")]
    common.setup(migrate=False)
    from django.db import connection
    from pgvector import Vector

    from bench.synthetic_vectors import Mixture

    real = _real_vectors()
    rng = np.random.default_rng(20260)
    real = real[rng.permutation(len(real))]
    sets = {"real (answer units)": real, "synthetic (mixture)": Mixture(real[:FIT_SIZE], rng).take(len(real))}
    questions = _questions()
    rows = []
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '1GB'")
        for name, data in sets.items():
            lid, contrast = _hardness(data, questions)
            cursor.execute(f"DROP TABLE IF EXISTS {TABLE}")
            cursor.execute(f"CREATE UNLOGGED TABLE {TABLE} (id int PRIMARY KEY, v vector({data.shape[1]}))")
            with cursor.copy(f"COPY {TABLE} (id, v) FROM STDIN") as copy:
                for i, vector in enumerate(data):
                    copy.write_row((i, Vector(vector.tolist()).to_text()))
            for m, construction in params:
                cursor.execute(f"DROP INDEX IF EXISTS {TABLE}_v")
                started = time.perf_counter()
                cursor.execute(
                    f"CREATE INDEX {TABLE}_v ON {TABLE} USING hnsw (v vector_cosine_ops)"
                    f" WITH (m = {m}, ef_construction = {construction})"
                )
                build = time.perf_counter() - started
                hardness = (f"{lid:.1f}", f"{contrast:.3f}")
                for ef, (recall, ms) in zip(efs, _recalls(cursor, data, questions, efs), strict=True):
                    rows.append((name, len(data), *hardness, m, construction, build, ef, recall, ms))
                print(f"  {name}: m={m} ef_construction={construction} done", flush=True)
        cursor.execute(f"DROP TABLE IF EXISTS {TABLE}")
    common.section(
        "HNSW recall@10 by graph parameters, real and synthetic vectors of the same size",
        common.md_table(
            ("vectors", "N", "LID", "d10/d1", "m", "ef_construction", "build s", "ef_search", "recall@10", "ms"),
            rows,
            digits=3,
        ),
        f"{len(questions)} dev questions; recall against exact search (a row as close as the 10th exact one counts). "
        "LID: local intrinsic dimension around the questions (higher: harder for any index).",
    )
    common.write_results("hnsw_graph", {"rows": rows})


if __name__ == "__main__":
    main(sys.argv[1:])
