"""One line of a JSONL file read as an object with required fields, with errors a person can act on."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


def object_line(text: str, required: Sequence[str], expected: str = "expected a JSON object") -> dict[str, Any]:
    """The line's object; ValueError naming what is wrong (bad JSON and where, not an object, missing fields)."""
    try:
        item = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"bad JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(item, dict):
        raise ValueError(expected)
    missing = [name for name in required if name not in item]
    if missing:
        raise ValueError(f"missing field(s): {', '.join(missing)}")
    return item
