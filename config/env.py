"""Typed readers for environment variables.

Each helper fails loudly with ``ImproperlyConfigured`` on a value it cannot
read, instead of guessing: a typo in production configuration should stop the
process at start-up, not surface as odd behaviour later.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
N = TypeVar("N", int, float)


def env_str(name: str, default: str = "") -> str:
    """A string; ``NAME_FILE`` (a path) wins over ``NAME`` for secrets in files."""
    file_path = os.environ.get(f"{name}_FILE")
    if file_path:
        try:
            return Path(file_path).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE={file_path!r} cannot be read: {exc}") from exc
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true/false, 1/0, yes/no, on/off)")


def _number(name: str, default: N, parse: Callable[[str], N], kind: str, minimum: N | None, maximum: N | None) -> N:
    """The variable read with ``parse`` (``default`` when unset or blank); a value it cannot read,
    or out of bounds, is refused."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = parse(raw.strip())
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={raw!r} is not {kind}") from exc
    if not math.isfinite(value):
        raise ImproperlyConfigured(f"{name}={raw!r} is not a finite number")
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} is below the minimum {minimum}")
    if maximum is not None and value > maximum:
        raise ImproperlyConfigured(f"{name}={value} is above the maximum {maximum}")
    return value


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    return _number(name, default, int, "an integer", minimum, maximum)


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    return _number(name, default, float, "a number", minimum, None)


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_url(name: str, *, schemes: tuple[str, ...]) -> str:
    """A URL with one of the given schemes, or "" when unset."""
    value = env_str(name)
    scheme, separator, _rest = value.partition("://")
    if value and (not separator or scheme not in schemes):
        raise ImproperlyConfigured(f"{name} must start with one of {', '.join(s + '://' for s in schemes)}")
    return value


# Words that mark a placeholder rather than a generated key ("changeme", "your-secret-key"…),
# compared with case and punctuation dropped. Seven letters or more, so that a random key
# practically never contains one by chance.
_PLACEHOLDER_WORDS = (
    "changeme",
    "changethis",
    "replaceme",
    "placeholder",
    "yoursecret",
    "secretkey",
    "notsecret",
    "insecure",
    "devonly",
    "example",
)
# Stricter than Django's deploy check (5): a hex key has 16 distinct characters, a generated
# Django or ``token_urlsafe`` key about 30; fewer means a pattern someone typed.
SECRET_KEY_MIN_UNIQUE_CHARACTERS = 10


def secret_key_weakness(key: str, *, known: tuple[str, ...] = ()) -> str:
    """Why ``key`` must not sign production sessions, or "" when it may.

    Refused: empty, shorter than Django's minimum (50), Django's generated development keys
    (``django-insecure-``), a key in ``known`` (the development key this project falls back
    to), placeholder words, or too few distinct characters.
    """
    # settings-time: settings.py calls this, and the checks package loads the model layer
    from django.core.checks.security.base import SECRET_KEY_INSECURE_PREFIX, SECRET_KEY_MIN_LENGTH

    if not key:
        return "is empty"
    if key in known:
        return "is the development key published in the source"
    if key.startswith(SECRET_KEY_INSECURE_PREFIX):
        return f"starts with {SECRET_KEY_INSECURE_PREFIX!r}, Django's marker of a development key"
    if len(key) < SECRET_KEY_MIN_LENGTH:
        return f"is {len(key)} characters long, fewer than {SECRET_KEY_MIN_LENGTH}"
    folded = "".join(ch for ch in key.lower() if ch.isalnum())
    for word in _PLACEHOLDER_WORDS:
        if word in folded:
            return f"contains the placeholder {word!r}: it is not a generated key"
    if len(set(key)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS:
        return f"has {len(set(key))} distinct characters, fewer than {SECRET_KEY_MIN_UNIQUE_CHARACTERS}"
    return ""
