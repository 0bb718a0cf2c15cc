"""The ``kind_held`` feature the shipped answer decision reads: a number for a quantity question, a person
or team for "who", a place or link for "where": 1 when the unit holds it, -1 when a quantity is asked
and it holds no number, 0 otherwise. Its weight is the answer decision's, fitted.

The finer detection of the kind asked (``search/ask/asked_kind.py``: "when", "how much", "how many",
"who") and its ``kind_match`` feature, fitted instead of this weight, were measured on the
calibration material (``bench/ask_kind.py``) and not adopted: the fit did not keep every held-out
figure of the sure answers. Until a fit that does, the decision reads this feature.
"""

from __future__ import annotations

import re

from core.text import words
from statements.answer_units import Unit

# What the question asks for, by its words (English and French, accents folded, lower case).
_QUANTITY_RE = re.compile(
    r"\b(?:how (?:many|much|long|far|often|old|soon)|combien|what (?:is|are) the (?:\w+ )?(?:amount|number|limit|"
    r"rate|cost|price|minimum|maximum|deadline|duration)|quel(?:le)?s? (?:est |sont )?(?:le |la |les |l')?"
    r"(?:montant|nombre|duree|delai|plafond|taux|prix|cout|limite|minimum|maximum|tarif|bareme|frequence)|"
    r"minimum|maximum|max|min|limit|limits|plafond|montant|amount|duree|delai|deadline|per diem|rate|taux|"
    r"when|quand|date|how far in advance|length)\b"
)
_WHO_RE = re.compile(r"\b(?:who|whom|qui|a qui|which (?:team|person|people)|quel(?:le)? (?:equipe|service|personne))\b")
_WHERE_RE = re.compile(
    r"\b(?:where|ou (?:est|sont|trouver|se|puis|dois|faut)|which (?:tool|channel|app|site|page|form|address)|"
    r"quel(?:le)? (?:outil|canal|site|formulaire|application|adresse|salon)|url|link|lien|address|adresse)\b"
)
_NUMBER_RE = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|half|"
    r"dozen|hundred|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze|quinze|vingt|trente|"
    r"moitie|cent)\b"
)
_ROLE_RE = re.compile(
    r"@|\b(?:team|teams|manager|supervisor|lead|officer|hr|people ?ops|finance|admin|administrator|"
    r"coordinator|contact|owner|equipe|responsable|referent|service|rh|direction|gestionnaire|coach|"
    r"administrateur|support)\b"
)
_PLACE_RE = re.compile(r"https?://|www\.|\.\w{2,4}\b|#\w|→|›|\b(?:channel|canal|salon|portal|portail|site|page)\b")


def feature_kind(question: str) -> str:
    """What the question asks for: "quantity", "who", "where" or "" (anything)."""
    folded = " ".join(words(question))
    if _QUANTITY_RE.search(folded):
        return "quantity"
    if _WHO_RE.search(folded):
        return "who"
    if _WHERE_RE.search(folded):
        return "where"
    return ""


def kind_score(asked: str, unit: Unit) -> float:
    if not asked:
        return 0.0
    text = " ".join(words(unit.text))
    if asked == "quantity":
        return 1.0 if _NUMBER_RE.search(text) else -1.0
    if asked == "who":
        return 1.0 if _ROLE_RE.search(text.lower()) or "@" in unit.text else 0.0
    if asked == "where":
        return 1.0 if unit.has_link or _PLACE_RE.search(unit.text) else 0.0
    return 0.0
