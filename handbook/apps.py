from django.apps import AppConfig


class HandbookConfig(AppConfig):
    name = "handbook"
    verbose_name = "Handbook"
