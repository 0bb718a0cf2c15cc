"""Document frequencies per readership scope (space + restriction groups), so that a reader's
IDF is summed over readable pages only. The old global counts are recomputed in the new form."""

import django.contrib.postgres.fields
from django.db import migrations, models

RECOUNT = """
DELETE FROM search_lexemestat;
WITH scoped AS (
    SELECT c.search_vector, p.space_id, COALESCE(r.groups, '{}'::int[]) AS groups,
           CASE WHEN c.language IN ('en', 'fr') THEN c.language ELSE 'other' END AS lang
    FROM search_chunk c
    JOIN handbook_page p ON p.id = c.page_id
    LEFT JOIN (SELECT page_id, array_agg(group_id ORDER BY group_id) AS groups
               FROM handbook_page_restricted_to_groups GROUP BY page_id) r ON r.page_id = p.id
    WHERE p.status = 'published' AND p.deleted_at IS NULL AND p.published_revision_id IS NOT NULL
      AND c.search_vector IS NOT NULL
)
INSERT INTO search_lexemestat (space_id, groups, language, lexeme, ndoc)
SELECT space_id, groups, lang, left(lexeme, 300), count(*)
FROM scoped, unnest(tsvector_to_array(search_vector)) AS lexeme
WHERE lexeme <> '' GROUP BY 1, 2, 3, 4
UNION ALL
SELECT space_id, groups, lang, '', count(*) FROM scoped GROUP BY 1, 2, 3;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("handbook", "0001_initial"),
        ("search", "0010_chunk_search_vector_inline"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="lexemestat", name="lexemestat_unique"),
        migrations.AddField(model_name="lexemestat", name="space_id", field=models.IntegerField(default=0)),
        migrations.AddField(
            model_name="lexemestat",
            name="groups",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.IntegerField(), blank=True, default=list, size=None
            ),
        ),
        migrations.AddConstraint(
            model_name="lexemestat",
            constraint=models.UniqueConstraint(
                fields=("language", "lexeme", "space_id", "groups"), name="lexemestat_scope_unique"
            ),
        ),
        migrations.RunSQL(RECOUNT, migrations.RunSQL.noop),
    ]
