"""Keep embeddings inline in the heap row.

A 384-float vector is ~1.5 kB; with the chunk text beside it the row passes
the TOAST threshold and the vector was moved out of line, so an exact scan
paid a TOAST fetch per row (~5 µs). PLAIN keeps the vector inline (the text
and tsvector are still compressed or moved out first).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("search", "0005_lexeme_stats")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE search_chunk ALTER COLUMN embedding SET STORAGE PLAIN;",
            reverse_sql="ALTER TABLE search_chunk ALTER COLUMN embedding SET STORAGE EXTERNAL;",
        ),
    ]
