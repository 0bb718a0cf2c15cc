"""The retrieval entry of a policy: how the meaning lists are formed and weighed for one model.

Two numbers that only hold for the embedding model they were fitted on
(``search/calibration/retrieval_fit.py``):

- ``centring``: α in the language-centred query ``q' = q - α μ_q`` (``search/retrieval/crosslang.py``).
  How strong a language's pull is differs from model to model; 0 means no language-centred list;
- ``vector_weight``: the reciprocal-rank-fusion weight of the plain vector list when the
  language-centred list runs beside it (``search/retrieval/fusion.py``): the plain list is pulled
  toward the question's language, by how much depends on the model.

A policy without this entry (one fitted before it existed, or none at all) gets the values that
assume nothing of the model: each language's mean taken out whole (plain mean-centring) and every
list weighed alike. Measured against no language-centred list at all by bench.no_policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from search.decisions.policy import Decision, Policy

RETRIEVAL = "retrieval"
CENTRING = "centring"
VECTOR_WEIGHT = "vector_weight"


@dataclass(frozen=True)
class RetrievalWeights:
    centring: float  # α: the share of the question language's mean vector taken out of the query
    vector_weight: float  # the plain vector list's fusion weight beside the language-centred list


NEUTRAL = RetrievalWeights(centring=1.0, vector_weight=1.0)


def retrieval_weights(policy: Policy | None) -> RetrievalWeights:
    """The model's fitted retrieval numbers, or the neutral ones when its policy has none."""
    decision = policy.get(RETRIEVAL) if policy else None
    if decision is None:
        return NEUTRAL
    return RetrievalWeights(
        centring=float(decision.thresholds.get(CENTRING, NEUTRAL.centring)),
        vector_weight=float(decision.thresholds.get(VECTOR_WEIGHT, NEUTRAL.vector_weight)),
    )


def retrieval_decision(weights: RetrievalWeights, report: Mapping[str, Any]) -> Decision:
    """The entry as a policy stores its decisions: no features, the two numbers by name, the fit report."""
    return Decision((), (), 0.0, {CENTRING: weights.centring, VECTOR_WEIGHT: weights.vector_weight}, report)
