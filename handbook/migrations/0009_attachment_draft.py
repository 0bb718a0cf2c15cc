import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("handbook", "0008_page_translation"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="attachment",
            name="draft_token",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="attachment",
            name="page",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="attachments",
                to="handbook.page",
            ),
        ),
        migrations.AddIndex(
            model_name="attachment",
            index=models.Index(
                condition=models.Q(("page__isnull", True)), fields=["draft_token"], name="attachment_draft"
            ),
        ),
        migrations.AddConstraint(
            model_name="attachment",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("page__isnull", False), models.Q(("draft_token", ""), _negated=True), _connector="OR"
                ),
                name="attachment_page_or_draft",
            ),
        ),
    ]
