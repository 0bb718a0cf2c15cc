"""Editors' picks of summary sentences: what the picker lists, what a page shows, and saving.

A pick holds unit addresses on one revision. It is the page's summary while the published text
is that revision's text; after an edit the chosen summary returns, flagged, until an editor
picks again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from handbook.models import Page
from summaries.features import quotable_units, unit_hash
from summaries.models import SummaryPick
from summaries.scorer_fit import refit_enqueue
from summaries.selectors import source_hash


class PickError(ValueError):
    """A pick that cannot be saved; the message is shown to the editor as it is."""


@dataclass(frozen=True)
class PickerUnit:
    hash: str
    text: str
    kind: str  # "sentence" | "item" | "row"
    ticked: bool


@dataclass(frozen=True)
class PageUnits:
    """What a page shows of its pick: the picked units' text while the pick is current."""

    pick: SummaryPick | None
    current: bool
    texts: list[str]


def _units_of(revision: Any) -> list[tuple[str, str, str]]:
    """(address, text, kind) of each unit of a revision, first occurrence of each address only."""
    seen: dict[str, tuple[str, str, str]] = {}
    for unit in quotable_units(revision.body):
        seen.setdefault(unit_hash(unit.text), (unit_hash(unit.text), unit.text, unit.kind))
    return list(seen.values())


def pick_of_page(page: Page) -> PageUnits:
    """The page's pick and whether it still describes the published text. Callers have checked
    the reader may read the page (the summary tag does)."""
    pick = SummaryPick.objects.filter(page=page).select_related("revision", "editor").first()
    published = page.published_revision
    if pick is None or published is None:
        return PageUnits(pick, False, [])
    if source_hash(pick.revision.title, pick.revision.body) != source_hash(published.title, published.body):
        return PageUnits(pick, False, [])
    picked = set(pick.units)
    return PageUnits(pick, True, [text for address, text, _kind in _units_of(published) if address in picked])


def picker_units(page: Page, state: PageUnits) -> list[PickerUnit]:
    """Every unit of the published text, ticked where the current pick has it."""
    if page.published_revision is None:
        return []
    ticked = set(state.pick.units) if state.pick is not None and state.current else set()
    return [PickerUnit(a, text, kind, a in ticked) for a, text, kind in _units_of(page.published_revision)]


def summary_pick_save(*, page: Page, editor: Any, revision_id: int, units: list[str]) -> SummaryPick | None:
    """Save the editor's pick on the published revision (None when they untick everything).

    Callers have checked the editor may edit the page. ``revision_id`` is the revision the editor
    saw: a pick made on text since replaced is refused, not applied to sentences they never read.
    """
    published = page.published_revision
    if published is None or published.pk != revision_id:
        raise PickError(_("The page changed while you were choosing: reload it and pick again."))
    known = {address for address, _text, _kind in _units_of(published)}
    unknown = [u for u in units if u not in known]
    if unknown:
        raise PickError(_("Some ticked sentences are not on the published page: reload it and pick again."))
    ordered = [address for address, _text, _kind in _units_of(published) if address in set(units)]
    with transaction.atomic():
        if not ordered:
            SummaryPick.objects.filter(page=page).delete()
            pick = None
        else:
            pick, _created = SummaryPick.objects.update_or_create(
                page=page,
                defaults={"revision": published, "units": ordered, "editor": editor, "picked_at": timezone.now()},
            )
        refit_enqueue()
    return pick
