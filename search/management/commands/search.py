"""Search the handbook from the command line, as a given user.

    python manage.py search "QUERY" --user USERNAME [--limit N] [--json] [--mode hybrid|keyword|vector]
    python manage.py search --batch FILE.jsonl --user USERNAME [--limit N] [--mode ...]

One query path: ``search.retrieval.pipeline.retrieve`` (the same as the web search and
Ask), so results only ever contain pages the user may read. ``--json`` prints
one object ``{"query", "results": [{"ref", "title", "anchor", "score", "space",
"language", "snippet"}]}``; ``--batch`` reads ``{"qid", "query"}`` lines and
prints one ``{"qid", "results": [{"ref", "title", "anchor", "score"}]}`` line
per query (pages best first, each page once). A bad input line is reported on
stderr with its line number and skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.numbers import SEARCH_DEFAULT_LIMIT as DEFAULT_LIMIT
from config.numbers import SEARCH_MAX_LIMIT as MAX_LIMIT
from core.jsonl import object_line
from search.hit_list import MODES, Hit, run_search, search_json
from search.retrieval.hits import Retrieval
from search.retrieval.query import QueryError, parse_query

EMPTY_QUERY = "Nothing to search for: the query has no words (letters or digits)."


def _limit(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 1 <= number <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_LIMIT}, not {number}")
    return number


class Command(BaseCommand):
    help = "Search the handbook as USER: one query (table or --json) or a --batch of JSONL queries."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("query", nargs="?", default=None, help="what to search for")
        parser.add_argument("--user", required=True, help="search as this user (only pages they may read)")
        parser.add_argument(
            "--limit",
            type=_limit,
            default=DEFAULT_LIMIT,
            help=f"pages to return (1–{MAX_LIMIT}, default {DEFAULT_LIMIT})",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
        parser.add_argument(
            "--batch",
            type=Path,
            default=None,
            help='JSONL file of {"qid", "query"} lines ("-" reads stdin); prints JSON lines',
        )
        parser.add_argument(
            "--mode",
            choices=MODES,
            default="hybrid",
            help="hybrid (default), keyword legs only, or vector legs only (incl. cross-language) — for benchmarking",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        # call_command() passes keyword options without argparse's checks: check them here too.
        try:
            limit = _limit(str(options["limit"]))
        except argparse.ArgumentTypeError as exc:
            raise CommandError(f"--limit {exc}") from None
        mode = options["mode"]
        if mode not in MODES:
            raise CommandError(f"--mode must be one of {', '.join(MODES)}, not {mode!r}")
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"no such user: {options['user']!r}")
        if options["batch"] is not None:
            if options["query"] is not None:
                raise CommandError("give either a QUERY or --batch FILE, not both")
            self._batch(Path(options["batch"]), user, limit, mode)
            return
        if options["query"] is None:
            raise CommandError('give a QUERY (python manage.py search "words" --user NAME) or --batch FILE')
        self._one(options["query"], user, limit, mode, as_json=options["json"])

    # --- one query -------------------------------------------------------------------

    def _one(self, text: str, user: Any, limit: int, mode: str, *, as_json: bool) -> None:
        try:
            parsed = parse_query(text)
        except QueryError as exc:
            raise CommandError(str(exc)) from None
        if parsed.is_empty:
            if as_json:
                self.stdout.write(json.dumps({"query": text, "results": []}, ensure_ascii=False))
                self.stderr.write(EMPTY_QUERY)
                return
            raise CommandError(EMPTY_QUERY)
        if as_json:
            out, _found = search_json(text, user, limit=limit, mode=mode)
            self.stdout.write(json.dumps(out, ensure_ascii=False))
            return
        started = time.perf_counter()
        retrieval, hits = run_search(text, user, limit=limit, mode=mode)
        elapsed_ms = (time.perf_counter() - started) * 1000
        self._table(retrieval, hits, mode, elapsed_ms)

    def _table(self, retrieval: Retrieval, hits: list[Hit], mode: str, elapsed_ms: float) -> None:
        query = retrieval.query.raw
        if not hits:
            self.stdout.write(f'No results for "{query}" ({mode}, {elapsed_ms:.0f} ms).')
            return
        total = len(retrieval.pages)
        vectors = "" if retrieval.used_vectors or mode == "keyword" else "; keyword matches only"
        self.stdout.write(f'{len(hits)} of {total} result(s) for "{query}" ({mode}{vectors}, {elapsed_ms:.0f} ms)')
        self.stdout.write("")
        space_w = min(24, max(len("space"), *(len(h.space) for h in hits)))
        title_w = min(48, max(len("title"), *(len(h.title) for h in hits)))
        self.stdout.write(f"{'#':>3}  {'score':<7} {'space':<{space_w}}  lang  {'title':<{title_w}}  ref#anchor")
        for rank, hit in enumerate(hits, start=1):
            title = hit.title if len(hit.title) <= title_w else hit.title[: title_w - 1] + "…"
            space = hit.space if len(hit.space) <= space_w else hit.space[: space_w - 1] + "…"
            where = f"{hit.ref}#{hit.anchor}" if hit.anchor else hit.ref
            self.stdout.write(
                f"{rank:>3}  {hit.score:<7.4f} {space:<{space_w}}  {hit.language:<4}  {title:<{title_w}}  {where}"
            )
            if hit.snippet:
                self.stdout.write(f"{'':>5}{hit.snippet}")

    # --- batch ---------------------------------------------------------------------

    def _batch(self, path: Path, user: Any, limit: int, mode: str) -> None:
        if str(path) == "-":
            self._batch_lines("<stdin>", sys.stdin, user, limit, mode)
            return
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        with path.open(encoding="utf-8", errors="replace") as handle:
            self._batch_lines(str(path), handle, user, limit, mode)

    def _batch_lines(self, name: str, lines: Any, user: Any, limit: int, mode: str) -> None:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                qid, query = _parse_batch_line(line)
            except ValueError as exc:
                self.stderr.write(f"{name}:{number}: skipped: {exc}")
                continue
            out: dict[str, Any] = {"qid": qid, "results": []}
            try:
                _retrieval, hits = run_search(query, user, limit=limit, mode=mode, snippets=False)
                out["results"] = [h.as_json(full=False) for h in hits]
            except QueryError as exc:  # too long: say so, and still answer the qid (no results)
                self.stderr.write(f"{name}:{number}: qid {qid!r}: {exc}")
                out["error"] = str(exc)
            self.stdout.write(json.dumps(out, ensure_ascii=False))
            self.stdout.flush()


def _parse_batch_line(line: str) -> tuple[Any, str]:
    item = object_line(line, ("qid", "query"), expected="expected a JSON object with qid and query")
    qid, query = item["qid"], item["query"]
    if not isinstance(qid, str | int) or isinstance(qid, bool):
        raise ValueError("qid must be a string or an integer")
    if not isinstance(query, str):
        raise ValueError("query must be a string")
    return qid, query
