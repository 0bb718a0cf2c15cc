"""Diffs between two texts, as data: templates render (and escape) every piece.

``diff_lines`` is the unified form (one column); ``side_by_side`` pairs the old and the new text
line by line, numbers them, marks the words that changed inside a changed line, and folds long
unchanged stretches into one "N unchanged lines" row, so an editor reads a change, not hunks.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import NamedTuple


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


class Piece(NamedTuple):
    """Part of a line; ``changed`` pieces are the words that differ from the other side."""

    text: str
    changed: bool = False


class Cell(NamedTuple):
    """One side of a row: its line number (None where that side has no line) and its pieces."""

    number: int | None = None
    kind: str = "empty"  # "ctx" | "add" | "del" | "empty"
    pieces: tuple[Piece, ...] = ()


_EMPTY = Cell()


class Row(NamedTuple):
    kind: str  # "ctx" | "change" | "gap"
    old: Cell = _EMPTY
    new: Cell = _EMPTY
    skipped: int = 0  # for a gap: how many unchanged lines it stands for


@dataclass(frozen=True)
class SideBySide:
    rows: tuple[Row, ...]
    added: int
    removed: int
    rows_left_out: int = 0  # rows past MAX_ROWS, not shown

    def __bool__(self) -> bool:
        return self.added > 0 or self.removed > 0


# A page rewritten from end to end would render tens of thousands of rows: past this many the
# diff says how many it leaves out, and the full texts are a click away.
MAX_ROWS = 3000
_WORDS = re.compile(r"\s+|\w+|[^\w\s]")
# Two lines that share less than this are a line removed and another added, not one line edited:
# marking words inside them would highlight nearly everything.
_SAME_LINE = 0.4
# Matching is quadratic in the worst case: words are marked only in lines up to this long (a page
# may hold a single line of hundreds of kilobytes; it is then shown whole, as removed and added).
_WORD_DIFF_MAX_CHARS = 2000
# ... and in one diff only until this many characters were compared: past it, changed lines are
# shown whole (a rewrite of a long page would otherwise cost seconds of CPU per view).
_WORD_DIFF_BUDGET = 40_000


def _word_pieces(old: str, new: str) -> tuple[tuple[Piece, ...], tuple[Piece, ...]]:
    a, b = _WORDS.findall(old), _WORDS.findall(new)
    left: list[Piece] = []
    right: list[Piece] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if i2 > i1:
            left.append(Piece("".join(a[i1:i2]), op != "equal"))
        if j2 > j1:
            right.append(Piece("".join(b[j1:j2]), op != "equal"))
    return tuple(left), tuple(right)


def _whole(text: str) -> tuple[Piece, ...]:
    return (Piece(text),) if text else ()


def _similar(left: str, right: str) -> bool:
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    # The cheap upper bounds first: most unrelated lines stop there.
    return all(ratio() >= _SAME_LINE for ratio in (matcher.real_quick_ratio, matcher.quick_ratio, matcher.ratio))


def _changed_rows(old: list[str], new: list[str], i: int, j: int, budget: list[int]) -> list[Row]:
    """A replaced block: lines side by side while both sides have one; words marked in lines
    close enough to be one line edited, while ``budget`` (characters left to compare) lasts."""
    rows = []
    for k in range(max(len(old), len(new))):
        left = old[k] if k < len(old) else None
        right = new[k] if k < len(new) else None
        if left is not None and right is not None:
            size = len(left) + len(right) + 50  # a comparison costs something however short the lines
            similar = size <= min(_WORD_DIFF_MAX_CHARS, budget[0]) and _similar(left, right)
            budget[0] -= size
            lp, rp = _word_pieces(left, right) if similar else ((Piece(left, True),), (Piece(right, True),))
            rows.append(Row("change", Cell(i + k + 1, "del", lp), Cell(j + k + 1, "add", rp)))
        elif left is not None:
            rows.append(Row("change", Cell(i + k + 1, "del", (Piece(left, True),) if left else ())))
        elif right is not None:
            rows.append(Row("change", new=Cell(j + k + 1, "add", (Piece(right, True),) if right else ())))
    return rows


def side_by_side(old: str, new: str, *, context: int = 3) -> SideBySide:
    """The two texts line by line; unchanged stretches longer than twice ``context`` are folded."""
    a, b = old.splitlines(), new.splitlines()
    rows: list[Row] = []
    added = removed = 0
    budget = [_WORD_DIFF_BUDGET]
    opcodes = difflib.SequenceMatcher(None, a, b).get_opcodes()
    for index, (op, i1, i2, j1, j2) in enumerate(opcodes):
        if op == "equal":
            keep_head = context if index > 0 else 0
            keep_tail = context if index < len(opcodes) - 1 else 0
            length = i2 - i1
            if length > keep_head + keep_tail + 1:
                shown = list(range(keep_head)) + [None] + list(range(length - keep_tail, length))
            else:
                shown = list(range(length))
            for k in shown:
                if k is None:
                    rows.append(Row("gap", skipped=length - keep_head - keep_tail))
                    continue
                text = a[i1 + k]
                rows.append(Row("ctx", Cell(i1 + k + 1, "ctx", _whole(text)), Cell(j1 + k + 1, "ctx", _whole(text))))
            continue
        removed += i2 - i1
        added += j2 - j1
        rows.extend(_changed_rows(a[i1:i2], b[j1:j2], i1, j1, budget))
    if not added and not removed:
        rows = []
    return SideBySide(tuple(rows[:MAX_ROWS]), added, removed, max(0, len(rows) - MAX_ROWS))
