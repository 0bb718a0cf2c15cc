"""What a question asks for, and whether a unit holds that kind of thing.

"When / quand" wants a date or a day ("the last working day of the month", "le 20"), "how much /
combien coûte" an amount with its unit, "how many / combien de" a number with what it counts, "how
long", a limit or a duration some number, "who / à qui" a person, team or address, "where" a place,
tool or link. A table row holds what its cells hold, each named by its column header
(``statements/answer_units.py``): "Days: 27" is a number of days.

``kind_match`` says whether a unit holds the kind asked: 1 when it does, -1 when a kind was asked and
the unit holds none of it, 0 when the question asks for nothing in particular: a feature whose weight a
fit of the answer decision learns, with no number of this module. ``bench/ask_kind.py`` fits the
decision with and without it and gives the share of held-out answers of the right kind; the shipped
decision still reads the ``kind`` it was fitted on (``search/ask/fitted_kind.py``).
"""

from __future__ import annotations

import re

from core.text import fold_accents
from statements.answer_units import Unit

WHEN = "when"
HOW_MUCH = "how much"
HOW_MANY = "how many"
NUMBER = "number"  # how long, how often, a limit or a duration: some number
WHO = "who"
WHERE = "where"
KINDS = (WHEN, HOW_MUCH, HOW_MANY, NUMBER, WHO, WHERE)

# --- What the question asks for (lower case, accents folded) --------------------------------

_WHEN_Q = re.compile(
    r"\b(?:when|by when|until when|what (?:day|date|time|month)|which (?:day|date|month)|on what (?:day|date)|"
    r"how soon|deadline|due date|quand|jusqu'a quand|a partir de quand|depuis quand|"
    r"a quel(?:le)? (?:date|heure|moment)|"
    r"quel(?:le)? (?:jour|date|mois|heure)|dates?|date limite|a quelle periode)\b"
)
_MONEY_NOUN = (
    r"(?:amount|cost|costs|price|fee|fees|rate|salary|budget|allowance|per diem|reimbursement|refund|"
    r"montant|cout|prix|tarif|bareme|frais|salaire|indemnite|remboursement|plafond|argent|euros?)"
)
_HOW_MUCH_Q = re.compile(
    r"\bhow much\b(?! (?:time|leave|notice|holiday|vacation|annual|paid|sick)\b)|\bcombien (?:coute|coutent|ca coute|"
    r"est (?:rembourse|paye|verse)|sont (?:rembourses|payes|verses)|(?:je |on )?(?:suis|est|touche|recois|percoit|"
    r"paie|paye|gagne)|d'argent|de budget|d'euros)|"
    rf"\b(?:what|which) (?:is|are) (?:the |my |our )?(?:\w+ )?{_MONEY_NOUN}\b|"
    rf"\bquel(?:le)?s? (?:est |sont )?(?:le |la |les |l')?{_MONEY_NOUN}\b|\b{_MONEY_NOUN}\b"
)
_HOW_MANY_Q = re.compile(
    r"\bhow many\b|\bnumber of\b|\bnombre (?:de|d')|\bquel nombre\b|\bcombien (?:de|d')(?! ?temps\b)"
)
_NUMBER_Q = re.compile(
    r"\b(?:how (?:long|far|often|old|much|big|large)|combien(?: de temps)?|what (?:is|are) the (?:\w+ )?"
    r"(?:limit|minimum|maximum|duration|length|size|percentage)|quel(?:le)?s? (?:est |sont )?(?:le |la |les |l')?"
    r"(?:duree|delai|limite|minimum|maximum|frequence|taille|pourcentage)|minimum|maximum|limit|limits|"
    r"duree|delai|length|frequence|frequency)\b"
)
_WHO_Q = re.compile(
    r"\b(?:who|whom|who's|which (?:team|person|people|department|manager|service)|(?:^|\b(?:a|aupres de|par|"
    r"avec|chez|de) )qui\b|qui (?:contacter|valide|approuve|signe|gere|decide|dois|doit|peut|est|sont|s'occupe|"
    r"appeler|prevenir)|quel(?:le)?s? (?:equipe|service|personne|interlocuteur|contact|referent|manager)|"
    r"contact (?:for|about)|(?:email|e-mail|mail) address)"
)
_WHERE_Q = re.compile(
    r"\b(?:where|ou (?:est|sont|trouver|se|puis|dois|faut|envoyer|deposer)|which (?:tool|channel|app|site|page|"
    r"form|address|system)|quel(?:le)? (?:outil|canal|site|formulaire|application|adresse|salon|logiciel)|url|"
    r"link|lien)\b"
)

# --- What a unit holds (its text as written, accents folded) --------------------------------

_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    r"hundred|half|dozen|un|une|deux|trois|quatre|cinq|sept|huit|neuf|dix|onze|douze|quinze|vingt|trente|"
    r"quarante|cinquante|cent|moitie"
)
_NUMBER = re.compile(rf"\d|\b(?:{_NUMBER_WORDS})\b")
# A number, then within a few words what it counts: "27 working days", "deux jours", "12 people"; or a
# table row's cell named by its header: "Days: 27".
_COUNT = re.compile(
    rf"(?:\d+(?:[.,]\d+)?|\b(?:{_NUMBER_WORDS}))\s+(?:[^\W\d_]+\s+){{0,2}}?[^\W\d_]{{3,}}|[^\W\d_]{{3,}}: \d"
)
_AMOUNT = re.compile(
    r"[€$£¥%]|\b\d+(?:[.,]\d+)?\s?(?:eur|euros?|usd|dollars?|gbp|pounds?|chf|cents?|centimes?|km|kg|g|gb|go|"
    r"mb|tb|ml|l|m2|m²|m|cm|mm|kwh|per ?cent|pour ?cent)\b|\b(?:per ?cent|pour ?cent|percent)\b"
)
_WEEKDAYS = (
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche"
)
_MONTHS = (
    r"january|february|march|april|june|july|august|september|october|november|december|janvier|fevrier|mars|"
    r"avril|mai|juin|juillet|aout|septembre|octobre|novembre|decembre"
)
_PERIOD = (
    r"(?:day|days|week|weeks|month|months|year|years|hour|hours|jour|jours|semaine|semaines|mois|an|ans|annee|"
    r"annees|heure|heures)"
)
_WHEN = re.compile(
    rf"\b(?:{_WEEKDAYS}|{_MONTHS})s?\b|\bMay\b|\b\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|"
    r"\b(?:19|20)\d\d\b|\b\d{1,2}(?:st|nd|rd|th|er|e)\b|\b(?:le|du|au|avant le|jusqu'au) (?:1er|\d{1,2})\b|"
    r"\b(?:last|first|final) (?:working |business |calendar )?(?:day|week|monday|friday)\b|"
    r"\b(?:dernier|premier) (?:jour|lundi|vendredi)(?: ouvre| ouvrable)?\b|"
    r"\b(?:end|start|beginning|middle) of (?:the |each |every )?(?:day|week|month|quarter|year)\b|"
    r"\b(?:fin|debut|milieu) (?:du |de la |de l'|de chaque )?(?:mois|semaine|trimestre|annee|journee)\b|"
    rf"\b(?:every|each|chaque|tous les|toutes les) (?:other )?(?:\d+ )?(?:{_PERIOD}|{_WEEKDAYS}|morning|matin)s?\b|"
    r"\b(?:daily|weekly|monthly|quarterly|yearly|annually|quotidien\w*|hebdomadaire\w*|mensuel\w*|trimestriel\w*|"
    r"annuel\w*)\b|"
    rf"\b(?:within|in the|before|after|prior to|dans les|sous|avant|apres|au plus tard) (?:\d+|{_NUMBER_WORDS}) "
    rf"(?:working |business |calendar |jours? ouvr\w+ )?{_PERIOD}\b|"
    rf"\b\d+ (?:working |business |calendar )?{_PERIOD} (?:before|after|of|from|prior|avant|apres)\b|"
    r"\b\d{1,2}(?::\d{2}| ?h ?\d{0,2}| ?(?:am|pm))\b|\b(?:noon|midnight|midi|minuit|today|tomorrow|tonight|"
    r"aujourd'hui|demain|weekend|week-end|public holidays?|jours? feries?)\b|\bq[1-4]\b"
)
_ROLE = re.compile(
    r"@|\b(?:team|teams|manager|managers|supervisor|lead|officer|hr|people ?ops|finance|admin|administrator|"
    r"coordinator|contact|owner|director|head of|department|desk|helpdesk|help desk|colleague|equipe|responsable|"
    r"referent|service|rh|direction|gestionnaire|coach|administrateur|support|secretariat|directeur|directrice|"
    r"interlocuteur|correspondant)\b"
)
_PERSON = re.compile(r"(?<=\s)[A-Z][a-z]+ [A-Z][a-z]+\b")  # "ask Marie Dupont": a name past the first word
_PLACE = re.compile(r"https?://|www\.|\.\w{2,4}\b|#\w|→|›|\b(?:channel|canal|salon|portal|portail|site|page)\b")


def asked_kind(question: str) -> str:
    """What the question asks for: one of ``KINDS``, or "" (anything)."""
    folded = " ".join(fold_accents(question).lower().split())
    for kind, pattern in (
        (WHEN, _WHEN_Q),
        (HOW_MUCH, _HOW_MUCH_Q),
        (HOW_MANY, _HOW_MANY_Q),
        (NUMBER, _NUMBER_Q),
        (WHO, _WHO_Q),
        (WHERE, _WHERE_Q),
    ):
        if pattern.search(folded):
            return kind
    return ""


def holds(kind: str, unit: Unit) -> bool:
    """Whether ``unit`` holds the ``kind`` of thing asked (a table row: any of its cells)."""
    text = fold_accents(unit.text)
    lower = text.lower()
    if kind == WHEN:
        return bool(_WHEN.search(lower) or _WHEN.search(text))
    if kind == HOW_MUCH:
        return bool(_AMOUNT.search(lower))
    if kind == HOW_MANY:
        return bool(_COUNT.search(lower)) or _row_counts(unit)
    if kind == NUMBER:
        return bool(_NUMBER.search(lower))
    if kind == WHO:
        return bool(_ROLE.search(lower) or _PERSON.search(text))
    if kind == WHERE:
        return unit.has_link or bool(_PLACE.search(unit.text))
    return False


def _row_counts(unit: Unit) -> bool:
    """A table row holding a number in a cell whose column header says what it counts ("Days: 27")."""
    return unit.kind == "row" and any(
        _NUMBER.search(fold_accents(cell).lower()) and i < len(unit.header) and unit.header[i].strip()
        for i, cell in enumerate(unit.cells)
    )


def kind_match(asked: str, unit: Unit) -> float:
    """1 when ``unit`` holds the kind asked, -1 when a kind was asked and it holds none, 0 when nothing
    in particular is asked."""
    if not asked:
        return 0.0
    return 1.0 if holds(asked, unit) else -1.0
