"""Summaries that learn from editors' ticks: does the learnt sentence choice agree with editors better
than today's extractive choice, and do summaries still state the pages' key facts?

``bench/data/summary_ticks.jsonl`` holds an editor's ticks on 60 pages of the public handbooks in
``shared/corpora`` (English and French), one line per page: corpus, page id and the ticked units'
addresses (``summaries.features.unit_hash``), never the page's text. The ticked pages alternate
into a fit half and a held-out half (30 and 30); on the held-out half, F1 over units of:

- today's extractive choice (``summarise_extractive``),
- the shipped weights (``summaries/shipped_weights.json``, fitted on summaries/data's own pages),
- weights fitted on the 30 fit pages (what a handbook gets once editors tick 30 pages).

The key-fact figure is ``bench/summary_facts.py``'s: of the numbers in each page's table rows, the
share a summary states (summary text, and text + key points), over the demo handbook and the dev
corpora, for each of the three choices.

Run: python -m bench.summary_ticks
"""

from __future__ import annotations

import json
import os
from typing import Any

from bench.common import CORPORA, ROOT, md_table
from bench.summary_facts import _NUMBER, SOURCES, _pages

TICKS = ROOT / "bench" / "data" / "summary_ticks.jsonl"


def _ticked_pages() -> list[tuple[dict[str, Any], set[str]]]:
    wanted = [json.loads(line) for line in TICKS.read_text(encoding="utf-8").splitlines() if line.strip()]
    corpora: dict[str, dict[str, dict[str, Any]]] = {}
    for corpus in {w["corpus"] for w in wanted}:
        corpora[corpus] = {p["id"]: p for p in _pages([CORPORA / f"{corpus}.jsonl"])}
    return [(corpora[w["corpus"]][w["page"]], set(w["units"])) for w in wanted]


def _key_facts(pages: list[dict[str, Any]], summarise: Any) -> tuple[float, float]:
    from statements.answer_units import page_units

    kept = [0, 0, 0]
    for page in pages:
        rows = [u.source for u in page_units(page["body"]) if u.kind == "row"]
        numbers = {n for row in rows for n in _NUMBER.findall(row)}
        if not numbers:
            continue
        summary = summarise(page)
        kept[0] += len(numbers & set(_NUMBER.findall(summary.text)))
        kept[1] += len(numbers & set(_NUMBER.findall(" ".join([summary.text, *summary.key_points]))))
        kept[2] += len(numbers)
    return (kept[0] / kept[2], kept[1] / kept[2]) if kept[2] else (float("nan"), float("nan"))


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    from core import embedded

    embedded.use_if_unconfigured()  # settings only read the environment
    django.setup()
    from handbook.markdown import markdown_to_text
    from summaries.extractive import candidate_pool, summarise_extractive
    from summaries.features import candidate_hashes
    from summaries.fitting import fit_report, fit_scorer, held_out_f1, lesson
    from summaries.learnt import f1, shipped_scorer, summarise_learnt

    ticked = _ticked_pages()
    lessons = []
    for page, picked in ticked:
        found = lesson(
            key=page["id"], markdown=page["body"], title=page["title"], language=page.get("lang") or "en", picked=picked
        )
        if found is None:
            raise SystemExit(f"{page['id']}: no ticked unit is a candidate sentence (bench/data is stale?)")
        lessons.append(found)
    fit_half, held_half = lessons[0::2], ticked[1::2]
    learnt = fit_scorer(fit_half, "bench")
    shipped = shipped_scorer()
    choices = (("extractive (today)", None), ("shipped weights", shipped), ("learnt (fit on 30)", learnt))

    def choose(scorer: Any) -> Any:
        """The summary as served: ``summarise_learnt`` (its key-facts rule included) or today's."""

        def summarise(page: dict[str, Any]) -> Any:
            text, language = markdown_to_text(page["body"]), page.get("lang") or "en"
            if scorer is None:
                return summarise_extractive(text, language=language, markdown=page["body"])
            return summarise_learnt(text, language=language, title=page["title"], markdown=page["body"], scorer=scorer)

        return summarise

    def mean_f1(pages: list[tuple[dict[str, Any], set[str]]], scorer: Any) -> float:
        values = []
        for page, picked in pages:
            markdown, language = page["body"], page.get("lang") or "en"
            pool = candidate_pool(markdown_to_text(markdown), language=language, markdown=markdown)
            hashes = dict(zip((c.sentence for c in pool.candidates), candidate_hashes(pool, markdown), strict=True))
            chosen = {hashes[s] for s in choose(scorer)(page).sentences if s in hashes}
            values.append(f1(chosen, picked & set(hashes.values())))
        return sum(values) / len(values)

    agreement = {name: mean_f1(held_half, scorer) for name, scorer in choices}
    # The other way round (fit on the held-out half, judged on the fit half): is the gain one split's luck?
    swapped = {
        "extractive (today)": mean_f1(ticked[0::2], None),
        "learnt (fit on the other 30)": mean_f1(ticked[0::2], fit_scorer(lessons[1::2], "swapped")),
    }
    by_language: dict[str, dict[str, float]] = {}
    for language in ("en", "fr"):
        held = [(p, picked) for p, picked in held_half if (p.get("lang") or "en") == language]
        by_language[language] = {"pages": len(held), **{name: mean_f1(held, scorer) for name, scorer in choices}}

    sources = {name: _pages(paths) for name, paths in SOURCES.items() if all(path.is_file() for path in paths)}
    fact_pages = [p for pages in sources.values() for p in pages]

    facts = {name: _key_facts(fact_pages, choose(scorer)) for name, scorer in choices}
    by_source = {
        source: {name: _key_facts(pages, choose(scorer))[0] for name, scorer in choices}
        for source, pages in sources.items()
    }
    rows = [[name, agreement[name], facts[name][0], facts[name][1]] for name in agreement]
    print(f"{len(fit_half)} pages fitted, {len(held_half)} held out; key facts over {len(fact_pages)} pages\n")
    print(md_table(["sentence choice", "held-out F1 over units", "table numbers kept", "kept (+ key points)"], rows))
    print()
    print(
        md_table(
            ["table numbers kept, pages of", *(name for name, _s in choices)],
            [[source, *kept.values()] for source, kept in by_source.items()],
        )
    )
    print("\nhalves swapped:", json.dumps(swapped, default=lambda v: round(v, 3)))
    print("held-out F1 by language:", json.dumps(by_language, default=lambda v: round(v, 3)))
    report = fit_report(fit_half, learnt, held_out_f1(fit_half, shipped))
    print("weights fitted on 30:", json.dumps(report["weights"]["coef"], default=float))
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary_ticks.json").write_text(
        json.dumps(
            {
                "agreement": agreement,
                "by_language": by_language,
                "swapped": swapped,
                "key_facts": facts,
                "key_facts_by_source": by_source,
                "fit": report,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
