"""The languages the handbook knows: the one registry every module reads.

Adding a language is one ``Language`` entry here plus a migration (the page language
choices and the per-language full-text indexes of ``search/models.py`` follow this list).
A page in any other language is still stored, searched with PostgreSQL's ``simple``
configuration and found by meaning.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Language:
    code: str  # ISO 639-1, as stored on pages and chunks
    name: str  # in English, for prompts ("Answer in French")
    native_name: str  # as the language calls itself, for choices in the interface
    text_search_config: str  # PostgreSQL full-text configuration
    stopwords: frozenset[str]  # folded (no accents), lowercase
    no_answer: str  # Ask's reply when the handbook does not answer, in this language
    question_openers: frozenset[str]  # first words of a question ("how", "combien"): the search page offers Ask


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Stop-words: folded (no accents), lowercase.
_EN_STOPWORDS = """
a about above after again against all also am an and any are aren as at
be because been before being below between both but by
can cannot could couldn
d did didn do does doesn doing don down during
each either else etc eg ever every few for from further
get gets got had hadn has hasn have haven having he her here hers herself him
himself his how however i ie if in into is isn it its itself just
ll let lets m ma may me might mightn more most must mustn my myself
need needn neither no nor not now o of off on once one only or other others
our ours ourselves out over own
please re s same shall shan she should shouldn since so some such
t than that the their theirs them themselves then there these they this those
through thus to too under until up upon us
ve very via was wasn we were weren what whats when where whether which while
who whom whose why will with within without won would wouldn
y yes yet you your yours yourself yourselves
anyone anything everyone everything someone something
"""

_FR_STOPWORDS = """
a afin ai aie aient aies ait alors apres as au aupres aussi autre autres aux
avaient avais avait avant avec avez aviez avions avoir avons ayant ayez ayons
bien c ca car ce ceci cela celle celles celui cependant ces cet cette ceux
chaque chez combien comme comment d dans de depuis des doit doivent dois donc
deja dont du elle elles en encore ensuite entre es est et etaient etais etait etant etc
ete etes etiez etions etre eu eue eues eurent eus eut eux ex
fait faire faut fois furent fut
ici il ils j je jusqu jusque l la laquelle le lequel les lesquelles lesquels
leur leurs lorsqu lorsque lui m ma mais me meme mes moi moins mon
n ne ni non nos notre nous on ont or ou oui
par parce parmi pas pendant peu peut peuvent peux plus pour pourquoi
pouvez pouvons puis puisqu puisque
qu quand que quel quelle quelles quels qui quoi quelqu quelque quelques
s sa sans se selon sera serai seraient serais serait seras serez seriez
serions serons seront ses si soi soient sois soit sommes son sont sous soyez
soyons suis sur t ta te tes toi ton tous tout toute toutes tres trop tu
un une vers via voici voila vos votre vous y
"""

ENGLISH = Language(
    code="en",
    name="English",
    native_name="English",
    text_search_config="english",
    stopwords=_words(_EN_STOPWORDS),
    no_answer="The handbook doesn't seem to answer this question.",
    question_openers=_words(
        "what how when where who whom why which can could do does did is are should may must will would am"
    ),
)

FRENCH = Language(
    code="fr",
    name="French",
    native_name="Français",
    text_search_config="french",
    stopwords=_words(_FR_STOPWORDS),
    no_answer="Le manuel ne semble pas répondre à cette question.",
    question_openers=_words(
        "comment pourquoi quand où qui quel quelle quels quelles combien est-ce puis-je peut-on dois-je faut-il"
        " quoi qu'est-ce qu’est-ce lequel laquelle peut-il peut-elle ai-je suis-je"
    ),
)

LANGUAGES: tuple[Language, ...] = (ENGLISH, FRENCH)
DEFAULT = ENGLISH
CODES: tuple[str, ...] = tuple(language.code for language in LANGUAGES)
CHOICES: list[tuple[str, str]] = [(language.code, language.native_name) for language in LANGUAGES]
NAMES: dict[str, str] = {language.code: language.name for language in LANGUAGES}
TEXT_SEARCH_CONFIGS: dict[str, str] = {language.code: language.text_search_config for language in LANGUAGES}
OTHER_TEXT_SEARCH_CONFIG = "simple"  # pages in a language not listed here
STOPWORDS: dict[str, frozenset[str]] = {language.code: language.stopwords for language in LANGUAGES}
ALL_STOPWORDS: frozenset[str] = frozenset().union(*STOPWORDS.values())
QUESTION_OPENERS: frozenset[str] = frozenset().union(*(language.question_openers for language in LANGUAGES))


def text_search_config(code: str) -> str:
    """The PostgreSQL configuration for pages in ``code`` (``simple`` for a language not listed)."""
    return TEXT_SEARCH_CONFIGS.get(code, OTHER_TEXT_SEARCH_CONFIG)


# py3langid's confidence from which its guess is trusted (``core/text.py``), with its fit report:
# fitted on the calibration material's labelled texts by ``manage.py fit_language_identifier``.
IDENTIFIER_FIT = Path(__file__).with_name("language_identifier.json")


@functools.cache
def identifier_min_confidence() -> float:
    """The fitted confidence from which py3langid's guess of a text's language is trusted."""
    return float(json.loads(IDENTIFIER_FIT.read_text(encoding="utf-8"))["min_confidence"])
