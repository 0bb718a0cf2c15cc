"""Line diffs between revisions, as data: templates render (and escape) every line."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add" | "del" | "ctx" | "hunk"
    text: str


def diff_lines(old: str, new: str, *, context: int = 3) -> list[DiffLine]:
    lines: list[DiffLine] = []
    for raw in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=context):
        if raw.startswith(("---", "+++")):
            continue
        if raw.startswith("@@"):
            lines.append(DiffLine("hunk", raw))
        elif raw.startswith("+"):
            lines.append(DiffLine("add", raw[1:]))
        elif raw.startswith("-"):
            lines.append(DiffLine("del", raw[1:]))
        else:
            lines.append(DiffLine("ctx", raw[1:]))
    return lines
