"""The learnt sentence choice's features and shipped weights (no database)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from django.core.management import call_command

from handbook.markdown import markdown_to_text
from summaries.extractive import candidate_pool, summarise_extractive
from summaries.features import FEATURES, candidate_hashes, pool_features, unit_hash
from summaries.learnt import SHIPPED_WEIGHTS, Scorer, chosen_hashes, f1, shipped_scorer, summarise_learnt

PAGE = """# Expenses

Our finance team meets every week to talk about many things.

## Claims

Claims must be submitted within 30 days of the purchase.
- Attach every receipt to the claim before you send it.

## Rates

The rates below apply to every trip abroad this year.

| Country | Per day |
|---|---|
| Norway | 70 € |
| Spain | 45 € |

Les notes de frais doivent être déposées rapidement après la dépense.
"""


def _features(markdown: str = PAGE, language: str = "en") -> tuple[list[str], dict[str, list[float]]]:
    pool = candidate_pool(markdown_to_text(markdown), language=language, markdown=markdown)
    matrix = pool_features(pool, markdown=markdown, title="Expenses", language=language)
    sentences = [c.sentence for c in pool.candidates]
    return sentences, {s: dict(zip(FEATURES, row, strict=True)) for s, row in zip(sentences, matrix, strict=True)}


def test_each_candidate_gets_every_named_feature() -> None:
    sentences, rows = _features()
    claims = rows["Claims must be submitted within 30 days of the purchase."]
    assert claims["figures"] == 1.0 and claims["cue"] == 1.0
    assert claims["section_position"] == 1.0  # the section's opening statement
    assert claims["heading_depth"] > 0 and claims["list_item"] == 0.0
    assert rows["Attach every receipt to the claim before you send it."]["list_item"] == 1.0
    assert rows["The rates below apply to every trip abroad this year."]["table_section"] == 1.0
    first = rows[sentences[0]]
    assert first["opens_page"] == 1.0 and first["page_position"] == 0.0
    assert first["heading_depth"] < claims["heading_depth"]  # under the title, not a sub-section
    assert max(r["extractive"] for r in rows.values()) == 1.0


def test_french_cue_words_count() -> None:
    _sentences, rows = _features()
    assert rows["Les notes de frais doivent être déposées rapidement après la dépense."]["cue"] == 1.0


def test_the_shipped_weights_name_every_feature_and_carry_their_report() -> None:
    data = json.loads(SHIPPED_WEIGHTS.read_text(encoding="utf-8"))
    assert set(data["weights"]["coef"]) == set(FEATURES)
    report = data["report"]
    assert report["pages"] >= 20 and report["features"] == list(FEATURES)
    assert {"extractive", "learnt"} <= set(report["held_out_f1"]) and report["date"]


def test_the_shipped_weights_are_what_the_command_fits(tmp_path: Path) -> None:
    """The shipped file is the command's output from summaries/data (its report's date aside), in any
    process: a refit after a change to the features or the pool ships the same numbers."""
    out = tmp_path / "weights.json"
    call_command("fit_summary_weights", out=str(out), stdout=io.StringIO())
    fitted, shipped = (json.loads(p.read_text(encoding="utf-8")) for p in (out, SHIPPED_WEIGHTS))
    assert fitted["weights"] == shipped["weights"]
    assert fitted["report"]["held_out_f1"] == shipped["report"]["held_out_f1"]


def test_the_learnt_choice_keeps_the_table_digest_and_quotes_the_page() -> None:
    """Key facts: a table of figures still follows the chosen sentences, whatever the weights."""
    text = markdown_to_text(PAGE)
    for scorer in (
        shipped_scorer(),
        Scorer("opening", tuple(-1.0 if f == "page_position" else 0.0 for f in FEATURES), 0),
    ):
        learnt = summarise_learnt(text, language="en", title="Expenses", markdown=PAGE, scorer=scorer)
        assert learnt.sentences[-1].startswith("Rates (Country: Per day) — Norway: 70 €")
        assert len(learnt.sentences) == len(summarise_extractive(text, language="en", markdown=PAGE).sentences)


def test_weights_change_the_choice_and_f1_measures_it() -> None:
    pool = candidate_pool(markdown_to_text(PAGE), language="en", markdown=PAGE)
    hashes = candidate_hashes(pool, PAGE)
    late = Scorer("late", tuple(5.0 if f == "page_position" else 0.0 for f in FEATURES), 0.0)
    early = Scorer("early", tuple(-5.0 if f == "page_position" else 0.0 for f in FEATURES), 0.0)
    chosen = {}
    for scorer in (late, early):
        features = pool_features(pool, markdown=PAGE, title="Expenses", language="en")
        for candidate, score in zip(pool.candidates, scorer.scores(features), strict=True):
            candidate.score = float(score)
        chosen[scorer.label] = chosen_hashes(pool, PAGE)
    assert hashes[-1] in chosen["late"] and hashes[0] in chosen["early"]
    assert f1(chosen["late"], {hashes[-1]}) > f1(chosen["early"], {hashes[-1]})


def test_a_unit_address_ignores_spacing_only() -> None:
    assert unit_hash("Claims  must be\nsent.") == unit_hash("Claims must be sent.")
    assert unit_hash("Claims must be sent.") != unit_hash("Claims must be sent!")


TWO_TABLES = """# Travel

Hotels in Oslo are paid up to 150 € a night on every trip abroad.
Book trains through the travel portal before you leave for any trip.
Keep your receipts for hotels and taxis until the claim is paid.

## Rates

| Country | Per day |
|---|---|
| Norway | 70 € |

## Hotels

| City | Per night |
|---|---|
| Oslo | 150 € |
"""


def test_weights_that_shun_figures_never_drop_a_key_fact() -> None:
    """Key facts first: a figure of the page's tables that today's choice states stays stated."""
    text = markdown_to_text(TWO_TABLES)
    shun = Scorer("shun", tuple(-10.0 if f == "figures" else 0.0 for f in FEATURES), 0.0)
    learnt = summarise_learnt(text, language="en", title="Travel", markdown=TWO_TABLES, scorer=shun)
    assert "150 €" in learnt.text
    assert learnt.sentences == summarise_extractive(text, language="en", markdown=TWO_TABLES).sentences
