"""The shape of the code: apps depend one way, no module imports itself back, modules stay small.

Imports are read from the source (``ast``), at module level and inside functions alike;
those under ``if TYPE_CHECKING:`` are annotations, not imports, and are left out.
Services name Celery tasks (``core.queues.enqueue``) instead of importing them, so
``services`` -> ``tasks`` edges do not exist and ``tasks`` -> ``services`` do.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Lower layers first: each app may import only the ones before it. The project package (settings,
# root URLs, the Celery app, WSGI) comes last: it wires the apps up, and no app imports it, but for
# the modules below.
LAYERS = ("core", "accounts", "handbook", "statements", "comments", "summaries", "search", "api", "config")
PROJECT = "config"
# Modules of the project package every layer may read: data only, importing nothing of the project.
READ_BY_EVERY_LAYER = {
    "config.numbers": "the one typed module of the numbers the code chooses, each with why",
}
MAX_LINES = 400
# Modules allowed past MAX_LINES, each with why: a list of data, not code to split up.
LONG_MODULES = {
    "config/numbers.py": "every number the product code chooses, one per line with its why, read in one place",
}


def _modules() -> dict[str, Path]:
    found = {}
    for layer in LAYERS:
        for path in (ROOT / layer).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if "migrations" in rel.parts:
                continue
            name = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(inner) for statement in node.body for inner in ast.walk(statement)}
    return skipped


def import_graph() -> dict[str, set[str]]:
    modules = _modules()

    def owner(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        skipped = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            for target in targets:
                found = owner(target)
                if found and found != name:
                    graph[name].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """``module -> target`` for each import of a layer above the module's own."""
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if LAYERS.index(target.split(".")[0]) > LAYERS.index(module.split(".")[0]) and target not in READ_BY_EVERY_LAYER
    )


def test_apps_depend_one_way():
    wrong = upward_imports(import_graph())
    assert wrong == [], "an app imports one above it:\n" + "\n".join(wrong)


def test_the_project_package_holds_the_wiring():
    """Settings, root URLs, the Celery app and WSGI live in the project package, not in an app."""
    from django.conf import settings

    assert f"{PROJECT}.urls" == settings.ROOT_URLCONF
    assert f"{PROJECT}.wsgi.application" == settings.WSGI_APPLICATION
    wiring = {"settings.py", "celery.py", "wsgi.py", "asgi.py"}  # apps keep their own urls.py
    apps = [layer for layer in LAYERS if layer != PROJECT]
    misplaced = sorted(str(p.relative_to(ROOT)) for app in apps for p in (ROOT / app).glob("*.py") if p.name in wiring)
    assert misplaced == []


def test_an_app_importing_the_project_package_is_upward():
    """The check above sees config as the top layer: an app importing it is flagged."""
    graph = {"handbook.views": {"config.settings"}, "config.urls": {"handbook.urls", "api.urls"}}
    assert upward_imports(graph) == ["handbook.views -> config.settings"]


def test_the_modules_every_layer_reads_import_nothing_of_the_project():
    """A module any layer may import stays a leaf: were it to import an app, that app's layer would be
    read from below it."""
    graph = import_graph()
    assert {module: sorted(graph.get(module, ())) for module in READ_BY_EVERY_LAYER} == {
        module: [] for module in READ_BY_EVERY_LAYER
    }


def test_an_app_reading_the_numbers_module_is_not_upward():
    """The exception above is for those modules alone: the settings stay above every app."""
    graph = {"core.text": {"config.numbers"}, "handbook.views": {"config.settings"}}
    assert upward_imports(graph) == ["handbook.views -> config.settings"]


def test_no_module_imports_itself_back():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_cycles():
    """The check above can fail: a circle of three and a pair are found, a chain is not."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d"}, "f": {"g"}}
    assert sorted(cycles(graph)) == [["a", "b", "c"], ["d", "e"]]


# Inside an app, each subpackage is a room; top-level modules named in the app's order are rooms of
# their own, and the other top-level modules are one room, TOP. A room imports only rooms before it
# in the app's order. In search, TOP is the entry points (views, services, selectors, tasks, admin,
# urls); in handbook, the models and the helpers they use (markdown, permissions, page_work, …).
TOP = "(top level)"
ROOMS = {
    "search": (
        "models",  # the tables (and their migrations, which the graph leaves out)
        "embedding",  # the embedders, which model serves, fixed sentence sets and their vectors
        "statistics",  # what ranking counts per readership scope
        "lexicon",  # the word-translation vocabulary: frequent words per language, their vectors
        "indexing",  # chunks, their vectors, answer-unit vectors
        "decisions",  # fitted policies: query, answer, same question
        "retrieval",  # the query path, from query to readable hits
        "verified",  # verified answers
        "ask",  # the Ask box
        "calibration",  # fits the decisions by running retrieval and Ask
        "insights",  # what people look for and the handbook fails to answer
        "impact",  # before publishing, the answers a draft changes
        TOP,
        "management",
        "templatetags",
    ),
    "handbook": (
        TOP,  # the models and the helpers they use
        "forms",
        "lookups",  # a page or space by address, with the reader's rights
        "page_templates",
        "page_views",
        "selectors",
        "services",
        "importing",
        "attachments",
        "review",  # review dates and owners
        "approvals",
        "markdown_import",
        "translations",
        "views",
        "management",
        "templatetags",
        "admin",
        "apps",
        "review_digest",  # the owners' e-mail, from review and approvals
        "tasks",
        "urls",
    ),
}


def rooms_of(graph: dict[str, set[str]], app: str, named: tuple[str, ...] = ()) -> Callable[[str], str | None]:
    """The room of each module of ``app`` in ``graph``; None for the app package itself and other apps
    (``from search import x`` names the package only on the way to ``x``)."""
    every = {*graph, *(t for ts in graph.values() for t in ts)}
    packages = {m.split(".")[1] for m in every if m.startswith(f"{app}.") and m.count(".") >= 2}

    def room(module: str) -> str | None:
        parts = module.split(".")
        if parts[0] != app or len(parts) == 1:
            return None
        return parts[1] if parts[1] in packages or parts[1] in named else TOP

    return room


def room_edges(graph: dict[str, set[str]], app: str, named: tuple[str, ...] = ()) -> list[tuple[str, str, str, str]]:
    """(room, room it imports, module, module it imports) for each import from one room of ``app`` to another."""
    room = rooms_of(graph, app, named)
    return [
        (here, there, module, target)
        for module, targets in sorted(graph.items())
        if (here := room(module)) is not None
        for target in sorted(targets)
        if (there := room(target)) not in (None, here)
    ]


def room_graph(graph: dict[str, set[str]], app: str, named: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """``graph`` collapsed to the rooms of ``app``."""
    room = rooms_of(graph, app, named)
    rooms: dict[str, set[str]] = {r: set() for module in graph if (r := room(module)) is not None}
    for here, there, _module, _target in room_edges(graph, app, named):
        rooms[here].add(there)
    return rooms


@pytest.mark.parametrize("app", sorted(ROOMS))
def test_rooms_inside_an_app_depend_one_way(app):
    found = cycles(room_graph(import_graph(), app, ROOMS.get(app, ())))
    assert found == [], f"rooms of {app} import each other back:\n" + "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize("app", sorted(ROOMS))
def test_each_room_imports_only_rooms_before_it(app):
    order = ROOMS[app]
    graph = import_graph()
    unplaced = sorted(set(room_graph(graph, app, order)) - set(order))
    assert unplaced == [], f"place these rooms of {app} in ROOMS[{app!r}]: {unplaced}"
    wrong = [
        f"{module} -> {target} ({here} -> {there})"
        for here, there, module, target in room_edges(graph, app, order)
        if order.index(there) > order.index(here)
    ]
    assert wrong == [], f"a room of {app} imports one after it:\n" + "\n".join(wrong)


def test_the_room_collapse_finds_a_circle_between_rooms():
    """Modules without a circle among them still make one between their rooms; the app package,
    other apps and a module's own room are no edge."""
    graph = {
        "app.low.a": {"app.high.b", "core.x", "app"},
        "app.high.b": {"app.high.c"},
        "app.high.c": {"app.low.d"},
        "app.views": {"app.high.b", "app.models"},
        "app.models": set(),
    }
    assert cycles(graph) == []
    rooms = room_graph(graph, "app", ("models",))
    assert rooms == {"low": {"high"}, "high": {"low"}, TOP: {"high", "models"}, "models": set()}
    assert cycles(rooms) == [["high", "low"]]


def test_handbook_knows_nothing_of_search_or_summaries():
    graph = import_graph()
    leaks = sorted(
        f"{m} -> {t}"
        for m, ts in graph.items()
        if m.startswith("handbook")
        for t in ts
        if t.startswith(("search", "summaries"))
    )
    assert leaks == []


def test_modules_stay_small():
    paths = [p for layer in (*LAYERS, "tests") for p in (ROOT / layer).rglob("*.py") if "migrations" not in p.parts]
    long = sorted(
        f"{rel}: {n}"
        for p in paths
        if (n := len(p.read_text().splitlines())) > MAX_LINES and (rel := str(p.relative_to(ROOT))) not in LONG_MODULES
    )
    assert long == [], f"modules over {MAX_LINES} lines:\n" + "\n".join(long)
    assert all((ROOT / path).exists() for path in LONG_MODULES), "an allowed long module is gone: drop it from the list"


# --- imports inside functions ------------------------------------------------------------

# Apps whose modules keep their imports at the top.
TOP_IMPORT_APPS = ("core", "accounts", "handbook", "statements", "comments", "summaries", "search", "api", "config")


def unexplained_function_imports(source: str) -> list[int]:
    """Lines of imports inside a function body with no comment on their line or the line above.

    An import that must wait (a cycle, a heavy optional library, the app registry) says why.
    Imports one under another share the comment above the first of them.
    """
    lines = source.splitlines()
    imports: dict[int, ast.stmt] = {}
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    imports[node.lineno] = node
    ends = {node.end_lineno for node in imports.values()}

    def explained(line: int) -> bool:
        if "#" in lines[line - 1]:
            return True
        if line - 1 in ends:  # directly under another import of the function: the same reason
            return explained(next(n.lineno for n in imports.values() if n.end_lineno == line - 1))
        return line > 1 and lines[line - 2].strip().startswith("#")

    return sorted(line for line in imports if not explained(line))


def test_imports_inside_functions_say_why():
    paths = [path for app in TOP_IMPORT_APPS for path in (ROOT / app).rglob("*.py") if "migrations" not in path.parts]
    unexplained = sorted(
        f"{path.relative_to(ROOT)}:{line}" for path in paths for line in unexplained_function_imports(path.read_text())
    )
    assert unexplained == [], "imports inside functions without a reason:\n" + "\n".join(unexplained)


def test_the_import_checker_flags_silent_imports():
    source = (
        "import os\n"
        "\n"
        "def silent():\n"
        "    import json\n"
        "\n"
        "def explained():\n"
        "    import csv  # lazy: only the export needs it\n"
        "    # deferred: b imports this module\n"
        "    from b import c\n"
        "    from b import d\n"
        "    x = 1\n"
        "    from e import f\n"
        "\n"
        "async def nested():\n"
        "    def inner():\n"
        "        from x import y\n"
    )
    assert unexplained_function_imports(source) == [4, 12, 16]
