"""Answer-unit vectors stored at index time (search/indexing/unit_vectors.py)."""

import django.db.models.deletion
import pgvector.django.vector
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0016_search_log"),
    ]

    operations = [
        migrations.AddField(
            model_name="indexstate",
            name="units_model",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.CreateModel(
            name="UnitVector",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("model", models.CharField(max_length=200)),
                ("text_hash", models.CharField(max_length=32)),
                ("embedding", pgvector.django.vector.VectorField()),
                (
                    "chunk",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="unit_vectors", to="search.chunk"
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("chunk", "model", "text_hash"), name="unitvector_chunk_model_text")
                ],
            },
        ),
    ]
