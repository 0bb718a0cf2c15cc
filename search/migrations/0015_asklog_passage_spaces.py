import django.contrib.postgres.fields
import django.contrib.postgres.indexes
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0014_chunk_hnsw_declared"),
    ]

    operations = [
        migrations.AddField(
            model_name="asklog",
            name="passage_spaces",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.IntegerField(), blank=True, null=True, size=None
            ),
        ),
        migrations.AddField(
            model_name="asklog",
            name="passage_pages",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.IntegerField(), blank=True, null=True, size=None
            ),
        ),
        migrations.AddIndex(
            model_name="asklog",
            index=django.contrib.postgres.indexes.GinIndex(fields=["passage_spaces"], name="asklog_passage_spaces"),
        ),
    ]
