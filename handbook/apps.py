from django.apps import AppConfig


class HandbookConfig(AppConfig):
    name = "handbook"
    verbose_name = "Handbook"

    def ready(self) -> None:
        # deferred: app-registry timing. Registers the receivers that keep the "translation may be out
        # of date" flag.
        from handbook.translations import signals  # noqa: F401
