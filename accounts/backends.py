"""Signing in with a local password: Django's ``ModelBackend``, its user read by ``user_by_id``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend

from accounts.selectors import user_by_id


class LocalBackend(ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        # What ModelBackend.get_user does (a deactivated account is nobody), with the one-statement read.
        user = user_by_id(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None
