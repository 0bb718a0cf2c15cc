"""Fitting sentence weights from editors' picks: the weights follow the ticks; the shipped weights
serve below the threshold; above it the learnt weights choose un-ticked pages' summaries."""

from __future__ import annotations

import pytest

from handbook.markdown import markdown_to_text
from summaries.features import FEATURES
from summaries.fitting import fit_scorer, lesson
from summaries.learnt import current_scorer, shipped_scorer
from summaries.models import SummaryPick, SummaryScorerFit
from summaries.scorer_fit import MIN_TICKED_PAGES, summary_scorer_refit
from summaries.services import summary_generate
from tests.summaries.ticked_pages import body, make_ticked

PAGE_POSITION = FEATURES.index("page_position")


def _lessons(which: int) -> list:  # type: ignore[type-arg]
    from summaries.extractive import candidate_pool
    from summaries.features import candidate_hashes

    found = []
    for seed in range(12):
        markdown = body(seed)
        pool = candidate_pool(markdown_to_text(markdown), language="en", markdown=markdown)
        picked = {candidate_hashes(pool, markdown)[which]}
        found.append(lesson(key=str(seed), markdown=markdown, title=f"Page {seed}", language="en", picked=picked))
    return found


def test_the_weights_move_with_the_ticks() -> None:
    """GIVEN the same pages WHEN editors tick the last sentence, or the first THEN the weight of a
    sentence's place in the page follows them."""
    last = fit_scorer(_lessons(-1), "last")
    first = fit_scorer(_lessons(0), "first")
    assert last.coef[PAGE_POSITION] > 0 > first.coef[PAGE_POSITION]


@pytest.mark.django_db
def test_the_shipped_weights_serve_below_the_threshold(make_space, make_page) -> None:
    space = make_space("hr")
    make_ticked(make_page, space, MIN_TICKED_PAGES - 1, -1)
    fit = summary_scorer_refit()
    assert not fit.in_use and fit.report["pages"] == MIN_TICKED_PAGES - 1
    assert fit.report["min_pages"] == MIN_TICKED_PAGES and fit.weights["coef"]  # fitted, reported, not served
    assert current_scorer() == shipped_scorer()


@pytest.mark.django_db
def test_from_the_threshold_the_learnt_weights_choose_other_pages(make_space, make_page) -> None:
    space = make_space("hr")
    make_ticked(make_page, space, MIN_TICKED_PAGES, -1)
    other = make_page(space, "Untouched", body(99), index=False)
    before = summary_generate(page_id=other.pk, revision_id=None)
    assert before.model == ""  # the shipped weights chose it

    fit = summary_scorer_refit()
    assert fit.in_use, fit.report
    assert fit.report["held_out_f1"]["learnt"] >= fit.report["held_out_f1"]["shipped"]
    assert current_scorer().label == f"fit {fit.pk}"

    after = summary_generate(page_id=other.pk, revision_id=None)  # re-chosen: other weights now
    assert after.pk == before.pk and after.model == f"fit {fit.pk}"
    last_sentence = body(99).strip().splitlines()[-1]
    assert last_sentence in after.text
    assert not SummaryPick.objects.filter(page=other).exists()


@pytest.mark.django_db
def test_a_pick_on_text_since_replaced_does_not_teach(make_space, make_page) -> None:
    from handbook.services import page_save

    space = make_space("hr")
    pages = make_ticked(make_page, space, MIN_TICKED_PAGES, -1)
    page_save(page=pages[0], title=pages[0].title, body=body(500))
    assert summary_scorer_refit().report["pages"] == MIN_TICKED_PAGES - 1
    assert SummaryScorerFit.objects.filter(in_use=True).count() == 0
    assert SummaryPick.objects.filter(page=pages[0]).exists()  # kept, shown as changed, not taught
