"""The HNSW indexes, declared on the model (``pgvector.django.HnswIndex``).

They were created in SQL by 0002 and 0009 with the same expression, operator class,
parameters and predicate: this migration records them in the model state only, so
an existing database keeps its graphs (rebuilding one takes minutes on a large index).
"""

import django.db.models.functions.comparison
import django.db.models.lookups
import pgvector.django.indexes
import pgvector.django.vector
from django.contrib.postgres.indexes import OpClass
from django.db import migrations, models


def _hnsw_index(name, language=None):
    dims = models.Func("embedding", function="vector_dims", output_field=models.IntegerField())
    condition = models.Q(django.db.models.lookups.Exact(dims, 384))
    if language is not None:
        condition &= models.Q(language=language)
    return pgvector.django.indexes.HnswIndex(
        OpClass(
            django.db.models.functions.comparison.Cast("embedding", pgvector.django.vector.VectorField(dimensions=384)),
            name="vector_cosine_ops",
        ),
        name=name,
        m=16,
        ef_construction=64,
        condition=condition,
    )


class Migration(migrations.Migration):
    dependencies = [("search", "0013_searchmiss")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddIndex(model_name="chunk", index=_hnsw_index("chunk_embedding_hnsw_384")),
                migrations.AddIndex(model_name="chunk", index=_hnsw_index("chunk_embedding_hnsw_384_en", "en")),
                migrations.AddIndex(model_name="chunk", index=_hnsw_index("chunk_embedding_hnsw_384_fr", "fr")),
            ],
            database_operations=[],
        )
    ]
