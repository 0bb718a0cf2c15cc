"""The Django project: settings, root URLs, the Celery app and WSGI. Apps hold only their own code."""

# Load the Celery app when Django starts so that shared_task uses it.
from config.celery import app as celery_app

__all__ = ("celery_app",)
