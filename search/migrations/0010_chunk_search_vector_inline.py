"""Keep each chunk's tsvector and small columns in its row; only the text goes to TOAST.

A chunk row holds a 1.5 kB embedding (stored plain, 0006), its text and its
tsvector: over the 2 kB TOAST threshold, so Postgres moved the largest
compressible column, the tsvector, out of line. Every keyword candidate then
cost ~4 extra buffer reads (TOAST index and heap): at 100k chunks, 814
candidates read 3,817 buffers.

``STORAGE MAIN`` keeps a column in the row (compressed if need be). Set on the
tsvector alone, it made Postgres push every other movable column out instead,
down to the 32-byte model name that every vector scan filters on (4 buffers
a row: an exact scan of 10k chunks went from 10 to 29 ms). So every column
but the text is kept in the row; the text, which only displayed results and
answers read, is the one moved out. Measured at 100k chunks, the keyword
statement of 128 dev questions: 6.4 / 11.9 -> 4.9 / 9.2 ms p50 / p95, same
results; the vector scans read one buffer a row, as before.

Rows already stored keep their layout until rewritten: ``VACUUM FULL``
rewrites the table and rebuilds its indexes once (about 2 minutes at 100k
chunks). It cannot run inside a transaction, hence ``atomic = False``.
"""

from django.db import migrations

IN_ROW = ("search_vector", "heading", "anchor", "language", "content_hash", "embedding_model", "next_embedding_model")


def _storage(kind: str) -> str:
    return "ALTER TABLE search_chunk " + ", ".join(f"ALTER COLUMN {c} SET STORAGE {kind}" for c in IN_ROW) + ";"


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("search", "0009_chunk_language_indexes"),
    ]

    operations = [
        migrations.RunSQL(_storage("MAIN"), reverse_sql=_storage("EXTENDED")),
        migrations.RunSQL("VACUUM FULL search_chunk;", reverse_sql=migrations.RunSQL.noop),
    ]
