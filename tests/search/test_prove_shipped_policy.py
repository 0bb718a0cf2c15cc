"""The bundled model's shipped policy is what ``calibrate --ship`` fits today (``make prove``).

A fresh install serves the shipped file until its model is calibrated. When a change to the code
the fits run through (the language identifier, the word translation, a unit's features) is not
followed by ``calibrate --ship``, the installs serve a decision that no run of the code makes, and
the first refit moves every threshold. The fit takes a minute over the shipped material, so it is a
proof rather than part of ``make test``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from search.calibration.services import fit_policy
from search.decisions.policy import shipped_path
from search.embedding.embedders import LOCAL_MODEL_NAME, get_embedder

pytestmark = [pytest.mark.prove, pytest.mark.django_db]

# When and how long: the only parts of a fit that a rerun of the same code on the same material changes.
RUN_OF_THE_FIT = {("report", "fitted_at"), ("report", "seconds")}


def _leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, (*path, str(key)))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from _leaves(inner, (*path, str(i)))
    else:
        yield path, value


def _same(shipped: Any, fitted: Any) -> bool:
    """Equal, numbers to within the rounding of a fit computed on another processor."""
    if isinstance(shipped, bool) or not isinstance(shipped, int | float):
        return bool(shipped == fitted)
    return bool(fitted == pytest.approx(shipped, rel=1e-3, abs=1e-4))


def test_the_shipped_policy_is_what_todays_code_fits() -> None:
    embedder = get_embedder()
    assert embedder is not None and embedder.model_name == LOCAL_MODEL_NAME
    shipped = dict(_leaves(json.loads(shipped_path(LOCAL_MODEL_NAME).read_text(encoding="utf-8"))))
    fitted = dict(_leaves(fit_policy(embedder)))
    assert shipped.keys() == fitted.keys()
    differ = {
        "/".join(path): (shipped[path], value)
        for path, value in fitted.items()
        if path not in RUN_OF_THE_FIT and not _same(shipped[path], value)
    }
    assert not differ, f"run `python manage.py calibrate --ship`: the shipped policy is stale {differ}"
