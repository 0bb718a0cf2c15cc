"""Word-translation vocabulary counted per readership scope. Words stored before have no scope
counts, so no reader may use them: the vocabulary is emptied and rebuilt by the next sweep
(or ``manage.py build_lexicon``)."""

import django.contrib.postgres.fields
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("search", "0011_lexemestat_scope")]

    operations = [
        migrations.RunSQL("DELETE FROM search_lexiconword", migrations.RunSQL.noop),
        migrations.AddField(
            model_name="lexiconword",
            name="scopes",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.CharField(max_length=200), blank=True, default=list, size=None
            ),
        ),
        migrations.AddField(
            model_name="lexiconword",
            name="scope_chunks",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.IntegerField(), blank=True, default=list, size=None
            ),
        ),
    ]
