from django.apps import AppConfig


class SummariesConfig(AppConfig):
    name = "summaries"
    verbose_name = "Summaries"
