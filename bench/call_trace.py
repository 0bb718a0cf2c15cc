"""How many times a search and a question cross from one of the project's modules to another.

    python -m bench.call_trace [--keep]

A small handbook (two spaces, English and French pages, one restricted page) is made in a
throw-away database of the bench instance (``call_trace``, dropped and created again each run;
``--keep`` leaves it), indexed with the local embedding model. As a reader (staff, not an
admin), three requests are traced after an untraced warm-up with other words:

- ``search_pages``: one search as the API, MCP and CLI make it;
- ``search_view``: the same search submitted in the browser (``GET /search/?q=…``);
- ``answer_question``: one question asked (extractive: no LLM configured).

Definitions. The trace is taken with ``sys.setprofile`` on the calling thread, from the moment
the traced function is entered until it returns (``SEARCH_PARALLEL_LEGS`` off, so no work
leaves the thread). A *product module* is a module of
one of the apps ``core accounts handbook statements comments summaries search api``; the *current
module* is the module of the innermost product frame on the stack (a product function called
through Django or a library still counts from the product module that called the library).

- A *crossing* is a call of a product function whose module differs from the current module
  (the first product function entered is one). Returns are not crossings: coming back to the
  caller is where the call path already was. Every crossing that runs is counted: a call in a
  loop of ten counts ten. Reading a value is not a crossing: a property, a dunder (``__bool__``,
  ``__eq__``) or a dataclass's generated ``__init__``.
- A *stop* is a distinct crossing as one reads the code: the caller's module, function and line,
  and the function called. A call site run many times is one stop. Stops are ordered by when each
  was first taken; the root's own entry is the first.
- A *return to a module already left* is a stop into a module that an earlier stop already
  entered: the path had gone on elsewhere and comes back to it. So ``returns = stops - modules``
  (``modules``: the distinct product modules the stops enter).

A *hook* is a stop whose function the product installed for Django or a library to call, and which
that library calls on the product's behalf: the frame right under it is the library's, not the
product's (the database router under every ORM query, the cache client under every ``cache.get``,
a signal receiver, a template tag). A *step* is a stop that is not a hook: the product's own code
calling its own code, the path one follows reading it. ``steps``, ``step_returns`` and
``step_modules`` count the steps alone, by the same definitions.

Written to ``bench/results/call_trace.json`` with the sequence of stops, and printed as a table.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from types import CodeType, FrameType
from typing import Any

if __package__ != "bench":
    raise SystemExit("run as: python -m bench.call_trace ...")

from bench import common  # noqa: E402

DATABASE = "call_trace"
APPS = ("core", "accounts", "handbook", "statements", "comments", "summaries", "search", "api")

SEARCH_QUERY = "working from home two days a week"
ASK_QUESTION = "How many days can I work from home?"
WARM_SEARCH = "parking badges"
WARM_QUESTION = "When are expense receipts due?"

PAGES = [
    # (space, title, body, language, restricted)
    (
        "people",
        "Remote work",
        "# Remote work\n\nEmployees may work from home two days per week once the trial period is over. "
        "Agree the days with your manager.\n\n## Equipment\n\nA laptop and a headset are lent for home work.",
        "en",
        False,
    ),
    (
        "people",
        "Télétravail",
        "# Télétravail\n\nLe télétravail est possible deux jours par semaine après la période d'essai. "
        "Les jours sont fixés avec votre responsable.",
        "fr",
        False,
    ),
    (
        "people",
        "Congés payés",
        "# Congés payés\n\nChaque salarié bénéficie de vingt-cinq jours de congés payés par an. "
        "On peut reporter cinq jours sur l'année suivante.",
        "fr",
        False,
    ),
    (
        "people",
        "Parking",
        "# Parking\n\nThe garage under building B has forty spaces. Badges open the gate from seven to eight.",
        "en",
        False,
    ),
    (
        "finance",
        "Expense reports",
        "# Expense reports\n\nSubmit receipts within thirty days. Taxi and train tickets are reimbursed "
        "when you travel for work.",
        "en",
        False,
    ),
    (
        "finance",
        "Salary bands",
        "# Salary bands\n\nEmployees who work from home receive a monthly allowance of forty euros.",
        "en",
        True,
    ),
]


@dataclass
class Trace:
    name: str
    stops: int = 0
    returns: int = 0
    modules: int = 0
    crossings: int = 0
    seconds: float = 0.0
    steps: int = 0
    step_returns: int = 0
    step_modules: int = 0
    hooks: int = 0
    path: list[str] = field(default_factory=list)


class Tracer:
    """Stops, returns and crossings of the product modules while ``root`` runs (definitions above)."""

    def __init__(self, root: CodeType) -> None:
        self.root = root
        self.depth = 0  # frames of the root on the stack (it may recurse)
        self.stack: list[FrameType | None] = []  # the innermost product frame after each frame pushed
        self.sites: dict[tuple[str, ...], bool] = {}  # the stops, in the order first taken: whether a hook
        self.crossings = 0

    @staticmethod
    def _module(frame: FrameType) -> str | None:
        module = frame.f_globals.get("__name__", "")
        return module if module.split(".", 1)[0] in APPS else None

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            if frame.f_code is self.root:
                self.depth += 1
            if not self.depth:
                return
            module = self._module(frame)
            caller = self.stack[-1] if self.stack else None
            here = self._module(caller) if caller is not None else None
            if module is not None and module != here and not _reads_a_value(frame.f_code):
                self.crossings += 1
                site = ("", "", "")
                if caller is not None:
                    site = (here or "", caller.f_code.co_qualname, str(caller.f_lineno))
                below = frame.f_back
                while below is not None and below.f_globals.get("__name__") in _TRANSPARENT:
                    below = below.f_back  # a ``with`` on a product context manager is the product's own call
                hook = caller is not None and below is not None and self._module(below) is None
                self.sites.setdefault((*site, module, frame.f_code.co_qualname), hook)
            self.stack.append(frame if module is not None else caller)
        elif event == "return" and self.depth:
            if self.stack:
                self.stack.pop()
            if frame.f_code is self.root:
                self.depth -= 1

    def result(self, name: str, seconds: float) -> Trace:
        entered = [site[3] for site in self.sites]
        stepped = [site[3] for site, hook in self.sites.items() if not hook]
        path = [
            f"{caller}.{function}:{line} -> {module}.{callee}" + (" (hook)" if hook else "")
            for (caller, function, line, module, callee), hook in self.sites.items()
        ]
        return Trace(
            name,
            len(entered),
            _returns(entered),
            len(set(entered)),
            self.crossings,
            round(seconds, 3),
            steps=len(stepped),
            step_returns=_returns(stepped),
            step_modules=len(set(stepped)),
            hooks=len(entered) - len(stepped),
            path=path,
        )


_TRANSPARENT = frozenset({"contextlib", "functools"})


def _returns(entered: list[str]) -> int:
    """Stops into a module an earlier stop already entered."""
    return sum(module in entered[:i] for i, module in enumerate(entered))


def _reads_a_value(code: CodeType) -> bool:
    """A dataclass's generated method, a dunder or a property: reading a value, not a step taken."""
    name = code.co_name
    return "__create_fn__" in code.co_qualname or (name.startswith("__") and name.endswith("__")) or code in _PROPERTIES


_PROPERTIES: set[CodeType] = set()


def _collect_properties() -> None:
    """The getters of every property of the product's classes (they are values, not steps)."""
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".", 1)[0] not in APPS:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == name:
                for attribute in vars(value).values():
                    getter = getattr(attribute, "fget", None) if isinstance(attribute, property) else None
                    if getter is not None and hasattr(getter, "__code__"):
                        _PROPERTIES.add(getter.__code__)


def traced(name: str, root: Callable[..., Any], call: Callable[[], Any]) -> Trace:
    tracer = Tracer(inspect.unwrap(root).__code__)
    started = time.perf_counter()
    sys.setprofile(tracer)
    try:
        call()
    finally:
        sys.setprofile(None)
    return tracer.result(name, time.perf_counter() - started)


def _drop_database() -> None:
    import psycopg
    from psycopg import sql

    admin = common.database_url("postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(DATABASE)))


def seed() -> Any:
    """The handbook above, indexed, and its reader."""
    from django.contrib.auth.models import Group

    from config.celery import app
    from handbook.services import page_create, space_create

    staff, finance = (Group.objects.get_or_create(name=name)[0] for name in ("staff", "finance"))
    spaces = {
        slug: space_create(slug=slug, title=slug.title(), viewer_groups=[staff], editor_groups=[staff])
        for slug in ("people", "finance")
    }
    app.conf.task_always_eager = True  # publishing indexes the page here, as a worker would
    try:
        for space, title, body, language, restricted in PAGES:
            restricted_to = [finance] if restricted else []
            page_create(space=spaces[space], title=title, body=body, language=language, restricted_to=restricted_to)
    finally:
        app.conf.task_always_eager = False
    common.refresh_index_statistics()
    return common.bench_user("reader", ["staff"])


def _forget_cached() -> None:
    """Cold caches: an answer or a list a run before left under this database's key prefix is dropped."""
    from django.core.cache import cache

    client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]
    for key in client.scan_iter(match=f"{cache.key_prefix}:*"):  # type: ignore[attr-defined]
        client.delete(key)


def run() -> list[Trace]:
    from django.test import Client

    from search.ask.answers import answer_question
    from search.selectors import search_pages
    from search.views import search_view

    reader = seed()
    client = Client()
    client.force_login(reader)

    def search(query: str) -> None:
        search_pages(user=reader, query=query)

    def view(query: str) -> None:
        assert client.get("/search/", {"q": query}).status_code == 200

    def ask(question: str) -> None:
        answer_question(user=reader, question=question)

    search(WARM_SEARCH)
    view(WARM_SEARCH)
    ask(WARM_QUESTION)
    _collect_properties()
    return [
        traced("search_pages", search_pages, lambda: search(SEARCH_QUERY)),
        traced("search_view", search_view, lambda: view(SEARCH_QUERY)),
        traced("answer_question", answer_question, lambda: ask(ASK_QUESTION)),
    ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.call_trace", description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="leave the throw-away database behind")
    args = parser.parse_args(argv)
    os.environ["SEARCH_PARALLEL_LEGS"] = "false"  # every list on the traced thread
    common._ensure_data_dir()
    _drop_database()
    common.setup(database=DATABASE)
    _forget_cached()
    try:
        traces = run()
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            _drop_database()
    common.RESULTS.mkdir(parents=True, exist_ok=True)
    out = common.RESULTS / "call_trace.json"
    out.write_text(json.dumps([asdict(t) for t in traces], indent=2) + "\n", encoding="utf-8")
    header = ("request", "stops", "returns", "modules", "steps", "step ret.", "hooks", "crossings", "seconds")
    print("{:<18} {:>6} {:>8} {:>8} {:>6} {:>9} {:>6} {:>10} {:>8}".format(*header))
    for t in traces:
        row = (t.name, t.stops, t.returns, t.modules, t.steps, t.step_returns, t.hooks, t.crossings, t.seconds)
        print("{:<18} {:>6} {:>8} {:>8} {:>6} {:>9} {:>6} {:>10} {:>8.3f}".format(*row))
    print(f"(written to {out.relative_to(common.ROOT)})")


if __name__ == "__main__":
    main()
