"""The retrieval numbers of a model (α of the language-centred query, the plain vector list's fusion
weight beside it) are fitted with its policy, stored with their report, and read by the search."""

from __future__ import annotations

import numpy as np
import pytest

from search.calibration.calibration_set import CalibrationPassage, CalibrationQuestion, CalibrationSet
from search.calibration.query_fit import CalibrationHandbook
from search.calibration.retrieval_fit import GRID, fit_retrieval
from search.decisions.policy import Decision, forget, policy_for
from search.decisions.retrieval import (
    CENTRING,
    NEUTRAL,
    RETRIEVAL,
    VECTOR_WEIGHT,
    RetrievalWeights,
    retrieval_decision,
    retrieval_weights,
)
from search.embedding.embedders import LOCAL_MODEL_NAME
from search.retrieval import crosslang, fusion
from search.retrieval import pipeline as retrieval
from search.retrieval.crosslang import MIN_CHUNKS_PER_LANGUAGE

TOPICS = 60  # per language: enough passages for a language mean (MIN_CHUNKS_PER_LANGUAGE)
EN = "How many days of leave does team {i} get?"
FR = "Combien de jours de congés pour l'équipe {i} ?"


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


class NoEmbedding:
    """The test material gives every vector: embedding anything is a mistake."""

    model_name = "given-vectors"

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        raise AssertionError(f"embedded {texts[:1]}")


def _material(pull: float, *, other_language: bool = True) -> tuple[CalibrationSet, CalibrationHandbook]:
    """A handbook of ``TOPICS`` passages per language whose vectors are a topic plus a language
    component of strength ``pull``, and a question per passage: in its passage's language, and (with
    ``other_language``) in the other one. Every vector is given: nothing is embedded."""
    rng = np.random.default_rng(7)
    dims = 2 * TOPICS + 2
    language = {"en": np.eye(dims)[-2], "fr": np.eye(dims)[-1]}
    passages, vectors, questions, asked = [], [], [], {}
    for n, lang in enumerate(("en", "fr")):
        for t in range(TOPICS):
            pid, topic = f"{lang}{t}", np.eye(dims)[n * TOPICS + t]
            passages.append(CalibrationPassage(pid, lang, f"page {pid}", "", f"text {pid}"))
            vectors.append(_unit(topic + pull * language[lang]))
            for q_lang in ("en", "fr") if other_language else (lang,):
                text = (EN if q_lang == "en" else FR).format(i=f"{pid}")
                noise = rng.normal(scale=0.05, size=dims)
                asked[text] = _unit(topic + pull * language[q_lang] + noise).astype(np.float32)
                questions.append(CalibrationQuestion(text, q_lang, pid, f"text {pid}"))
    matrix = np.asarray(vectors, dtype=np.float32)
    languages = [p.language for p in passages]
    means = {lang: matrix[[i for i, x in enumerate(languages) if x == lang]].mean(axis=0) for lang in ("en", "fr")}
    handbook = CalibrationHandbook(
        matrix, [p.id for p in passages], languages, [set() for _ in passages], {}, means, asked=asked
    )
    return CalibrationSet(tuple(passages), tuple(questions), (), (("nothing", "en"),)), handbook


def test_the_fit_chooses_from_its_grid_and_reports_why() -> None:
    material, handbook = _material(pull=2.0)
    assert TOPICS >= MIN_CHUNKS_PER_LANGUAGE
    chosen, decision = fit_retrieval(material, handbook, embedder=NoEmbedding(), reference=NEUTRAL)  # type: ignore[arg-type]
    report = decision.report
    assert chosen.centring in GRID and chosen.vector_weight in GRID
    assert dict(decision.thresholds) == {CENTRING: chosen.centring, VECTOR_WEIGHT: chosen.vector_weight}
    assert report["chosen"] == {"centring": chosen.centring, "vector_weight": chosen.vector_weight}
    scores = np.asarray(report["scores"])
    assert scores.shape == (len(GRID), len(GRID))
    at = GRID.index(chosen.centring), GRID.index(chosen.vector_weight)
    assert scores[at] == scores.max()
    assert report["questions"] == {"counted": len(material.questions), "native": 120, "cross_language": 120}
    # The language pull sends every other-language question to a passage of its own language: taking
    # out the language mean is what finds its passage, and the fit sees it.
    assert chosen.centring > 0
    assert report["mrr"]["chosen"]["cross_language"] > report["mrr"]["neutral"]["cross_language"]
    assert abs(report["mrr"]["chosen"]["all"] - scores[at]) <= 1e-4
    assert 0 < report["held_out"]["mrr"] <= 1 and len(report["held_out"]["chosen_per_fold"]) == 5
    # Stored and read back as a policy entry.
    assert Decision.from_json(decision.as_json()) == decision


def test_a_tie_goes_to_the_reference_so_a_refit_keeps_it() -> None:
    """Questions in their passage's language only, a weak pull: every pair ranks every passage
    first, so all tie, and the fit keeps the values it is given as the model's shipped ones."""
    material, handbook = _material(pull=0.1, other_language=False)
    for reference in (RetrievalWeights(0.3, 0.6), NEUTRAL):
        chosen, decision = fit_retrieval(material, handbook, embedder=NoEmbedding(), reference=reference)  # type: ignore[arg-type]
        assert len({x for row in decision.report["scores"] for x in row}) == 1
        assert chosen == reference


def _bilingual(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    space = make_space("people")
    text = "# Award leave\n\nAward leave expires one year after it is issued. Use it before it lapses."
    make_page(space, "Award leave", text, ref="leave")
    make_page(space, "Stationnement", "# Parking\n\nLe parking du bâtiment B a quarante places.", language="fr")
    make_page(space, "Cantine", "# Cantine\n\nLe repas coûte quatre euros.", language="fr")
    return make_user("bob", "staff")


def _store(retrieval_entry: Decision | None) -> None:
    """The bundled model's shipped decisions stored as its calibrated row, with ``retrieval_entry``
    as its retrieval entry (None: a row fitted before the entry existed)."""
    from search.decisions.policy import shipped_policy
    from search.models import DecisionPolicy

    shipped = shipped_policy(LOCAL_MODEL_NAME)
    assert shipped is not None
    decisions = {k: d.as_json() for k, d in shipped.decisions.items() if k != RETRIEVAL}
    if retrieval_entry is not None:
        decisions[RETRIEVAL] = retrieval_entry.as_json()
    DecisionPolicy.objects.update_or_create(model=LOCAL_MODEL_NAME, defaults={"decisions": decisions})
    forget()


@pytest.fixture
def spied(monkeypatch):  # type: ignore[no-untyped-def]
    """What retrieve() centres the query with, and the weight it fuses the plain vector list with."""
    from django.core.cache import cache

    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1)
    cache.clear()
    seen: dict[str, list] = {"centred": [], "weight": []}  # type: ignore[type-arg]

    def centred_query(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = crosslang.centred_query(*args, **kwargs)
        seen["centred"].append((args, kwargs["centring"], result))
        return result

    def fuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen["weight"].append(kwargs["crosslang_vector_weight"])
        return fusion.fuse(*args, **kwargs)

    monkeypatch.setattr(retrieval, "centred_query", centred_query)
    monkeypatch.setattr(retrieval, "fuse", fuse)
    yield seen
    forget()


@pytest.mark.django_db
def test_a_policy_without_the_entry_loads_and_searches_with_neutral_values(
    spied, make_space, make_page, make_user
) -> None:  # type: ignore[no-untyped-def]
    bob = _bilingual(make_space, make_page, make_user)
    _store(None)
    policy = policy_for(LOCAL_MODEL_NAME)
    assert policy is not None and policy.source == "calibrated" and policy.get(RETRIEVAL) is None
    assert retrieval_weights(policy) == NEUTRAL
    found = retrieve_fr(bob)
    assert spied["centred"] and all(centring == NEUTRAL.centring for _a, centring, _r in spied["centred"])
    assert NEUTRAL.centring == 1.0  # nothing fitted: the language mean is taken out whole
    assert found.pages
    assert spied["weight"] == [NEUTRAL.vector_weight]


def retrieve_fr(user):  # type: ignore[no-untyped-def]
    return retrieval.retrieve("quand expire le congé de récompense ?", user)


@pytest.mark.django_db
def test_the_search_centres_the_query_by_the_policy_s_alpha(spied, make_space, make_page, make_user) -> None:  # type: ignore[no-untyped-def]
    bob = _bilingual(make_space, make_page, make_user)
    shipped = retrieval_weights(policy_for(LOCAL_MODEL_NAME))
    other = RetrievalWeights(0.5 if shipped.centring != 0.5 else 0.3, 0.4 if shipped.vector_weight != 0.4 else 0.9)
    units = {}
    for weights in (shipped, other):
        _store(retrieval_decision(weights, {}))
        spied["centred"].clear()
        spied["weight"].clear()
        found = retrieve_fr(bob)
        (args, centring, centred), *_ = spied["centred"]
        assert centring == weights.centring
        assert spied["weight"] == [weights.vector_weight]
        if weights.centring == 0:
            assert centred is None
            continue
        # The vector searched with is the query less α of its language's mean, as the formula says.
        vector, model, language = args[0], args[1], args[2]
        means = {lang: mean for lang, (mean, _n) in crosslang.language_stats(model).items()}
        expected = np.asarray(vector, dtype=np.float32) - weights.centring * means[language]
        assert centred is not None
        assert np.allclose(centred.unit, expected / np.linalg.norm(expected), atol=1e-6)
        assert any(h.crosslang_rank for p in found.pages for h in p.chunks)
        units[weights] = np.asarray(centred.unit)
    if len(units) == 2:
        assert not np.allclose(*units.values())  # another α, another query vector


def test_each_model_reads_its_own_entry(db) -> None:  # type: ignore[no-untyped-def]
    from search.models import DecisionPolicy

    mine = {RetrievalWeights(0.2, 0.5): "model-a", RetrievalWeights(0.9, 1.0): "model-b"}
    for weights, model in mine.items():
        DecisionPolicy.objects.create(model=model, decisions={RETRIEVAL: retrieval_decision(weights, {}).as_json()})
    forget()
    try:
        assert {retrieval_weights(policy_for(model)): model for model in mine.values()} == mine
    finally:
        forget()
