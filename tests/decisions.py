"""Literal decisions stored as the bundled model's policy, for tests that need one locally
(every other test runs the shipped policy, as production does)."""

from __future__ import annotations

from search.decisions.policy import Decision, forget, policy_for
from search.decisions.query import QUERY
from search.embedding.embedders import LOCAL_MODEL_NAME


def store(name: str, decision: Decision, model: str = LOCAL_MODEL_NAME) -> None:
    """``decision`` replaces the model's decision ``name`` (the others stay as its policy has them)."""
    from search.models import DecisionPolicy

    policy = policy_for(model)
    decisions = {key: d.as_json() for key, d in policy.decisions.items()} if policy else {}
    DecisionPolicy.objects.update_or_create(
        model=model, defaults={"decisions": {**decisions, name: decision.as_json()}}
    )
    forget()


def query_decision(
    weights: dict[str, float], intercept: float, *, result: float = 0.5, clearly_off: float = 0.0
) -> Decision:
    """A query decision over the named features of ``QueryFeatures.values()`` (any of them: ``nearest``
    too, which the fitted decision does not use) with these weights, and no vector floor."""
    thresholds = {"result": result, "clearly_off": clearly_off, "vector_floor": -1.0, "centred_floor": -1.0}
    return Decision(tuple(weights), tuple(weights.values()), intercept, thresholds)


def every_neighbour() -> None:
    """Every query means something here and every nearest neighbour is a hit (for tests about the lists)."""
    store(QUERY, query_decision({}, intercept=1.0))
