"""The fitted-things loader (core/fitted.py): one copy per process of each fitted thing, read again
after the one change signal — a fitted row saved or deleted here, the shared generation moved by
another process — and, for a change that bypassed the signal, after ``RELOAD_S``."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from core import fitted
from search.ask.quote_learning import learnt_weights
from search.decisions.policy import policy_for
from search.embedding.embedders import LOCAL_MODEL_NAME
from search.models import DecisionPolicy, QuoteRankerFit
from summaries.learnt import current_scorer, shipped_scorer
from summaries.models import SummaryScorerFit

KIND = "test kind"


class Reads:
    """A reader that counts its reads and returns the current count."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, model: str) -> tuple[str, int]:
        self.count += 1
        return model, self.count


def test_every_fitted_store_is_a_fitted_thing_of_its_own_kind() -> None:
    stores = (DecisionPolicy, QuoteRankerFit, SummaryScorerFit)
    assert all(issubclass(store, fitted.FittedThing) for store in stores)
    assert len({store.KIND for store in stores}) == len(stores) and all(store.KIND for store in stores)
    assert all(store._meta.get_field("report").get_internal_type() == "JSONField" for store in stores)


@pytest.mark.django_db
def test_a_copy_is_read_once_and_again_after_a_fit_is_saved_here() -> None:
    read = Reads()
    assert fitted.current(KIND, "m", read) == ("m", 1)
    assert fitted.current(KIND, "m", read) == ("m", 1)  # this process's copy
    assert fitted.current(KIND, "other", read) == ("other", 2)  # one copy per embedding model
    SummaryScorerFit.objects.create(weights={}, report={})
    assert fitted.current(KIND, "m", read) == ("m", 3)


@pytest.mark.django_db
def test_saving_any_other_row_keeps_the_copies(make_user) -> None:  # type: ignore[no-untyped-def]
    read = Reads()
    fitted.current(KIND, "m", read)
    make_user("someone").save()
    assert fitted.current(KIND, "m", read) == ("m", 1)


@pytest.mark.django_db
def test_a_deleted_fit_is_a_change_too() -> None:
    row = QuoteRankerFit.objects.create(model="m", weights={}, report={})
    read = Reads()
    fitted.current(KIND, "m", read)
    row.delete()
    assert fitted.current(KIND, "m", read) == ("m", 2)


@pytest.mark.django_db
def test_a_change_in_another_process_is_read_once_it_moves_the_shared_generation() -> None:
    read = Reads()
    fitted.current(KIND, "m", read)
    cache.add(fitted._GENERATION, 0, timeout=None)
    cache.incr(fitted._GENERATION)  # what another process's commit does; this process's copies stay
    assert fitted.previous(KIND, "m") == (True, ("m", 1))
    assert fitted.current(KIND, "m", read) == ("m", 2)


@pytest.mark.django_db(transaction=True)
def test_the_shared_generation_moves_when_the_fit_is_committed() -> None:
    before = cache.get(fitted._GENERATION) or 0
    SummaryScorerFit.objects.create(weights={}, report={})
    assert (cache.get(fitted._GENERATION) or 0) > before


def test_a_change_that_bypassed_the_signal_is_read_after_reload_s(monkeypatch) -> None:
    read = Reads()
    fitted.current(KIND, "m", read)
    monkeypatch.setattr(fitted, "RELOAD_S", 0.0)
    assert fitted.current(KIND, "m", read) == ("m", 2)


def test_forget_clears_one_kind_or_all() -> None:
    read = Reads()
    fitted.current(KIND, "m", read)
    fitted.current("another kind", "m", read)
    fitted.forget(KIND)
    assert fitted.previous(KIND, "m")[0] is False and fitted.previous("another kind", "m")[0] is True
    fitted.forget()
    assert fitted.previous("another kind", "m")[0] is False


@pytest.mark.django_db
def test_the_three_loaders_keep_their_copies_in_the_one_store() -> None:
    policy, ranker, scorer = policy_for(LOCAL_MODEL_NAME), learnt_weights(LOCAL_MODEL_NAME), current_scorer()
    assert fitted.previous(DecisionPolicy.KIND, LOCAL_MODEL_NAME) == (True, policy)
    assert fitted.previous(QuoteRankerFit.KIND, LOCAL_MODEL_NAME) == (True, ranker)
    assert fitted.previous(SummaryScorerFit.KIND, "") == (True, scorer) and scorer == shipped_scorer()
    fit = SummaryScorerFit.objects.create(weights={"coef": {"page_position": 1.0}}, report={}, in_use=True)
    assert fitted.previous(DecisionPolicy.KIND, LOCAL_MODEL_NAME)[0] is False  # one signal for every kind
    assert current_scorer().label == f"fit {fit.pk}"


@pytest.mark.django_db
def test_a_fit_written_in_another_format_is_left_unread_until_a_fit_writes_it_again() -> None:
    shipped = policy_for(LOCAL_MODEL_NAME)
    assert shipped is not None and shipped.source == "shipped"
    decisions = {name: decision.as_json() for name, decision in shipped.decisions.items()}
    policy = DecisionPolicy.objects.create(model=LOCAL_MODEL_NAME, decisions=decisions, report={})
    ranker = QuoteRankerFit.objects.create(
        model=LOCAL_MODEL_NAME, weights={"coef": [1.0], "pages": []}, report={}, in_use=True
    )
    scorer = SummaryScorerFit.objects.create(weights={"coef": {"page_position": 1.0}}, report={}, in_use=True)
    assert all(row.format_version == type(row).FORMAT for row in (policy, ranker, scorer))
    assert _policy_source() == "calibrated"
    assert learnt_weights(LOCAL_MODEL_NAME) is not None and current_scorer().label == f"fit {scorer.pk}"

    # Rows an older (or newer) fit wrote, in a shape today's code does not read.
    for store in (DecisionPolicy, QuoteRankerFit, SummaryScorerFit):
        store.objects.update(format_version=store.FORMAT + 1)
    fitted.forget()  # a queryset update bypasses the change signal
    assert _policy_source() == "shipped"
    assert learnt_weights(LOCAL_MODEL_NAME) is None and current_scorer() == shipped_scorer()

    policy.save()  # a fit writing the row again writes it in today's format
    policy.refresh_from_db()
    assert policy.format_version == DecisionPolicy.FORMAT
    assert _policy_source() == "calibrated"


def _policy_source() -> str | None:
    served = policy_for(LOCAL_MODEL_NAME)
    return served.source if served is not None else None


@pytest.mark.django_db
def test_summary_weights_fitted_on_the_old_depth_and_short_features_are_left_unread() -> None:
    fit = SummaryScorerFit.objects.create(weights={"coef": {"page_position": 1.0}}, report={}, in_use=True)
    assert current_scorer().label == f"fit {fit.pk}"
    SummaryScorerFit.objects.filter(pk=fit.pk).update(format_version=1)  # as a fit before that change wrote it
    fitted.forget()
    assert current_scorer() == shipped_scorer()


@pytest.mark.django_db
def test_answer_decisions_and_quote_rankers_fitted_on_the_hand_weighted_kind_are_left_unread() -> None:
    """Fits written when Ask's kind evidence was a hand-weighted ``kind`` would read a feature today's
    units no longer have (``kind_held``, ±1): such rows serve nothing until a refit writes them again."""
    shipped = policy_for(LOCAL_MODEL_NAME)
    assert shipped is not None
    decisions = {name: decision.as_json() for name, decision in shipped.decisions.items()}
    DecisionPolicy.objects.create(model=LOCAL_MODEL_NAME, decisions=decisions, report={})
    QuoteRankerFit.objects.create(model=LOCAL_MODEL_NAME, weights={"coef": [1.0], "pages": []}, report={}, in_use=True)
    assert _policy_source() == "calibrated" and learnt_weights(LOCAL_MODEL_NAME) is not None
    for store in (DecisionPolicy, QuoteRankerFit):
        store.objects.update(format_version=1)  # as a fit before that change wrote it
    fitted.forget()
    assert _policy_source() == "shipped" and learnt_weights(LOCAL_MODEL_NAME) is None
