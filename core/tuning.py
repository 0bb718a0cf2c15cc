"""The numbers chosen by hand that change what readers see, each with why it is not fitted.

Every other number that ranks, keeps or refuses is fitted: per embedding model by ``manage.py
calibrate`` (the policy: search/decisions/), or from editors' picks (the summary weights, Ask's
quote ranker). The numbers here either have no material to be fitted from yet, or were tried as
fits and lost figures against these (docs/dev/decisions.md says which, with the figures). Limits
and sizes (how many, how long) stay beside the code they bound.
"""

from __future__ import annotations

from typing import Final

# --- Search: the keyword list (search/retrieval/keyword.py) ---

# Extra weight of a query word found in a chunk's title or heading path (tsvector weights A/B):
# where a handbook says what a section is about.
KEYWORD_TITLE_BONUS: Final = 0.5
# When the fitted query decision is not confident on meaning, the words must carry the match: a
# keyword hit then holds this share of the query words' IDF. The fit's calibration handbook is too
# small to learn it (most queries lack a word there that a real handbook holds).
KEYWORD_ALONE_COVERAGE: Final = 0.6

# --- Search: fusion (search/retrieval/fusion.py) ---

# Reciprocal rank fusion's usual constant: flattens a list's lead at its first ranks.
RRF_K: Final = 60

# --- Search: the word-translated list (search/lexicon/word_translation.py) ---

# Cosine of the language-centred word vectors below which a word is left untranslated. A fit on the
# calibration handbook's small vocabulary chose lower and left an answerable question empty.
WORD_TRANSLATION_MIN_SIMILARITY: Final = 0.5
# A word is a word (not a keyboard mash) when fewer than this share of its letter triples, its start
# and end marked, appear in no known word.
UNSEEN_TRIPLE_SHARE: Final = 0.4

# --- Ask: the words' evidence for a unit (search/ask/extractive.py, fitted_kind.py) ---

# These sit inside the ``words`` and ``kind`` features of the answer decision, whose weights are
# fitted: fitting them apart needs labelled units the calibration material does not have.
# A question word written with a capital (Norvège, Paris, Slack) names what is asked about.
ASK_NAME_WEIGHT: Final = 2.0
# The first statement of a section usually states its rule.
ASK_OPENING_BONUS: Final = 0.1
# Gained by a unit of the kind asked (a number, a person, a place), lost by one without a number
# when a quantity is asked, and by a lead-in or a question, which restates rather than answers.
ASK_KIND_WEIGHT: Final = 0.25
# Words only (a model with no policy yet): the best-ranked passage first when units tie, and an
# answer only when some unit holds more than this prior.
ASK_RANK_PRIOR: Final = 0.15

# --- Language (core/text.py) ---

# Below this normalised probability py3langid is guessing: words shared by English and French
# ("badge", "restaurant", "VPN") land just under it, split between the two; the text's stop words
# and accents decide instead.
LANGID_MIN_CONFIDENCE: Final = 0.7

# --- Text shapes (statements/answer_units.py) ---

# A line made mostly of link text is navigation, not a statement to quote.
NAVIGATION_LINK_SHARE: Final = 0.6
