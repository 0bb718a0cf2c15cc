"""The sentence check's meaning floor: fitted per embedding model, stored in its policy, read by Ask."""

from __future__ import annotations

import json
import math

import pytest

from search.ask.answers import answer_question
from search.calibration import statement_fit
from search.calibration.statement_fit import GRID_STEP, KEPT_SHARE, fit_statement_check
from search.decisions.policy import Decision, forget, policy_for, shipped_path
from search.decisions.statement_floor import STATEMENT_CHECK, meaning_floor
from search.embedding.embedders import LOCAL_MODEL_NAME
from statements.statement_check import new_word_share
from tests.decisions import store

STATEMENT = "Every employee is entitled to 25 working days of paid annual leave per year."
OTHER_STATEMENT = "Up to five unused days may be carried over until 31 March."
# Each written sentence at a chosen cosine to STATEMENT (and orthogonal to OTHER_STATEMENT).
COSINES = {
    "Each employee gets 25 working days of paid leave a year.": 0.91,
    "Staff are entitled to 25 days of leave.": 0.83,
    "Chaque salarié a droit à 25 jours de congés payés.": 0.78,
    "Leave days can be donated to charity.": 0.86,
}


class _Embedder:
    """Vectors in three dimensions that give each written sentence its cosine in ``COSINES``."""

    model_name = "test-floor"
    dimensions = 3

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        vectors = {STATEMENT: [1.0, 0.0, 0.0], OTHER_STATEMENT: [0.0, 0.0, 1.0]}
        for text, cosine in COSINES.items():
            vectors[text] = [cosine, math.sqrt(1 - cosine**2), 0.0]
        return [vectors[t] for t in texts]


@pytest.fixture
def material(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    path = tmp_path / "statements.jsonl"
    labels = ["faithful", "faithful", "faithful", "invented"]
    lines = [{"page": "Annual leave", "language": "en", "statements": [STATEMENT, OTHER_STATEMENT]}]
    lines += [
        {"sentence": s, "language": "fr" if s.startswith("Chaque") else "en", "page": "Annual leave", "label": label}
        for s, label in zip(COSINES, labels, strict=True)
    ]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    monkeypatch.setattr(statement_fit, "MATERIAL", path)


def test_the_fit_picks_its_floor_and_offset_from_the_grid_by_its_rule_and_reports_them(material):
    decision = fit_statement_check(_Embedder())  # type: ignore[arg-type]
    floor, offset = decision.threshold("min_similarity"), decision.threshold("cross_language_offset")
    # The highest grid floor keeping KEPT_SHARE of the same-language paraphrases: of two, both (0.83 the least) ...
    assert floor <= 0.83 < floor + GRID_STEP
    assert abs(round(floor / GRID_STEP) * GRID_STEP - floor) < 1e-9
    # ... and the least offset that brings the French one (0.78) up to it.
    assert 0.78 + offset >= floor - 1e-9 > 0.78 + offset - GRID_STEP
    report = decision.report
    assert report["kept"] == {"faithful_same_language": 1.0, "faithful_other_language": 1.0}
    assert report["material"]["faithful_same_language"] == 2 and report["material"]["invented"] == 1
    assert report["invented_passing_by_cosine"] == {"share": 1.0, "count": 1}  # 0.86: the words test's to refuse
    assert report["grid"]["step"] == GRID_STEP and report["sweep"]
    assert Decision.from_json(decision.as_json()).thresholds == decision.thresholds


def test_the_fit_picks_the_least_share_of_new_words_that_keeps_what_the_floor_keeps(material):
    decision = fit_statement_check(_Embedder())  # type: ignore[arg-type]
    shares = {s: new_word_share(s, "en", f"{STATEMENT} {OTHER_STATEMENT}") for s in list(COSINES)[:2]}
    invented = new_word_share(list(COSINES)[3], "en", f"{STATEMENT} {OTHER_STATEMENT}")
    # Both English paraphrases reach the floor and KEPT_SHARE of two is both: the words test must keep
    # the one with the most new words, and no grid step less would.
    assert KEPT_SHARE > 1 / 2 and max(shares.values()) > 0
    bound = decision.threshold("max_new_words")
    assert bound >= max(shares.values()) - 1e-9 > bound - GRID_STEP
    words = decision.report["words"]
    assert words["faithful_kept_by_words_and_floor"] == {"share": 1.0, "count": 2}
    assert invented > bound and words["invented_tested"] == 1 and words["invented_refused_by_words"] == 1
    assert words["invented_passing_words_and_floor"]["count"] == 0


def test_the_shipped_policy_holds_the_floor_fitted_on_the_material_it_ships_with():
    shipped = json.loads(shipped_path(LOCAL_MODEL_NAME).read_text(encoding="utf-8"))
    entry = shipped["decisions"][STATEMENT_CHECK]
    assert entry["report"]["material"]["digest"] == statement_fit._material()[2]
    assert set(entry["thresholds"]) == {"min_similarity", "cross_language_offset", "max_new_words"}
    # The invented sentences the report says the words test refuses are those over the shipped share.
    pages, sentences, _digest = statement_fit._material()
    tested = [row for row in sentences if row["label"] == "invented" and row["language"] == pages[row["page"]][0]]
    over = [
        row
        for row in tested
        if new_word_share(row["sentence"], row["language"], " ".join(pages[row["page"]][1]))
        > entry["thresholds"]["max_new_words"] + 1e-9
    ]
    assert entry["report"]["words"]["invented_tested"] == len(tested)
    assert entry["report"]["words"]["invented_refused_by_words"] == len(over) > 0


LEAVE = f"# Annual leave\n\n{STATEMENT}\n\n## Carry over\n\n{OTHER_STATEMENT}\n"
PARAPHRASE = "Each employee has 25 working days of paid annual leave every year"
REWORDED = "Each colleague receives 25 working days of paid annual leave every year"  # some words new


@pytest.fixture
def bob(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    make_page(make_space("people", viewers=("staff",)), "Annual leave", LEAVE, ref="leave")
    return make_user("bob", "staff")


def _floor(value: float, **words: float) -> None:
    store(STATEMENT_CHECK, Decision((), (), 0.0, {"min_similarity": value, "cross_language_offset": 0.0, **words}))


def _asked(user, fake_llm, sentence: str = PARAPHRASE):  # type: ignore[no-untyped-def]
    fake_llm.queue_json({"answer": f"{sentence} [1].", "sources": [1]})
    return answer_question(
        user=user, question="How many days of annual leave do I get?", rate_limit=False, use_cache=False
    )


@pytest.mark.django_db
def test_ask_checks_sentences_by_the_floor_of_its_model_s_policy(bob, fake_llm):
    _floor(-1.0)
    kept = _asked(bob, fake_llm)
    assert kept.mode == "llm" and PARAPHRASE in kept.text
    _floor(0.9999)  # the same sentence, a floor above its cosine
    refused = _asked(bob, fake_llm)
    assert refused.mode == "extractive" and refused.fallback == "unsupported"


@pytest.mark.django_db
def test_ask_refuses_a_sentence_by_the_share_of_new_words_of_its_model_s_policy(bob, fake_llm):
    question = "How many days of annual leave do I get?"
    share = new_word_share(REWORDED, "en", f"{LEAVE} {question}")
    assert 0 < share <= 1 / 2  # kept without a fitted share (a policy fitted before it)
    _floor(-1.0)
    assert meaning_floor(LOCAL_MODEL_NAME).max_new_words is None  # type: ignore[union-attr]
    assert REWORDED in _asked(bob, fake_llm, REWORDED).text
    _floor(-1.0, max_new_words=share + GRID_STEP)  # a grid step above its own (the policy rounds)
    assert REWORDED in _asked(bob, fake_llm, REWORDED).text
    _floor(-1.0, max_new_words=share / 2)  # the same sentence, a share below its own
    refused = _asked(bob, fake_llm, REWORDED)
    assert refused.mode == "extractive" and refused.fallback == "unsupported"


@pytest.mark.django_db
def test_a_policy_without_the_floor_loads_and_the_words_and_figures_decide(bob, fake_llm):
    from search.models import DecisionPolicy

    policy = policy_for(LOCAL_MODEL_NAME)
    assert policy is not None
    older = {name: d.as_json() for name, d in policy.decisions.items() if name != STATEMENT_CHECK}
    DecisionPolicy.objects.update_or_create(model=LOCAL_MODEL_NAME, defaults={"decisions": older})
    forget()
    loaded = policy_for(LOCAL_MODEL_NAME)
    assert loaded is not None and loaded.source == "calibrated" and loaded.get("query") is not None
    assert meaning_floor(LOCAL_MODEL_NAME) is None
    kept = _asked(bob, fake_llm)
    assert kept.mode == "llm" and PARAPHRASE in kept.text
    fake_llm.queue_json(
        {"answer": "Each employee has 30 working days of paid annual leave every year [1].", "sources": [1]}
    )
    altered = answer_question(user=bob, question="How many days of leave?", rate_limit=False, use_cache=False)
    assert "30" not in altered.text
