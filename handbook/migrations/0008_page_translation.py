import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("handbook", "0007_approvals_templates"),
    ]

    operations = [
        migrations.AddField(
            model_name="page",
            name="translation",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="translated_by",
                to="handbook.page",
            ),
        ),
        migrations.AddField(
            model_name="page",
            name="translation_outdated_since",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
