"""Page restrictions get a through model whose group is protected (``PageRestriction``).

State only: the table, its columns, keys and unique pair stay exactly those Django auto-created in
0001, so the scope-stamp triggers of 0005 (and search's raw SQL) keep reading
``handbook_page_restricted_to_groups`` unchanged. Django enforces PROTECT when deleting, so no
database change is needed either way.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("handbook", "0005_scope_stamps"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="PageRestriction",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "page",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="+", to="handbook.page"
                            ),
                        ),
                        (
                            "group",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="page_restrictions",
                                to="auth.group",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "page restriction",
                        "verbose_name_plural": "page restrictions",
                        "db_table": "handbook_page_restricted_to_groups",
                        "unique_together": {("page", "group")},
                    },
                ),
                migrations.AlterField(
                    model_name="page",
                    name="restricted_to_groups",
                    field=models.ManyToManyField(
                        blank=True,
                        help_text=(
                            "When set, only members of these groups (among the space's readers) may read the page."
                        ),
                        related_name="restricted_pages",
                        through="handbook.PageRestriction",
                        to="auth.group",
                    ),
                ),
            ],
        ),
    ]
