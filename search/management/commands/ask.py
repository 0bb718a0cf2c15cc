"""python manage.py ask "QUESTION" --user USERNAME [--json] | --batch FILE.jsonl --user USERNAME"""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from search.ask.answers import AskError, answer_question


class Command(BaseCommand):
    help = "Answer a question from the handbook, citing passages the user may read."

    def add_arguments(self, parser):
        parser.add_argument("question", nargs="?", default=None)
        parser.add_argument("--user", required=True)
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--batch", type=Path, help='JSONL file of {"qid", "query"} lines')
        parser.add_argument("--no-cache", action="store_true")

    def handle(self, *args, **options):
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"no such user: {options['user']}")
        if options["batch"]:
            return self._batch(options["batch"], user, not options["no_cache"])
        if not options["question"]:
            raise CommandError("give a QUESTION or --batch FILE")
        try:
            answer = answer_question(
                user=user, question=options["question"], rate_limit=False, use_cache=not options["no_cache"]
            )
        except AskError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(answer.as_json(), ensure_ascii=False))
            return
        self.stdout.write(f"[{answer.mode}] {answer.text}")
        if answer.notice:
            self.stdout.write(f"note: {answer.notice}")
        for c in answer.citations:
            outdated = " (source updated since)" if c.outdated else ""
            self.stdout.write(f"  [{c.number}] {c.title} — {c.ref}#{c.anchor} r{c.revision}{outdated}")

    def _batch(self, path: Path, user, use_cache: bool) -> None:
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        with path.open(encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                    qid, query = item["qid"], item["query"]
                    if not isinstance(query, str):
                        raise TypeError("query must be a string")
                except (ValueError, KeyError, TypeError) as exc:
                    self.stderr.write(f"{path}:{number}: skipped: {exc}")
                    continue
                try:
                    answer = answer_question(user=user, question=query, rate_limit=False, use_cache=use_cache)
                    out = {"qid": qid, **answer.as_json()}
                except AskError as exc:
                    out = {"qid": qid, "answer": "", "mode": "no_answer", "citations": [], "error": str(exc)}
                self.stdout.write(json.dumps(out, ensure_ascii=False))
