from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0023_decision_policy"),
    ]

    operations = [
        migrations.AddField(
            model_name="searchmiss",
            name="searcher_key",
            field=models.CharField(blank=True, editable=False, max_length=64, null=True),
        ),
    ]
