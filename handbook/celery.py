"""The Celery app, configured from Django settings (``CELERY_`` namespace)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "handbook.settings")

app = Celery("handbook")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
