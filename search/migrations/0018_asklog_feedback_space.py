"""The space an asker names when rating an answer "not helpful" (search/ask/feedback.py)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("handbook", "0001_initial"),
        ("search", "0017_unit_vectors"),
    ]

    operations = [
        migrations.AddField(
            model_name="asklog",
            name="feedback_space",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="handbook.space",
            ),
        ),
    ]
