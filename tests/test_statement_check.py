"""The sentence check of model output (``statements/statement_check.py``): each sentence against its sources."""

from __future__ import annotations

from search.ask.stream_gate import FigureGate
from statements.statement_check import (
    MeaningFloor,
    Source,
    check_sentences,
    new_word_share,
    says_its_own,
    written_sentences,
)

LEAVE = Source(
    1,
    "Every employee is entitled to 25 working days of paid annual leave per year. "
    "Requests go through Lumen and your manager answers within 5 working days.",
    "en",
)
CARRY = Source(2, "Up to five unused days may be carried over until 31 March.", "en")
PER_DIEM_FR = Source(3, "Barème 2026 — Destination: Norvège; Indemnité par jour: 70 €", "fr")


def _verdicts(text, sources=(LEAVE, CARRY), **kw):  # type: ignore[no-untyped-def]
    kw.setdefault("floor", None)
    return check_sentences(text, list(sources), language=kw.pop("language", "en"), **kw)


def test_markers_after_the_full_stop_stay_with_their_sentence():
    assert written_sentences("You get 25 days. [1] Five carry over. [2]") == [
        "You get 25 days. [1]",
        "Five carry over. [2]",
    ]


def test_a_figure_its_own_citation_lacks_is_unsupported():
    faithful, altered, elsewhere = _verdicts("You get 25 days [1]. You get 32 days [1]. Until 31 March [1].")
    assert faithful.supported
    assert (altered.supported, altered.reason, altered.detail) == (False, "figure", "32")
    # 31 is in passage [2], not in the one this sentence cites.
    assert (elsewhere.supported, elsewhere.reason) == (False, "figure")


def test_figures_written_in_words_and_the_questions_figures_count():
    assert _verdicts("Up to 5 days may be carried over [2].")[0].supported  # "five" in the passage
    assert _verdicts("Yes, 40 days would be more than you get [1].", question="Do I get 40 days?")[0].supported


def test_a_name_no_source_of_its_language_holds_is_unsupported():
    made_up = _verdicts("Requests go through Workday and your manager answers [1].")[0]
    assert (made_up.supported, made_up.reason, made_up.detail) == (False, "name", "workday")
    assert _verdicts("Requests go through Lumen [1].")[0].supported
    # A French source does not decide an English sentence's names: Norway is Norvège there.
    assert _verdicts("The per diem for Norway is 70 € a day [3].", (PER_DIEM_FR,))[0].supported


def test_a_short_sentence_is_decided_by_its_figures_and_names():
    def similarity(sentences, statements):  # type: ignore[no-untyped-def]
        return [[0.5 for _ in statements] for _ in sentences]

    assert _verdicts("You get 25 days [1].", similarity=similarity)[0].supported
    assert not _verdicts("You get 26 days [1].", similarity=similarity)[0].supported


def test_decimals_are_not_read_as_other_numbers():
    assert not _verdicts("Leave builds up at 2.5 days per month [1].")[0].supported  # "25" is not "2.5"
    assert _verdicts("Up to 3,000 or 3 000 euros [1].", (Source(1, "A limit of 3 000 € a month.", "en"),))[0].supported


def test_a_sentence_made_of_its_own_words_is_unsupported():
    invented = _verdicts("Unused days can be donated to a charity chosen by the works council [2].")[0]
    assert (invented.supported, invented.reason) == (False, "words")
    assert _verdicts("Unused days may be carried over until 31 March [2].")[0].supported


def test_the_words_test_uses_the_share_fitted_with_the_floor_and_most_words_new_without_one():
    sentence = "Requests go through Lumen and your manager approves them within 5 working days [1]."
    share = new_word_share(sentence, "en", LEAVE.text)
    assert 0 < share <= 1 / 2  # some of its words are new, not most of them
    assert _verdicts(sentence)[0].supported  # no floor: refused only when most words are new
    assert _verdicts(sentence, floor=MeaningFloor(-1.0, 0.0))[0].supported  # a fit made before the share
    below = _verdicts(sentence, floor=MeaningFloor(-1.0, 0.0, max_new_words=share / 2))[0]
    assert (below.supported, below.reason) == (False, "words")
    assert _verdicts(sentence, floor=MeaningFloor(-1.0, 0.0, max_new_words=share))[0].supported
    # A fitted share above a half lets through what the rule without a fit refuses.
    invented = "Unused days can be donated to a charity chosen by the works council [2]."
    assert new_word_share(invented, "en", CARRY.text) > 1 / 2
    assert not _verdicts(invented)[0].supported
    assert _verdicts(invented, floor=MeaningFloor(-1.0, 0.0, max_new_words=1.0))[0].supported


def test_without_a_fit_a_sentence_says_its_own_when_most_of_its_words_are_new():
    assert not says_its_own(1 / 2, None) and says_its_own(0.51, None)
    assert says_its_own(0.3, 0.25) and not says_its_own(0.25, 0.25)


def test_meaning_decides_with_vectors_and_a_cross_language_source_gets_the_offset():
    def similarity(sentences, statements):  # type: ignore[no-untyped-def]
        return [[0.83 for _ in statements] for _ in sentences]

    floor = MeaningFloor(min_similarity=0.85, cross_language_offset=0.04)
    same = _verdicts("Every employee gets 25 working days of paid leave [1].", similarity=similarity, floor=floor)[0]
    assert (same.supported, same.reason) == (False, "meaning")
    other = _verdicts(
        "The daily allowance for trips to Norway is 70 € [3].", (PER_DIEM_FR,), similarity=similarity, floor=floor
    )[0]
    assert other.supported and abs(other.similarity - 0.87) < 1e-9
    # The floor is the caller's: a lower one keeps the same sentence.
    lower = MeaningFloor(min_similarity=0.8, cross_language_offset=0.0)
    assert _verdicts("Every employee gets 25 working days of paid leave [1].", similarity=similarity, floor=lower)[
        0
    ].supported


def test_without_a_floor_the_cosines_only_say_which_statements_are_closest():
    """No fitted floor for the model: no sentence is refused by its cosine, and its figures must still be
    those of the statements it is closest to."""
    table = Source(
        4,
        "Per diem rates for business trips. A business trip to Oslo pays 70 € a day. "
        "A business trip to Lyon pays 50 € a day. A business trip to Paris pays 55 € a day.",
        "en",
    )

    def similarity(sentences, statements):  # type: ignore[no-untyped-def]
        return [[0.2 if "Oslo" in st else 0.1 for st in statements] for _ in sentences]

    kept = _verdicts("A business trip to Oslo pays 70 € a day [4].", (table,), similarity=similarity)[0]
    assert kept.supported and abs(kept.similarity - 0.2) < 1e-9
    floored = _verdicts(
        "A business trip to Oslo pays 70 € a day [4].", (table,), similarity=similarity, floor=MeaningFloor(0.5, 0.0)
    )[0]
    assert (floored.supported, floored.reason) == (False, "meaning")

    def far_from_oslo(sentences, statements):  # type: ignore[no-untyped-def]
        return [[0.1 if "Oslo" in st else 0.2 for st in statements] for _ in sentences]

    elsewhere = _verdicts("A business trip to Oslo pays 70 € a day [4].", (table,), similarity=far_from_oslo)[0]
    assert (elsewhere.supported, elsewhere.reason, elsewhere.detail) == (False, "figure", "70")


def test_the_stream_gate_never_shows_a_figure_no_passage_has():
    gate = FigureGate({"25", "5"})
    shown = "".join(gate.feed(piece) for piece in ["You get 2", "5 days [1]. You get 3", "2 days [1]. Ask HR."])
    shown += gate.flush()
    assert "25 days" in shown and "32" not in shown and "Ask HR." in shown
    assert gate.withheld == ["32 days [1]. "]
    # Text before a sentence's first figure is shown at once; the figure waits for the sentence's end.
    gate = FigureGate({"25"})
    assert gate.feed("You get 2") == "You get "
    assert gate.feed("5 days") == ""
    assert gate.flush() == "25 days"
