from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0024_searchmiss_searcher_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="decisionpolicy",
            name="previous",
            field=models.JSONField(blank=True, default=dict, help_text="The decisions a refit from readers replaced."),
        ),
    ]
