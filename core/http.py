"""The request as django-htmx's middleware leaves it: views that read ``request.htmx`` take this type."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
