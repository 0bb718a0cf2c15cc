"""A small bilingual handbook with a hidden space, indexed for retrieval tests (keyword only or hybrid).

Its fixtures, ``kw`` and ``hybrid``, are in ``tests/search/conftest.py``.
"""

from __future__ import annotations

from search.retrieval.hits import ChunkHit, Filters
from search.retrieval.keyword import keyword_leg
from search.retrieval.pipeline import retrieve
from search.retrieval.query import parse_query
from tests.readers import visible_page_ids

PAGES = {
    # ref: (space, title, body, language, restricted_to)
    "remote": (
        "people",
        "Remote work",
        "# Remote work\n\nEmployees may work from home two days per week once the trial period is over. "
        "Agree the days with your manager.",
        "en",
        (),
    ),
    "teletravail": (
        "people",
        "Télétravail",
        "# Télétravail\n\nLe télétravail est possible deux jours par semaine après la période "
        "d'essai. Les jours sont fixés avec votre responsable.",
        "fr",
        (),
    ),
    "conges": (
        "people",
        "Congés payés",
        "# Congés payés\n\nChaque salarié bénéficie de vingt-cinq jours de congés payés par an. "
        "On peut reporter cinq jours sur l'année suivante.",
        "fr",
        (),
    ),
    "parking": (
        "people",
        "Parking",
        "# Parking\n\nThe garage under building B has forty spaces. Badges open the gate from seven to eight.",
        "en",
        (),
    ),
    "access": (
        "people",
        "Office access",
        "# Office access\n\nBadges open every door. Visitors sign in at reception; parking for visitors "
        "is on the street.",
        "en",
        (),
    ),
    "expenses": (
        "finance",
        "Expense reports",
        "# Expense reports\n\nSubmit receipts within thirty days. Taxi and train tickets are reimbursed "
        "when you travel for work.",
        "en",
        (),
    ),
    "salary": (
        "payroll",
        "Salary bands",
        "# Salary bands\n\nCANARY remote work allowance: employees who work from home receive forty euros "
        "per month. Parking badges and congés payés are not covered.",
        "en",
        ("payroll",),
    ),
    "dismissal": (
        "hr-confidential",
        "Dismissal procedure",
        "# Dismissal procedure\n\nCANARY remote work cannot be withdrawn as a sanction. Parking badges "
        "are returned on the last day.",
        "en",
        (),
    ),
}
SECRET = {"salary", "dismissal"}


SPACES = {
    # slug: (viewers, editors)
    "people": (("staff",), ("hr",)),
    "finance": (("staff",), ("finance",)),
    "payroll": (("staff",), ("payroll",)),
    "hr-confidential": (("hr",), ("hr",)),
}


def build(make_space, make_page, make_user, only: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    """The handbook of ``PAGES`` (or of the pages named in ``only``, and their spaces), Bob and Alice."""
    chosen = {ref: PAGES[ref] for ref in only or PAGES}
    used = dict.fromkeys(space for space, *_rest in chosen.values())
    spaces = {
        slug: make_space(slug, viewers=viewers, editors=editors)
        for slug, (viewers, editors) in SPACES.items()
        if slug in used
    }
    pages = {
        ref: make_page(spaces[space], title, body, language=lang, restricted_to=restricted, ref=ref)
        for ref, (space, title, body, lang, restricted) in chosen.items()
    }
    return {
        "pages": pages,
        "ids": {ref: page.pk for ref, page in pages.items()},
        "bob": make_user("bob", "staff"),
        "alice": make_user("alice", "staff", "hr", "payroll"),
    }


def add_page(world, make_page, ref: str, title: str, body: str, **kw):  # type: ignore[no-untyped-def]
    """One more page in the space of "remote", known to ``refs`` and ``found`` by ``ref``."""
    page = make_page(world["pages"]["remote"].space, title, body, ref=ref, **kw)
    world["ids"][ref] = page.pk
    return page


def refs(world, page_ids) -> list[str]:  # type: ignore[no-untyped-def]
    by_id = {v: k for k, v in world["ids"].items()}
    return [by_id[i] for i in page_ids]


def found(world, query: str, user=None, **kw) -> list[str]:  # type: ignore[no-untyped-def]
    return refs(world, [p.page_id for p in retrieve(query, user or world["bob"], **kw).pages])


def kw_leg(world, query: str, user=None, filters=None) -> list[ChunkHit]:  # type: ignore[no-untyped-def]
    return keyword_leg(parse_query(query), visible_page_ids(user or world["bob"]), filters or Filters())
