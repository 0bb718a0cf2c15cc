"""HNSW cosine index on chunk embeddings.

The embedding column has no fixed dimension (a model change may bring another
one), so the index is an expression index over ``embedding::vector(384)``,
partial on rows of that dimension. Queries use the same expression and
predicate so the planner can match it (see ``search/retrieval/vector.py``). Another
dimension needs another such index; until then its vectors are searched
exactly.
"""

from django.db import migrations

SQL = """
CREATE INDEX IF NOT EXISTS chunk_embedding_hnsw_384 ON search_chunk
USING hnsw ((embedding::vector(384)) vector_cosine_ops)
WITH (m = 16, ef_construction = 64)
WHERE vector_dims(embedding) = 384;
"""


class Migration(migrations.Migration):
    dependencies = [("search", "0001_initial")]

    operations = [
        migrations.RunSQL(SQL, reverse_sql="DROP INDEX IF EXISTS chunk_embedding_hnsw_384;"),
    ]
