"""The settings table of the documentation, generated from the code that reads the environment.

Every environment variable the handbook reads is read in ``config/`` or an app, through the typed
helpers of ``config/env.py`` (``env_int("NAME", default, minimum=…)``…) or ``os.environ.get``. This
module finds those reads in the source (``ast``: nothing is imported or run), takes each variable's
kind, bounds and default from them, and its description from ``docs/admin/settings.yml``, the one
home of the descriptions. It refuses a variable the code reads that the file does not describe, and
one the file describes that the code no longer reads.

    python scripts/settings_table.py           # print the table (Markdown)
    python scripts/settings_table.py --check   # only check; exit 1 with the reasons

``docs/hooks.py`` puts the table into the "Settings" page at build time (``make docs``), and
``tests/test_settings_documented.py`` runs the check with ``make test``.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DESCRIPTIONS = ROOT / "docs" / "admin" / "settings.yml"
# The project package and the apps (tests, benchmarks and scripts read variables of their own).
SOURCES = ("config", "core", "accounts", "handbook", "statements", "comments", "summaries", "search", "api")
HELPERS = {"env_str", "env_bool", "env_int", "env_float", "env_list", "env_url"}


class SettingsDocError(Exception):
    """The descriptions and the code disagree; the message lists every disagreement."""


@dataclass
class Read:
    """One variable as the code reads it: the first typed read found wins over ``os.environ``."""

    name: str
    helper: str  # env_int…, or "os.environ"
    default: ast.expr | None
    bounds: dict[str, ast.expr] = field(default_factory=dict)
    places: list[str] = field(default_factory=list)


def _source_files() -> list[Path]:
    # config/settings.py first: its typed reads are the declarations.
    files = [ROOT / "config" / "settings.py"]
    for package in SOURCES:
        files += sorted(p for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts and p not in files)
    return files


def _environ_get(node: ast.Call) -> bool:
    """``os.environ.get(…)`` or ``os.getenv(…)``; writes (``setdefault``) are not reads."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return False
    owner = ast.unparse(func.value)
    return (owner == "os.environ" and func.attr == "get") or (owner == "os" and func.attr == "getenv")


def code_reads() -> dict[str, Read]:
    """Every variable read with a literal name in the project package and the apps."""
    reads: dict[str, Read] = {}
    for path in _source_files():
        tree = ast.parse(path.read_text(), filename=str(path))
        place = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            found: Read | None = None
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                name = node.args[0].value
                if not isinstance(name, str):
                    continue
                if isinstance(node.func, ast.Name) and node.func.id in HELPERS:
                    keywords = {k.arg: k.value for k in node.keywords if k.arg}
                    default = node.args[1] if len(node.args) > 1 else keywords.get("default")
                    bounds = {k: v for k, v in keywords.items() if k in ("minimum", "maximum", "schemes")}
                    found = Read(name, node.func.id, default, bounds)
                elif _environ_get(node):
                    found = Read(name, "os.environ", node.args[1] if len(node.args) > 1 else None)
            elif (
                isinstance(node, ast.Subscript)
                and ast.unparse(node.value) == "os.environ"
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
                and isinstance(node.ctx, ast.Load)
            ):
                found = Read(node.slice.value, "os.environ", None)
            if found is None:
                continue
            known = reads.get(found.name)
            if known is None or (known.helper == "os.environ" and found.helper != "os.environ"):
                found.places = [*(known.places if known else []), place]
                reads[found.name] = found
            elif place not in known.places:
                known.places.append(place)
    # NAME_FILE is how env_str reads NAME from a file: it is NAME's, not a variable of its own.
    return {name: read for name, read in reads.items() if not (name.endswith("_FILE") and name[:-5] in reads)}


def descriptions() -> list[dict[str, Any]]:
    """The sections of ``docs/admin/settings.yml``: ``[{"title", "settings": {NAME: {...}}}]``."""
    data = yaml.safe_load(DESCRIPTIONS.read_text())
    return list(data["sections"])


def _literal(expr: ast.expr | None, helper: str) -> str | None:
    """The default as a reader of the table writes it, or None when the code computes it."""
    if expr is None:
        return "empty" if helper in ("env_str", "env_url", "os.environ") else None
    try:
        value = ast.literal_eval(expr)
    except ValueError:
        return None
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float):
        return f"`{value:g}`"
    if isinstance(value, list | tuple):
        return f"`{','.join(map(str, value))}`" if value else "empty"
    if value == "":
        return "empty"
    return f"`{value}`"


def _kind(read: Read) -> str:
    bounds = {k: ast.unparse(v) for k, v in read.bounds.items() if k != "schemes"}
    low, high = bounds.get("minimum"), bounds.get("maximum")
    if read.helper in ("env_int", "env_float"):
        kind = "integer" if read.helper == "env_int" else "number"
        if low and high:
            return f"{kind}, {low}–{high}"
        if low:
            return f"{kind} ≥ {low}"
        return kind
    if read.helper == "env_url":
        schemes = ast.literal_eval(read.bounds["schemes"]) if "schemes" in read.bounds else ()
        return "URL (" + ", ".join(f"`{s}://`" for s in schemes) + ")" if schemes else "URL"
    return {"env_bool": "boolean", "env_list": "comma-separated list"}.get(read.helper, "text")


def check() -> list[str]:
    """What is wrong between the code and the descriptions (nothing: an empty list)."""
    reads = code_reads()
    described: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for section in descriptions():
        for name, entry in section["settings"].items():
            if name in described:
                problems.append(f"{name} is described twice in {DESCRIPTIONS.relative_to(ROOT)}")
            described[name] = entry or {}
    for name in sorted(set(reads) - set(described)):
        problems.append(
            f"{name} is read by {', '.join(reads[name].places)} but not described in {DESCRIPTIONS.relative_to(ROOT)}"
        )
    for name in sorted(set(described) - set(reads)):
        problems.append(f"{name} is described in {DESCRIPTIONS.relative_to(ROOT)} but no code reads it")
    for name in sorted(set(described) & set(reads)):
        entry = described[name]
        if not str(entry.get("text", "")).strip():
            problems.append(f"{name} has no text in {DESCRIPTIONS.relative_to(ROOT)}")
        if "default" not in entry and _literal(reads[name].default, reads[name].helper) is None:
            problems.append(
                f"{name}'s default is computed in {reads[name].places[0]}: "
                f"give it as `default:` in {DESCRIPTIONS.relative_to(ROOT)}"
            )
    return problems


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render() -> str:
    """The Markdown table, one per section; raises SettingsDocError when ``check()`` finds anything."""
    problems = check()
    if problems:
        raise SettingsDocError("settings documentation:\n  " + "\n  ".join(problems))
    reads = code_reads()
    out: list[str] = []
    for section in descriptions():
        out += [f"### {section['title']}", "", "| variable | default | kind | meaning |", "|---|---|---|---|"]
        for name, entry in section["settings"].items():
            read = reads[name]
            default = str(entry.get("default") or _literal(read.default, read.helper))
            kind = str(entry.get("kind") or _kind(read))
            out.append(f"| `{name}` | {_cell(default)} | {_cell(kind)} | {_cell(str(entry['text']))} |")
        out.append("")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if "--check" in argv:
        problems = check()
        print("\n".join(problems) or f"{len(code_reads())} variables, each described.")
        return 1 if problems else 0
    try:
        print(render())
    except SettingsDocError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
