"""Search-as-you-type matches a heading by its own words, not its parents' (search/retrieval/prefix.py).

A chunk's heading is a path ("Remote work › Equipment"): indexed whole, "remote" matched every
section of the page, and a common word of a top heading matched thousands of chunks. The index
now holds the innermost heading only, the part the typing list shows. The function repeats
``search_fold``'s folding instead of calling it: CREATE INDEX and autovacuum run with a search
path that finds only built-in functions.
"""

from django.db import migrations

LEAF_FUNCTION = """
CREATE OR REPLACE FUNCTION search_heading_leaf(text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT translate(
    replace(replace(replace(lower(regexp_replace($1, '^.* › ', '')), 'œ', 'oe'), 'æ', 'ae'), 'ß', 'ss'),
    'àáâãäåāăąçćčďđèéêëēėęěìíîïīįłñńňòóôõöøōőùúûüūůűųýÿžźż’',
    'aaaaaaaaacccddeeeeeeeeiiiiiilnnnoooooooouuuuuuuuyyzzz'''
  )
$$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0021_quote_ranker_fit"),
    ]

    operations = [
        migrations.RunSQL(LEAF_FUNCTION, "DROP FUNCTION IF EXISTS search_heading_leaf(text);"),
        migrations.RunSQL(
            "CREATE INDEX chunk_heading_leaf_prefix ON search_chunk"
            " USING gin (to_tsvector('simple', search_heading_leaf(heading))) WHERE heading <> '';",
            "DROP INDEX IF EXISTS chunk_heading_leaf_prefix;",
        ),
        migrations.RunSQL(
            "DROP INDEX IF EXISTS chunk_heading_prefix;",
            "CREATE INDEX chunk_heading_prefix ON search_chunk"
            " USING gin (to_tsvector('simple', search_fold(heading)));",
        ),
    ]
