"""More files a space export can carry, from apps above ``handbook`` (what editors taught the
handbook: verified answers, summary picks). Each registers at start-up (``AppConfig.ready``) a
function given the space, the pages being exported (those the exporter may read) and the exporter;
it returns (path in the zip, bytes) pairs and must only draw on those pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Part = Callable[[Any, list[Any], Any], list[tuple[str, bytes]]]

_PARTS: dict[str, Part] = {}


def register(name: str, part: Part) -> None:
    _PARTS[name] = part


def registered() -> list[Part]:
    return list(_PARTS.values())
