"""Signing in with a local password: Django's ``ModelBackend`` under the handbook's own name.

Sessions store the name of the backend that signed them in: this one stays, whatever it extends.
"""

from __future__ import annotations

from django.contrib.auth.backends import ModelBackend


class LocalBackend(ModelBackend):
    pass
