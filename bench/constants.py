"""The numbers typed into the product code: module-level numeric constants of the packages whose
numbers change what users see (search, summaries, statements), read from the source with ``ast``.

A constant is an upper-case module-level name bound to a number, or to a tuple, list or set of
numbers. Each is listed with the comment that says why (its line, or the comment lines just above),
whether that comment itself carries a number, and its sort, read from the value: a float (other
than a time in seconds, a name ending in ``_S``) is a weight, share or threshold — it ranks or
decides; a whole number is a count, limit, size or time. The fitted store's numbers are data, not
source, so they are not counted here.

Every number the product code chooses lives in one typed module, ``config/numbers.py``: the main
count (``constants``) is of those left beside their code in the packages above (none is the goal),
and the module's own are counted apart (``in_numbers_module``), with those that lack a why. The
numbers chosen by hand that change what readers see are the ones its ``CHOSEN_BY_HAND`` names: they
are listed apart (``hand_set``), each with its why.

Numbers typed beside their code escape that count: inside a function (its body, its parameters'
defaults, its decorators), a class body (a form field's length) or a module-level expression that
is no constant (a task's options). Each number of those packages outside a module-level constant is
listed too (``inline_listed``, with its file, line, value and code), 0, 1, 2 and -1 aside. Those of
the kinds below are not choices and stay beside their code; they are counted apart
(``inline_allowed``, per kind, listed in ``inline_allowed_listed``), and the goal is that the others
(``inline_numbers``) are none:

- ``rounding``: the digits a figure is rounded to (``round(x, 4)``, ``.round(6)``);
- ``http_status``: an HTTP status code, on a line that sets or returns a status;
- ``index``: a position in a row or a sequence (``row[3]``, ``r[3 + i]``), not a slice's bound;
- ``hash_prefix``: how much of a hash an identifier keeps (``hexdigest()[:16]``, ``content_hash[:12]``);
- ``epsilon``: a tolerance of at most ``EPSILON`` that guards a division or a float comparison;
- ``unit``: a unit conversion: 1000 (seconds to milliseconds, beside a name in ``_ms``), 100 (a
  share to a percentage), 8 (bits in a byte, beside a bitmap);
- ``log_message``: how much of a value a log line quotes;
- ``overflow_guard``: the bound that keeps ``exp`` from overflowing;
- ``schema``: a number of a ``models.py`` (index parameters, admin labels): the schema, read with
  the migrations;
- ``definition``: part of what the code computes, named one by one in ``DEFINITIONS`` with why.

Every comment of the product packages (those above, and core, handbook, api, and config/numbers.py)
that holds a digit is listed too, and counted apart when it reads like a measurement (a number with a
unit of time, size or speed, a percentage, a ranking metric): figures belong in bench/results and the
docs, not in code. Docstring lines that read like a figure are listed and counted the same way.

    .venv/bin/python -m bench.constants   # writes bench/results/constants.json
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("search", "summaries", "statements")
PRODUCT = (*PACKAGES, "core", "handbook", "api")
OUT = ROOT / "bench" / "results" / "constants.json"
NUMBERS = ROOT / "config" / "numbers.py"
_NAME = re.compile(r"_?[A-Z][A-Z0-9_]*$")
_DIGIT = re.compile(r"\d")
_PRAGMA = re.compile(r"#\s*(noqa|type:\s*ignore|pragma)\b")
EPSILON = 1e-6
_TRIVIAL = {0, 1, 2}  # -1 is the unary minus of 1
_LOG_LEVELS = {"debug", "info", "warning", "error", "exception", "critical"}
# Numbers that are part of what their code computes, not a choice: (file, value) -> why.
DEFINITIONS = {
    ("search/lexicon/word_shape.py", 3): "letter triples: the unit a word's shape is counted in",
    ("search/lexicon/word_vectors.py", 3): "the three fields of a vocabulary entry row",
    ("statements/answer_units.py", 3): "markdown-it writes a heading as three tokens",
    ("search/management/commands/search.py", 24): "a printed column's width in the search command",
    ("search/management/commands/search.py", 48): "a printed column's width in the search command",
}
_FIGURE = re.compile(
    r"\d\s*(ms|µs|s|seconds?|minutes?|%|kB|KB|MB|GB|x|×)(?![\w])|\d\s*(->|→)\s*~?\d|nDCG|recall@|MRR|p50|p95|p99",
    re.IGNORECASE,
)


def _number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _number(node.operand)
    if isinstance(node, ast.BinOp):  # 60 * 60, 1 / 3
        return _number(node.left) and _number(node.right)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_number(e) for e in node.elts)
    return False


def _sort(name: str, value: ast.expr) -> str:
    floats = [n for n in ast.walk(value) if isinstance(n, ast.Constant) and isinstance(n.value, float)]
    return "weight" if floats and not name.endswith("_S") else "count"


def _why(lines: list[str], node: ast.stmt) -> str:
    """The comment on the constant's line, else the comment lines directly above it."""
    own = lines[node.lineno - 1]
    if "#" in own:
        return own.split("#", 1)[1].strip()
    above: list[str] = []
    line = node.lineno - 2
    while line >= 0 and lines[line].strip().startswith("#"):
        above.insert(0, lines[line].strip().lstrip("#").strip())
        line -= 1
    return " ".join(above)


def constants(path: Path) -> list[dict[str, Any]]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name) and _NAME.match(t.id)]
        if not names or not _number(value):
            continue
        why = _why(lines, node)
        for name in names:
            found.append(
                {
                    "file": str(path.relative_to(ROOT)),
                    "line": node.lineno,
                    "name": name,
                    "value": ast.unparse(value),
                    "sort": _sort(name, value),
                    "why": why,
                    "number_in_comment": bool(_DIGIT.search(why)),
                }
            )
    return found


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _call_name(node: ast.AST) -> str:
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _is_constant(node: ast.stmt) -> bool:
    """Whether a module-level statement binds an upper-case name to a number (what ``constants`` lists)."""
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets, value = [node.target], node.value
    else:
        return False
    return any(isinstance(t, ast.Name) and _NAME.match(t.id) for t in targets) and _number(value)


def _kind(node: ast.Constant, chain: list[ast.AST], statement: str, file: str) -> str:
    """The allowed kind of the number ``node`` (``chain``: its ancestors, nearest first), or ""."""
    value = node.value
    if (file, value) in DEFINITIONS:
        return "definition"
    if Path(file).name == "models.py":
        return "schema"
    if isinstance(value, float) and abs(value) <= EPSILON:
        return "epsilon"
    parent = chain[0]
    if _call_name(parent) == "round" and isinstance(parent, ast.Call):
        method = isinstance(parent.func, ast.Attribute)  # array.round(6), np.round(x, 6)
        module = method and isinstance(parent.func.value, ast.Name) and parent.func.value.id in {"np", "numpy"}
        digits = parent.args[1:] if (not method or module) else parent.args
        if node in digits or any(k.arg in {"ndigits", "decimals"} and k.value is node for k in parent.keywords):
            return "rounding"
    # Up through the arithmetic around it (r[3 + i], text[: n * 4]) to what holds the expression.
    depth = 0
    while depth < len(chain) - 1 and isinstance(chain[depth], ast.BinOp | ast.UnaryOp):
        depth += 1
    inner, holder = (chain[depth - 1] if depth else node), chain[depth]
    if isinstance(holder, ast.Subscript) and holder.slice is inner:
        return "index"
    sliced = chain[depth + 1] if isinstance(holder, ast.Slice) else None
    if isinstance(sliced, ast.Subscript) and "hash" in ast.unparse(sliced.value):
        return "hash_prefix"
    if isinstance(value, int) and 100 <= value <= 599 and "status" in statement:
        return "http_status"
    product = isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Mult | ast.FloorDiv)
    if value == 1000 and product and "_ms" in statement:
        return "unit"
    if value == 100 and product:
        return "unit"
    if value == 8 and ("bitmap" in statement or "uint8" in statement):
        return "unit"
    for above in chain:
        name = _call_name(above)
        if name == "exp":
            return "overflow_guard"
        if name in _LOG_LEVELS and isinstance(above, ast.Call) and "logger" in ast.unparse(above.func):
            return "log_message"
    return ""


def inline_numbers(path: Path, root: Path = ROOT) -> list[dict[str, Any]]:
    """The numbers of ``path`` typed beside their code (not a module-level constant), 0, 1, 2 and -1
    aside, each with its allowed kind ("" when it is a choice that belongs in config/numbers.py)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    parents = _parents(tree)
    file = str(path.relative_to(root))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
            continue
        if not isinstance(node.value, int | float) or node.value in _TRIVIAL:
            continue
        chain: list[ast.AST] = []
        above = parents.get(id(node))
        while above is not None:
            chain.append(above)
            above = parents.get(id(above))
        statements = [a for a in chain if isinstance(a, ast.stmt)]
        if _is_constant(statements[-1]):
            continue
        statement = statements[0]
        found.append(
            {
                "file": file,
                "line": node.lineno,
                "value": node.value,
                "kind": _kind(node, chain, ast.unparse(statement), file),
                "code": lines[node.lineno - 1].strip(),
            }
        )
    return found


def numbered_comments(path: Path) -> list[dict[str, Any]]:
    """Comments of ``path`` that hold a digit (linter pragmas aside), and whether one reads like a figure."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type != tokenize.COMMENT or _PRAGMA.match(token.string) or not _DIGIT.search(token.string):
            continue
        text = token.string.lstrip("#").strip()
        found.append(
            {
                "file": str(path.relative_to(ROOT)),
                "line": token.start[0],
                "comment": text,
                "figure": bool(_FIGURE.search(text)),
            }
        )
    return found


def figure_docstrings(path: Path) -> list[dict[str, Any]]:
    """Lines of the docstrings of ``path`` (module, class, function) that read like a figure: a
    docstring is a comment too, and its figures go stale the same way."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for line in (ast.get_docstring(node, clean=False) or "").splitlines():
            if _FIGURE.search(line):
                found.append({"file": str(path.relative_to(ROOT)), "docstring": line.strip()})
    return found


def _sources(packages: tuple[str, ...]) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts)


def chosen_by_hand(path: Path) -> list[str]:
    """The names ``CHOSEN_BY_HAND`` of ``path`` holds, read from the source."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        named = isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
        if named and node.target.id == "CHOSEN_BY_HAND" and node.value is not None:
            return list(ast.literal_eval(node.value))
    return []


def main() -> dict[str, Any]:
    listed = [c for p in _sources(PACKAGES) for c in constants(p)]
    inline = [n for p in _sources(PACKAGES) for n in inline_numbers(p)]
    inline_choices = [n for n in inline if not n["kind"]]
    inline_allowed = [n for n in inline if n["kind"]]
    commented = [*_sources(PRODUCT), NUMBERS]
    comments = [c for p in commented for c in numbered_comments(p)]
    docstrings = [d for p in commented for d in figure_docstrings(p)]
    per_package = Counter(c["file"].split("/")[0] for c in listed)
    in_numbers = constants(NUMBERS)
    by_hand = chosen_by_hand(NUMBERS)
    hand_set = [c for c in in_numbers if c["name"] in by_hand]
    # Weights of the other product packages: each is a presentation rule or a cost bound.
    other = [
        c
        for p in _sources(("core", "handbook", "api", "accounts", "comments"))
        for c in constants(p)
        if c["sort"] == "weight"
    ]
    result = {
        "command": ".venv/bin/python -m bench.constants",
        "packages": list(PACKAGES),
        "constants": len(listed),
        "per_package": dict(sorted(per_package.items())),
        "per_sort": dict(sorted(Counter(c["sort"] for c in listed).items())),
        "without_why": sum(not c["why"] for c in listed),
        "number_in_comment": sum(c["number_in_comment"] for c in listed),
        "files": len({c["file"] for c in listed}),
        "numbers_module": str(NUMBERS.relative_to(ROOT)),
        "in_numbers_module": len(in_numbers),
        "in_numbers_module_per_sort": dict(sorted(Counter(c["sort"] for c in in_numbers).items())),
        "in_numbers_module_without_why": sum(not c["why"] for c in in_numbers),
        "in_numbers_module_number_in_comment": sum(c["number_in_comment"] for c in in_numbers),
        "hand_set": len(hand_set),
        "hand_set_without_why": sum(not c["why"] for c in hand_set),
        "hand_set_names": [c["name"] for c in hand_set],
        "hand_set_named_but_missing": sorted(set(by_hand) - {c["name"] for c in hand_set}),
        "weights_in_other_packages": [f"{c['file']}:{c['name']}" for c in other],
        "inline_numbers": len(inline_choices),
        "inline_numbers_per_package": dict(sorted(Counter(n["file"].split("/")[0] for n in inline_choices).items())),
        "inline_allowed": len(inline_allowed),
        "inline_allowed_per_kind": dict(sorted(Counter(n["kind"] for n in inline_allowed).items())),
        "inline_definitions": {f"{file}={value}": why for (file, value), why in DEFINITIONS.items()},
        "comment_packages": [*PRODUCT, str(NUMBERS.relative_to(ROOT))],
        "comments_with_number": len(comments),
        "comments_with_figure": sum(c["figure"] for c in comments),
        "docstring_lines_with_figure": len(docstrings),
        "listed": listed,
        "hand_set_listed": hand_set,
        "numbers_module_listed": in_numbers,
        "inline_listed": inline_choices,
        "inline_allowed_listed": inline_allowed,
        "numbered_comments": comments,
        "figure_docstrings": docstrings,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    summary = main()
    lists = (
        "listed",
        "hand_set_listed",
        "numbers_module_listed",
        "inline_listed",
        "inline_allowed_listed",
        "numbered_comments",
        "figure_docstrings",
    )
    print({k: v for k, v in summary.items() if k not in lists})
