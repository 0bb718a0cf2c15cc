"""Fit the decisions of an embedding model and store them as its policy."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.utils import timezone

from search.calibration.answer_fit import fit_answer_decision
from search.calibration.calibration_set import calibration_set
from search.calibration.page_fit import fit_page_decision
from search.calibration.query_fit import calibration_handbook, fit_query_decision
from search.calibration.retrieval_fit import fit_retrieval
from search.calibration.same_question_fit import SAME_QUESTION, fit_same_question
from search.calibration.statement_fit import fit_statement_check
from search.decisions.answer import ANSWER
from search.decisions.policy import has_policy, shipped_path, shipped_policy
from search.decisions.query import PAGE, QUERY
from search.decisions.retrieval import RETRIEVAL, retrieval_weights
from search.decisions.statement_floor import STATEMENT_CHECK
from search.embedding.embedders import Embedder, get_embedder
from search.models import DecisionPolicy

logger = logging.getLogger(__name__)


def fit_policy(embedder: Embedder, extra: Iterable[Path] = (), *, shipped: bool = True) -> dict[str, Any]:
    """The decisions of ``embedder``'s model fitted on the shipped material (unless ``shipped`` is False)
    and ``extra``, as data."""
    started = time.monotonic()
    extra = list(extra)
    material = calibration_set(extra, shipped=shipped)
    handbook = calibration_handbook(material, embedder)
    # First: the query decision's centred floor is a similarity to the query centred by this α.
    # A tie goes to the values shipped for the model, so that a refit keeps them.
    reference = retrieval_weights(shipped_policy(embedder.model_name))
    weights, retrieval = fit_retrieval(material, handbook, embedder, reference)
    query, _examples = fit_query_decision(material, handbook, embedder, weights.centring)
    answer = fit_answer_decision(material, handbook, embedder)
    same = fit_same_question(material, handbook, embedder)
    page = fit_page_decision(material, handbook, embedder)
    return {
        "model": embedder.model_name,
        "decisions": {
            QUERY: query.as_json(),
            PAGE: page.as_json(),
            ANSWER: answer.as_json(),
            SAME_QUESTION: same.as_json(),
            # The sentence check's floor is fitted on shipped sentences only (none with --only).
            **({STATEMENT_CHECK: fit_statement_check(embedder).as_json()} if shipped else {}),
            RETRIEVAL: retrieval.as_json(),
        },
        "report": {
            "fitted_at": timezone.now().isoformat(timespec="seconds"),
            "calibration_set": {
                "digest": material.digest(),
                **material.counts(),
                "shipped": shipped,
                "extra": [str(p) for p in extra],
            },
            "seconds": round(time.monotonic() - started, 1),
        },
    }


def calibrate(embedder: Embedder, extra: Iterable[Path] = (), *, shipped: bool = True) -> DecisionPolicy:
    """Fit and store the policy of ``embedder``'s model; every process reads it again once it is committed."""
    body = fit_policy(embedder, list(extra), shipped=shipped)
    row, _created = DecisionPolicy.objects.update_or_create(
        model=body["model"], defaults={"decisions": body["decisions"], "report": body["report"]}
    )
    logger.info("decision policy of %s fitted in %.1f s", body["model"], body["report"]["seconds"])
    return row


def write_shipped(embedder: Embedder) -> Path:
    """The bundled model's policy as the file a fresh install starts from."""
    body = fit_policy(embedder)
    path = shipped_path(body["model"])
    path.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def calibrate_if_missing(model: str) -> bool:
    """Fit ``model``'s policy if it is the configured model and has none (calibrated or shipped)."""
    embedder = get_embedder()
    if embedder is None or embedder.model_name != model:
        return False
    if has_policy(model):
        return False
    calibrate(embedder)
    return True
