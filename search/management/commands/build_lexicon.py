"""python manage.py build_lexicon: the vocabulary that translates query words without an LLM."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from search.services import lexicon_build


class Command(BaseCommand):
    help = (
        "Embed the handbook's frequent words per language, so queries can be translated word by word "
        "into the other language (the periodic sweep does this too; only new words are embedded)."
    )

    def handle(self, *args, **options):
        quiet = options["verbosity"] == 0
        with tqdm(desc="words", unit="word", disable=quiet) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.n = done
                bar.refresh()

            counts = lexicon_build(progress=progress)
        if not counts:
            raise CommandError("embeddings are switched off: there is no model to translate words with")
        for language, count in sorted(counts.items()):
            self.stdout.write(f"{language}: {count} words")
        if len(counts) < 2:
            self.stdout.write("Only one language has enough text: queries are not translated.")
