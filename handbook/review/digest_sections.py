"""More the review digest can carry, from apps above ``handbook``: each registers a section at
start-up (its ``AppConfig.ready``), so the digest reaches owners for them without ``handbook``
importing them. A section lists, per owner, lines of text with a link on the site."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Entries = dict[Any, list[tuple[str, str]]]  # user -> [(line, path on the site)]


@dataclass(frozen=True)
class DigestSection:
    name: str
    intro: Any  # a lazy translation: rendered in the site's language when the digest is written
    entries: Callable[[datetime.date | None], Entries]


_SECTIONS: dict[str, DigestSection] = {}


def register(section: DigestSection) -> None:
    _SECTIONS[section.name] = section


def registered() -> list[DigestSection]:
    return list(_SECTIONS.values())
