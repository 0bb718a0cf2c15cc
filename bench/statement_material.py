"""Writes the sentence check's calibration material from the bench's hand-written sentences.

``bench/data/llm_statements.jsonl`` holds, for questions on the demo handbook (``handbook/demo``),
faithful paraphrases of a page (some in the other language) and sentences of the model's own
(invented). The product never reads ``bench/``: this script copies them, with the statements of the
pages they cite (the page's answer units, as Ask checks a sentence against), into
``search/calibration/material/statements.jsonl``, which ``manage.py calibrate`` fits the meaning
floor of the sentence check on (``search/calibration/statement_fit.py``). Sentences with altered
figures are not copied: the figures test, not the meaning floor, keeps them out.

Lines: a page ``{"page", "language", "statements": [...]}``, then sentences
``{"sentence", "language", "page", "label": "faithful" | "invented"}``.

    .venv/bin/python -m bench.statement_material
"""

from __future__ import annotations

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SENTENCES = ROOT / "bench" / "data" / "llm_statements.jsonl"
DEMO = ROOT / "handbook" / "demo"
OUT = ROOT / "search" / "calibration" / "material" / "statements.jsonl"


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from core.text import detect_language
    from statements.answer_units import page_units

    pages = {}
    for path in sorted(DEMO.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                page = json.loads(line)
                pages[page["title"]] = page
    cases = [json.loads(line) for line in SENTENCES.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines: list[dict] = []
    for title in dict.fromkeys(case["page"] for case in cases):
        page = pages[title]
        statements = list(dict.fromkeys(u.text for u in page_units(page["body"]) if u.text.strip()))
        lines.append({"page": title, "language": page["lang"], "statements": statements})
    for case in cases:
        for label in ("faithful", "invented"):
            for sentence in case[label]:
                language = detect_language(sentence, default=pages[case["page"]]["lang"])
                lines.append({"sentence": sentence, "language": language, "page": case["page"], "label": label})
    OUT.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(lines)} lines")


if __name__ == "__main__":
    main()
