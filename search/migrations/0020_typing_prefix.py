"""Prefix indexes for search-as-you-type (search/retrieval/prefix.py): page titles and chunk headings.

Words are matched by prefix (``to_tsquery('simple', 'word:*')``) against the folded text, so
"conge" finds "Congés". The pgserver Postgres has no ``unaccent``: ``search_fold`` folds the
accents of the handbook's languages in SQL the way ``core.text.words`` folds the typed words.
The title index is on a handbook table, but search is its only reader, so it lives here.
"""

from django.db import migrations

# Lower case first, then the ligatures core.text folds by hand, then one letter for each accented one.
FOLD_FUNCTION = """
CREATE OR REPLACE FUNCTION search_fold(text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT translate(
    replace(replace(replace(lower($1), 'œ', 'oe'), 'æ', 'ae'), 'ß', 'ss'),
    'àáâãäåāăąçćčďđèéêëēėęěìíîïīįłñńňòóôõöøōőùúûüūůűųýÿžźż’',
    'aaaaaaaaacccddeeeeeeeeiiiiiilnnnoooooooouuuuuuuuyyzzz'''
  )
$$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("handbook", "0008_page_translation"),
        ("search", "0019_verified_answer"),
    ]

    operations = [
        migrations.RunSQL(FOLD_FUNCTION, "DROP FUNCTION IF EXISTS search_fold(text);"),
        migrations.RunSQL(
            "CREATE INDEX page_title_prefix ON handbook_page USING gin (to_tsvector('simple', search_fold(title)));",
            "DROP INDEX IF EXISTS page_title_prefix;",
        ),
        migrations.RunSQL(
            "CREATE INDEX chunk_heading_prefix ON search_chunk"
            " USING gin (to_tsvector('simple', search_fold(heading)));",
            "DROP INDEX IF EXISTS chunk_heading_prefix;",
        ),
    ]
