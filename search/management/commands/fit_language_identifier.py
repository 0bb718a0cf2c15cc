"""python manage.py fit_language_identifier: the confidence from which py3langid's guess is trusted."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from core.languages import IDENTIFIER_FIT
from search.calibration.calibration_set import calibration_set
from search.calibration.language_fit import fit_identifier_confidence


class Command(BaseCommand):
    help = (
        "Fit, on the shipped calibration material's labelled texts, the confidence from which the language "
        "identifier's guess is trusted when the stop-word heuristic cannot tell, and write it with its fit "
        "report to core/language_identifier.json (shipped with the product; no database needed)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="Print the fit; write nothing.")

    def handle(self, *args, **options):
        fit = fit_identifier_confidence(calibration_set())
        body = json.dumps(fit, indent=1, ensure_ascii=False) + "\n"
        if not options["check"]:
            IDENTIFIER_FIT.write_text(body, encoding="utf-8")
        self.stdout.write(body)
