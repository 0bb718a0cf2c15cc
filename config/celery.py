"""The Celery app, configured from Django settings (``CELERY_`` namespace)."""

import os

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("handbook")  # the name its tasks and queues have always had
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_ready.connect
def _first_heartbeat(**_kwargs: object) -> None:
    """/healthz sees a worker as soon as it is up; beat refreshes the heartbeat every 30 s."""
    # deferred: the Celery app loads with the settings, before the app registry can import models
    from handbook.health import heartbeat_write

    heartbeat_write()
