"""Extractive summaries: do they keep a page's figures, and are they made of the page's own text?

For every page of the demo handbook and the dev corpora (no database: the corpora's Markdown is
read directly), the extractive summary is built the old way (plain text only) and from answer
units (``markdown=``), and reported:

- table numbers kept: of the numbers in the page's table rows, the share found in the summary
  text (and in summary text + key points);
- verbatim: pages whose summary sentences are each found within one line of the page's plain
  text, i.e. not glued across headings, list items or table cells (a table digest counts when
  each of its rows is a row of the page);
- code: pages whose summary holds a line of a code block.

Run: python -m bench.summary_facts
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from bench.common import CORPORA, ROOT, md_table

SOURCES = {
    "demo": sorted((ROOT / "handbook" / "demo").glob("*.jsonl")),
    "18f-handbook": [CORPORA / "18f-handbook.jsonl"],
    "etalab-guides": [CORPORA / "etalab-guides.jsonl"],
    "betagouv-communaute": [CORPORA / "betagouv-communaute.jsonl"],
}
_NUMBER = re.compile(r"\d+(?:[.,\u202f\u00a0 ]\d+)*")
_FENCE = re.compile(r"^(?:```|~~~).*?^(?:```|~~~)", re.S | re.M)


def _pages(paths: list[Path]) -> list[dict[str, Any]]:
    pages = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            pages.extend(json.loads(line) for line in handle if line.strip())
    return pages


def _code_lines(markdown: str) -> set[str]:
    lines: set[str] = set()
    for block in _FENCE.findall(markdown):
        lines.update(line.strip() for line in block.splitlines()[1:-1] if len(line.strip()) > 8)
    return lines


def measure(pages: list[dict[str, Any]]) -> dict[str, Any]:
    from handbook.markdown import markdown_to_text
    from statements.answer_units import page_units
    from summaries.extractive import summarise_extractive

    totals = {"old": [0, 0], "new": [0, 0], "new + key points": [0, 0]}
    verbatim = {"old": 0, "new": 0}
    code = {"old": 0, "new": 0}
    with_tables = 0
    for page in pages:
        markdown, language = page["body"], page.get("lang") or "en"
        text = markdown_to_text(markdown)
        rows = [u.source for u in page_units(markdown) if u.kind == "row"]
        old = summarise_extractive(text, language=language)
        new = summarise_extractive(text, language=language, markdown=markdown)
        numbers = {n for row in rows for n in _NUMBER.findall(row)}
        if numbers:
            with_tables += 1
            for name, summary in (
                ("old", old.text),
                ("new", new.text),
                ("new + key points", " ".join([new.text, *new.key_points])),
            ):
                found = set(_NUMBER.findall(summary))
                totals[name][0] += len(numbers & found)
                totals[name][1] += len(numbers)
        code_lines = _code_lines(markdown)
        for name, summary in (("old", old), ("new", new)):
            verbatim[name] += all(_in_page(s, text, rows) for s in summary.sentences)
            code[name] += any(line in summary.text for line in code_lines)
    return {
        "pages": len(pages),
        "pages with table numbers": with_tables,
        "table numbers kept": {k: (a / b if b else float("nan")) for k, (a, b) in totals.items()},
        "verbatim pages": verbatim,
        "pages quoting code": code,
    }


def _in_page(sentence: str, text: str, rows: list[str]) -> bool:
    """Found in one line of the page's text (not glued across headings, items or cells), or a digest of rows."""
    if any(sentence in line for line in text.splitlines()):
        return True
    body = sentence.split(" — ", 1)[-1]
    parts = [p.replace(": ", " ", 1).replace(", ", " ") for p in body.split("; ") if p != "…"]
    flat = [row.replace(", ", " ") for row in rows]
    return bool(parts) and all(p in flat for p in parts)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    from core import embedded

    embedded.use_if_unconfigured()  # settings only read the environment
    django.setup()
    table = []
    results = {}
    for name, paths in SOURCES.items():
        if not all(p.is_file() for p in paths):
            continue
        r = measure(_pages(paths))
        results[name] = r
        kept = r["table numbers kept"]
        table.append(
            [
                name,
                r["pages"],
                r["pages with table numbers"],
                kept["old"],
                kept["new"],
                kept["new + key points"],
                f"{r['verbatim pages']['old']} → {r['verbatim pages']['new']}",
                f"{r['pages quoting code']['old']} → {r['pages quoting code']['new']}",
            ]
        )
    print(
        md_table(
            [
                "pages of",
                "pages",
                "with table numbers",
                "table numbers kept (old)",
                "kept (new)",
                "kept (new + key points)",
                "verbatim pages old → new",
                "pages quoting code old → new",
            ],
            table,
        )
    )
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary_facts.json").write_text(json.dumps(results, indent=2, default=float))


if __name__ == "__main__":
    main()
