"""Every number the product code chooses, each typed ``Final`` with a line that says why.

First the numbers chosen by hand that change what readers see (``CHOSEN_BY_HAND`` names them), each
with why it is not fitted. Every other number that ranks, keeps or refuses is fitted and lives in the
fitted store instead, not here: per embedding model by ``manage.py calibrate`` (the policy:
search/decisions/), or from editors' picks (the summary weights, Ask's quote ranker). The numbers
here either have no material to be fitted from yet, or were tried as fits and lost figures against
these (docs/dev/decisions.md says which, with the figures).

Then, per area, the structural numbers of search, summaries and statements: limits and sizes (how
many, how long), depths, times, cost bounds, versions, and the policy choices the fits are made
under. The module using a number imports it by name, so a test can still replace it there.
``python -m bench.constants`` checks that none is left beside its code, named or typed inline, and that each says why.
"""

from __future__ import annotations

from typing import Final

# ================================================================================================
# Chosen by hand: these change what readers see.
# ================================================================================================

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

# --- Ask: the words' evidence for a unit (search/ask/extractive.py) ---

# Inside the ``words`` feature of the answer decision, whose weights are fitted: a question word
# written with a capital (Norvège, Paris, Slack) names what is asked about. Fitted as a feature of its
# own it takes a negative weight, as the calibration questions' names are mostly the company's own.
ASK_NAME_WEIGHT: Final = 2.0
# The first statement of a section usually states its rule; added to the kind evidence. Fitted as a
# feature of its own on the calibration material it takes a negative weight, and Ask's answers lose.
ASK_OPENING_BONUS: Final = 0.4
# Words only (a model with no policy yet): the best-ranked passage first when units are close, and an
# answer only when some unit holds more than this prior (a share of the question's words).
ASK_RANK_PRIOR: Final = 0.15

# --- Text shapes (statements/answer_units.py) ---

# A line made mostly of link text is navigation, not a statement to quote.
NAVIGATION_LINK_SHARE: Final = 0.6
# A line whose characters are mostly code characters is code (a config line, a path), not a
# statement to quote.
CODE_LINE_SHARE: Final = 0.7

# --- Summaries: the sentence scores (summaries/extractive.py, features.py) ---

# A sentence's term density divides by at least this many words, so that a short sentence made of one
# frequent term does not outrank an informative longer one. It ranks a page's sentences, and is a feature of
# the fitted scorer.
DENSITY_MIN_WORDS: Final = 8

# The numbers above: chosen by hand, and changing what readers see.
CHOSEN_BY_HAND: Final = (
    "KEYWORD_TITLE_BONUS",
    "KEYWORD_ALONE_COVERAGE",
    "RRF_K",
    "WORD_TRANSLATION_MIN_SIMILARITY",
    "ASK_NAME_WEIGHT",
    "ASK_OPENING_BONUS",
    "ASK_RANK_PRIOR",
    "NAVIGATION_LINK_SHARE",
    "CODE_LINE_SHARE",
    "DENSITY_MIN_WORDS",
)

# ================================================================================================
# Structural: limits, sizes, depths, times, cost bounds, versions, fit policies.
# ================================================================================================

# --- Search: a search's bounds (what one request may ask for, how long a query may be) ---

# search/hit_list.py

SEARCH_DEFAULT_LIMIT: Final = 10  # one page of results, as the search page shows them
SEARCH_MAX_LIMIT: Final = 100  # what one API or command call may ask for: bounds the ranking work of a single call
# Lines of errors quoted in an import's failure message (teaching picks, verified answers, summary
# ticks): the rest are counted, so the message stays readable.
IMPORT_ERRORS_SHOWN: Final = 20
# Of a failed job's error (IndexState.error, Summary.error): enough to say what went wrong, not a whole traceback
STORED_ERROR_CHARS: Final = 2000
LANGUAGE_CODE_CHARS: Final = 8  # the language columns' length (SearchLog, SearchMiss, imported answers)

# search/selectors.py

MAX_PER_PAGE: Final = 50  # results a caller may ask for per page: bounds the snippets and summaries one request builds
RESULT_PASSAGES: Final = 3  # passages listed under a result: its best sections, read at a glance
SUMMARY_FALLBACK_CHARS: Final = 200  # a summary with no sentence the splitter finds is cut to about a line

# search/views.py

MAX_PAGE_NUMBER: Final = 1000  # ?page= comes from the URL: clamped, so a crafted one cannot ask for any offset
# A search this many words long or longer, opening with a question word, is a question: Ask is offered
QUESTION_MIN_WORDS: Final = 3
CLICK_PAGE_ID_DIGITS: Final = 10  # a clicked page id has fewer digits than this: a longer one is not a page

# search/retrieval/query.py

QUERY_MAX_CHARS: Final = 1000  # a search, not a document: a longer one is refused with a message, never parsed
QUERY_MAX_TERMS: Final = 32  # distinct words searched: bounds the tsquery and the IDF lookups of one search
QUERY_MAX_PHRASES: Final = 8  # quoted phrases searched: each is a phrase match over the candidates
QUERY_MAX_EXCLUDED: Final = 8  # excluded words and phrases: each is a filter over the candidates

# search/retrieval/snippet.py

SNIPPET_CHARS: Final = 240  # the window shown under a result: a couple of lines of the best passage
# The first match sits this far into the window (its length divided by this): some words before it give context
SNIPPET_LEAD_PARTS: Final = 3
# Stems longer than this mark the words they start; shorter ones only themselves or their plural
SNIPPET_OPEN_STEM_CHARS: Final = 3

# search/retrieval/relevance.py

MISSPELT_STOP_WORD_CHARS: Final = 5  # shorter words are one edit from a stop-word without being a typo of it

# search/after_search.py

SUGGEST_BELOW: Final = 3  # "Did you mean" is offered when a search finds fewer pages than this

# search/as_you_type.py

AS_YOU_TYPE_SEQUENCE_SECONDS: Final = 120  # a session's latest keystroke number is kept this long after its last one
AS_YOU_TYPE_SEQUENCE_MAX_DIGITS: Final = 16  # a longer keystroke number is not the browser's: refused before parsing

# --- Search: the keyword list and the counts it ranks by ---

# search/retrieval/keyword.py

# Matches ranked at most (each is a heap row read); candidates: the rarest words first
KEYWORD_CANDIDATE_CAP: Final = 1000
# The word-translated query's pass: half the candidates. Its words are guesses; on dev-crosslang,
# translated questions measured equal or better at this cap, lower at a smaller one (bench.search).
TRANSLATED_CANDIDATE_CAP: Final = 500
# A small share of the index readable (and not too many chunks): the page_id index joins the way in.
PAGES_WAY_IN_MAX_SHARE: Final = 0.2
PAGES_WAY_IN_MAX_CHUNKS: Final = 30_000  # …and not too many chunks: past it the page_id index costs more than it saves
# Candidates come from the rarest words (as many as fit in the cap together); the other words only score.
KEYWORD_RERANK_DEPTH: Final = 300  # keyword candidates whose ties of score ts_rank (term frequency) may break
# A keyword hit holds this share of the query words' IDF (none: any one word). And when even the nearest
# chunk is not clearly close in meaning by the model's fitted decision (search/decisions/query.py), the
# words must carry the match: a keyword hit then holds KEYWORD_ALONE_COVERAGE of it (a word no readable
# page holds has the highest IDF). Calibrated with bench/no_match.py together with the similarity floors.
# Without a policy there is no such decision, and every keyword hit is a result (keyword search alone).
KEYWORD_MIN_COVERAGE: Final = 0.0

# search/statistics/term_statistics.py

SMALL_INDEX_CHUNKS: Final = 5_000  # below this a full refresh is cheap enough to run after every reindex
STATISTICS_REFRESH_DEBOUNCE_S: Final = 60  # a bulk edit or import recounts a scope once, not once per page
BM25_IDF_SMOOTHING: Final = 0.5  # part of the Okapi IDF's definition (the Robertson–Spärck Jones form), not tuned

# --- Search: the vector list ---

# search/retrieval/vector.py

# This few visible chunks: exact search, cheap at this size, whatever the share
EXACT_SCAN_ALWAYS_CHUNKS: Final = 10_000
EXACT_SCAN_MAX_SHARE: Final = 0.2  # a filter this selective loses HNSW recall: exact search…
EXACT_SCAN_MAX_CHUNKS: Final = 30_000  # …unless the visible set is this large
# Candidates the plain leg's HNSW walk keeps (hnsw.ef_search): nearly exact recall against an exact
# scan, and a longer list buys little more recall for its time (bench.hnsw_graph, bench.search scale). With
# HNSW forced on the dev corpora, native questions are unchanged and translated ones lose a question
# each (bench.search quality; docs/dev/benchmarks.md).
HNSW_EF_SEARCH: Final = 200
VECTOR_TEXT_CACHE_SIZE: Final = 64  # recent query vectors' text form: a repeated query skips converting its vector

# search/models.py

HNSW_DIMENSIONS: Final = 384  # the dimension the HNSW indexes cover; other dimensions are searched exactly

# search/embedding/embedders.py

LOCAL_DIMENSIONS: Final = 384  # the local model's output size, fixed by the model; the vector columns match it
REMOTE_EMBED_MAX_BATCH: Final = 2048  # inputs per request to an OpenAI-compatible embeddings API: its own limit
# The local model reads a bounded number of tokens; this many characters stays under that bound.
EMBEDDER_MAX_INPUT_CHARS: Final = 2000
REMOTE_EMBEDDER_CACHE_SIZE: Final = 4  # remote embedder clients kept, one per configuration in use

# search/retrieval/query_embedding.py

QUERY_VECTOR_TTL_S: Final = 24 * 3600  # a day: a person's repeated queries skip the model; the key holds the model

# --- Search: fusion, the lists run side by side, visibility ---

# search/retrieval/hits.py

LEG_DEPTH: Final = 100  # chunks each leg contributes to fusion

# search/retrieval/parallel.py

# Plus the calling thread: a search has up to five lists; more threads than cores only queue
SEARCH_LIST_WORKERS: Final = 3
# The lists' threads wait for each other at most this long before a search gives up on a stuck one
SEARCH_LIST_BARRIER_TIMEOUT_S: Final = 30

# search/tasks.py

# An embedder outage is retried with growing waits: a restarting local model or a provider's brief
# outage is waited out, a lasting one is left to the sweep.
EMBEDDING_RETRY_BACKOFF_S: Final = 2
EMBEDDING_RETRY_BACKOFF_MAX_S: Final = 300  # the longest wait between two tries
EMBEDDING_MAX_RETRIES: Final = 6  # tries after the first, before the task gives up

# search/retrieval/crosslang.py

MIN_CHUNKS_PER_LANGUAGE: Final = 50  # a mean over fewer chunks is too noisy to trust
MEANS_TTL_S: Final = 600  # edits inside a scope move the means a little: recounted after this (a scope change at once)
# A partition this small (visible chunks) is scanned exactly, cheap at this size (bench.search scale);
# larger ones walk their own HNSW graph (a partial index per language, in the search migrations).
PARTITION_EXACT_CHUNKS: Final = 2_000
# hnsw.ef_search of the partition walks: translated questions rely on this list. A somewhat shorter one
# measured the same on dev-crosslang (HNSW forced) and was no faster beyond noise; shorter still lost a
# question (bench.search quality and scale).
PARTITION_EF_SEARCH: Final = 400

# search/retrieval/visibility.py

ARRAY_MAX_IDS: Final = 1000  # above this many pages, the bitmap form is cheaper to parse and to plan
VISIBILITY_CACHED_SETS: Final = 32  # readers' page sets kept per process (a reader is a set of groups, not a person)

# --- Search: translation and the lexicon ---

# search/retrieval/query_translation.py

# A week: each translation is an LLM call; the key holds the model and the words
QUERY_TRANSLATION_TTL_S: Final = 7 * 24 * 3600
QUERY_TRANSLATION_FAILURE_TTL_S: Final = 600  # a failed translation is not asked for again before this
QUERY_TRANSLATION_RATE_LIMITED_TTL_S: Final = 60  # the limits count per minute
QUERY_TRANSLATION_PENDING_TTL_S: Final = 300  # one fetch per query at a time; a lost task frees its query after this
QUERY_TRANSLATION_TIMEOUT_S: Final = 15.0  # off the request, but a hung provider must not hold a worker for long
# A single word is left to the word translation (search/lexicon): no LLM call for it
QUERY_TRANSLATION_MIN_WORDS: Final = 2
QUERY_TRANSLATION_MAX_TOKENS: Final = 200  # a translated query is a line: bounds the LLM call's output and cost
# A reply longer than this many times the query (plus the extra characters below) is an answer or an
# explanation, not its translation: it is dropped.
QUERY_TRANSLATION_MAX_GROWTH: Final = 3
QUERY_TRANSLATION_MAX_EXTRA_CHARS: Final = 50  # room for a short query's longer translation

# search/lexicon/word_counts.py

MAX_WORDS_PER_LANGUAGE: Final = 20_000  # the most frequent: bounds each web process's in-memory vector table
# Longer tokens are codes or glued words, not vocabulary; well inside LexiconWord.word
LEXICON_MAX_WORD_CHARS: Final = 40
LEXICON_MIN_WORD_CHARS: Final = 3  # shorter tokens are abbreviations and particles, too ambiguous to translate
LEXICON_FETCH_BATCH: Final = 2000  # chunk rows read at a time while counting words: bounds a build's memory

# search/lexicon/word_translation.py

LEXICON_MIN_CHUNKS: Final = 2  # a word must appear in this many chunks of its language (typos, names out)
LEXICON_MIN_LANGUAGE_CHUNKS: Final = 20  # below this a language's vocabulary (and its mean) is too thin
MAX_QUERY_WORDS: Final = 12  # a question's content words translated: bounds the lookups of one long query
LEXICON_EMBED_BATCH: Final = 256  # words per embedder call in a build: bounds one call's memory
LEXICON_UPDATE_BATCH: Final = 1000  # changed words per UPDATE statement in a build: bounds one statement
TRANSLATION_TTL_S: Final = 24 * 3600  # a day: a rebuild changes translations at most about that often
STALE_AFTER_S: Final = 24 * 3600  # a daily rebuild picks up edits that moved no scope and changed little text
STALE_CHUNK_SHARE: Final = 0.05  # rebuild when the chunk count moved this much since the last build
# A search builds what is missing itself (the first search after a start, a restriction a moment
# ago) when it costs at most this many new word vectors, a wait one search can bear with the local
# model (bench.indexing measures its speed); a larger build is queued for a worker and searches go
# on without it meanwhile.
ON_DEMAND_NEW_WORDS: Final = 2_000
# After a search found a build too large for it, searches leave it to the worker this long before
# one tries again: counting the vocabulary to find that out takes seconds on a large index, under
# the build lock, and would otherwise be paid by every search until the worker's build lands. Not
# a ranking number: it only bounds how often a refused build is retried.
REFUSED_BUILD_RETRY_S: Final = 600
LEXICON_BUILD_LOCK: Final = 0x6C6578  # pg advisory lock: one build at a time, whichever process starts it

# search/lexicon/word_vectors.py

MAX_READER_VIEWS: Final = 64  # one per set of readable scopes in use: bounds a process's memory, keeps the common sets

# --- Search: suggestions as you type, "did you mean" ---

# search/retrieval/prefix.py

PREFIX_MAX_TERMS: Final = 6  # the words a typed line is matched on (more only slows the statement down)
MIN_PREFIX: Final = 2  # a one-letter prefix matches most of the index: the line waits for a second letter
PREFIX_MAX_INPUT_CHARS: Final = 300  # of the typed line read: a search box line, not a document
PREFIX_MAX_WORD_CHARS: Final = 50  # a typed word is cut to this: longer ones are pasted codes, matched by their start
# Rows ranked at most per list: those holding every word, then (when too few) those holding any. Past
# it, a very common prefix ranks an arbitrary (but readable) sample, which the next letter narrows.
PREFIX_ALL_WORDS_CANDIDATES: Final = 40
PREFIX_ANY_WORD_CANDIDATES: Final = 80  # each candidate's vector is computed in the statement: the caps stay small
PREFIX_TITLES: Final = 5  # title suggestions under the search box: a list read at a glance while typing
PREFIX_HEADINGS: Final = 5  # heading suggestions under them, for the same reader
PAGE_URL_CACHE_SIZE: Final = 4096  # page URLs remembered per process: the pages suggested while typing stay warm

# search/retrieval/suggest.py

SUGGEST_MIN_WORD_CHARS: Final = 4  # shorter words are too ambiguous to correct
SUGGEST_TWO_EDITS_FROM: Final = 8  # words this long may be two edits away; shorter ones, one
SUGGEST_CANDIDATES: Final = 8  # close words weighed per typed word (fewest edits, then most frequent): bounds the work
SUGGEST_MAX_VOCABULARIES: Final = 32  # readers' vocabularies kept per process (a few MB each at most)
SUGGEST_READ_BATCH: Final = 5000  # vocabulary rows read at a time while loading one: bounds the load's memory

# --- Search: decisions and their calibration ---

# search/decisions/query.py

STAND_OUT_RANK: Final = 5  # the neighbour the nearest chunk must stand out of; the query decision was fitted with it
STAND_OUT_NO_FLOOR: Final = -1.0  # every neighbour counts: no cosine similarity is below it

# search/decisions/same_question.py

SAME_QUESTION_NEVER: Final = 1.01  # no cosine reaches it: only the same folded wording matches

# search/decisions/policy.py

# A model's first calibration is queued once in this long: a lost task is queued again after it
CALIBRATING_LOCK_TTL_S: Final = 3600

# search/calibration/ (every fit)

CALIBRATION_FOLDS: Final = 5  # cross-validation folds of the answer, page and query fits: each fifth held out in turn
FIT_MAX_ITERATIONS: Final = 1000  # the logistic fits' solver iterations: enough to converge on their few features

# search/calibration/answer_fit.py

ANSWER_FIT_PASSAGES_PER_QUESTION: Final = 5  # the nearest passages a question's Ask is given here
# Even odds: the answer threshold kept when the answered and declined shares never cross (one kind
# of question missing, or both tied at the top); the page fit's when nothing separates its two kinds
ANSWER_FIT_FALLBACK_THRESHOLD: Final = 0.5
# A "sure" answer is shown as the answer, with no hedge: it must be right so nearly always that a
# reader can act on it, while a wrong one now and then is why its source stays cited beside it.
SURE_PRECISION: Final = 0.9
# The fallback's floor: a precision reached only on a handful of questions says nothing held out.
SURE_MIN_COVERAGE: Final = 0.05

# search/calibration/page_fit.py

PAGE_FIT_CANDIDATES: Final = 10  # a first page of results

# search/calibration/query_fit.py

QUERY_FIT_REGULARISATION: Final = 1.0  # scikit-learn's default C: the features are few and standardised
# The answerable calibration questions the result threshold may leave with no result (a policy
# choice, not a fit: how many real questions one accepts to lose for nonsense to find nothing).
MAX_EMPTY_SHARE: Final = 0.01

# search/calibration/reader_labels.py

# Two people agreeing is the least that is not one person's say; more would leave a small company's
# labels teaching nothing for months.
MIN_AGREEING: Final = 2

# search/calibration/retrieval_fit.py

RETRIEVAL_FIT_FOLDS: Final = 5  # the held-out score: each fifth of the passages scored by the pair the rest chose
# The centring and the vector weight tried: from none to all in even steps
RETRIEVAL_FIT_GRID_STEP: Final = 0.1
RETRIEVAL_FIT_GRID_POINTS: Final = 11  # none, all, and the steps between

# search/calibration/same_question_fit.py

# Product choices (the verified answers' goals): another question on the same page gets the verified
# answer of a question it is not at most this often; a question on another page, almost never.
MAX_OTHER_QUESTION_MATCHES: Final = 0.03  # same page, another question: a rare borrowed answer is tolerable
MAX_OTHER_PAGE_MATCHES: Final = 0.001  # another page: a borrowed answer there is plainly wrong, so almost never
# The nearest passages whose units the second look compares (as the answer fit)
SAME_QUESTION_FIT_PASSAGES_PER_QUESTION: Final = 5

# search/calibration/statement_fit.py

# The floors and offsets tried: a floor is a round value, not one sentence's own cosine
STATEMENT_FIT_GRID_STEP: Final = 0.005
STATEMENT_FIT_SWEEP_SPAN: Final = 0.05  # the fit report lists floors this far either side of the chosen one
# The share of faithful paraphrases the floor must keep: a policy choice, not a fit. One in sixteen
# may be refused by its cosine, as the bundled model's hand-set floor did before it was fitted: a
# floor low enough for every last paraphrase lets more invented sentences through, and the words
# test alone does not refuse them all.
STATEMENT_FIT_KEPT_SHARE: Final = 15 / 16

# search/calibration/status.py

CALIBRATION_ERROR_CHARS: Final = 500  # of the failure's message: enough to say what went wrong, not a traceback

# --- Search: Ask ---

# search/ask/answers.py

ASK_MAX_QUESTION_CHARS: Final = 2000  # a question, not a document: bounds what retrieval and the LLM prompt read
# The raw text read before cleaning, in multiples of the limit: whitespace and control characters that
# cleaning drops cannot bring a huge input in (Ask and verified questions)
RAW_QUESTION_FACTOR: Final = 4
ASK_LOG_NOTICE_CHARS: Final = 300  # AskLog.notice's column length

# search/ask/question_words.py

QUESTION_WORD_MIN_CHARS: Final = 3  # shorter words (not numbers) are particles: they match too much to weigh

# search/ask/passages.py

MAX_PASSAGES: Final = 10  # passages one answer may use: bounds the LLM prompt and the units scored (bench.ask)
MAX_PASSAGE_CHARS: Final = 1200  # of a chunk's text: one long chunk cannot fill the prompt alone
ASK_MAX_CHUNKS_PER_PAGE: Final = 3  # from each page after the first: leaves room for other pages
# The best page's chunks that state the answer are often not the ones that matched the question
# best (a definition first, the figure two sections down): it gives more of them.
FIRST_PAGE_CHUNKS: Final = 5
# A bilingual handbook often states a rule in one language only: the best pages written in another
# language than the question's always get a passage (their best chunk), even when fusion ranks the
# question's own language first, so an answer can quote the page that has it.
OTHER_LANGUAGE_PAGES: Final = 2
OTHER_LANGUAGE_LOOKAHEAD: Final = 30  # pages looked through for them

# search/ask/extractive.py

MAX_QUOTES: Final = 3  # quotes in one answer: the answer, not every sentence that matches
ASK_MAX_WORDS: Final = 80  # all quotes together: an answer, not a section
ASK_MIN_WORDS: Final = 3  # shorter units are labels or fragments, not statements worth quoting
# Best units by words embedded per question: each cold one is an embedding (timed by bench.ask)
ASK_SHORTLIST: Final = 4
ASK_SHORTLIST_OTHER_LANGUAGE: Final = 2  # more units embedded when words cannot be matched across languages
ASK_UNITS_PER_PASSAGE: Final = 1  # and the best unit of every passage

# search/ask/answer_cache.py

ASK_CACHE_TTL_S: Final = 3600  # an hour: a question asked again soon skips the LLM; the key holds the passages
# Bump when answer building changes, so cached answers of the old logic are not served.
ANSWER_FORMAT_VERSION: Final = 6

# search/ask/unit_embeddings.py

SENTENCE_CACHE_TTL_S: Final = 7 * 24 * 3600  # a unit's vector never changes for a given model

# search/ask/quote_learning.py

# Below this many verified answers a refit is not trusted over the shipped ranker: each answer
# is one question, and a handful of questions is one editor's habits, not the handbook's.
QUOTE_REFIT_MIN_ANSWERS: Final = 20

# search/ask/feedback.py

FEEDBACK_MAX_COMMENT_CHARS: Final = 2000  # a comment, not a document: bounds what one feedback row stores
FEEDBACK_STEP_CHARS: Final = 10  # the feedback form's step name: a longer one is no step of the form

# --- Search: verified answers ---

# search/verified/services.py

VERIFIED_MAX_UNITS: Final = 12  # an answer is a few sentences or one section, not a page
VERIFIED_MAX_WORDINGS: Final = 50  # readers' paraphrases remembered per answer (the oldest stay: they taught it first)

# search/verified/wording.py

VERIFIED_MAX_QUESTION_CHARS: Final = 2000  # as Ask's (ASK_MAX_QUESTION_CHARS)
VERIFIED_WORDING_CHARS: Final = 2000  # VerifiedQuestion.text and .folded's column length: a wording is cut to fit

# search/verified/selectors.py

MAX_CANDIDATE_PAGES: Final = 8  # pages offered to verify from: the retrieval's head, short enough to choose among
VERIFIED_MAX_LISTED: Final = 50  # per list on the insights page: bounds the query, one screen to act on

# search/verified/digest.py

DIGEST_MAX_LINES: Final = 20  # per owner in one digest e-mail: keeps the mail readable, the rest waits for the next one

# --- Search: a draft's impact on answers ---

# search/impact/preview.py

# Each question is answered twice (now, then with the draft), a full Ask each time: past this many the
# panel takes longer than an editor waits before publishing (bench/impact_preview.py); the rest are
# counted, not answered.
MAX_PREVIEWED: Final = 30
# The longest an editor waits for the panel, however slow the machine; questions not reached by then
# are counted as not previewed.
PREVIEW_BUDGET_S: Final = 6.0
# Share of the budget the "now" answers may take when they cannot run beside the rest (inside a
# transaction): the rest indexes the draft and answers again.
PREVIEW_NOW_SHARE: Final = 0.4

# search/impact/views.py

REVISION_MAX_DIGITS: Final = 9  # ?revision= with more digits is no revision (not found), not an integer overflow

# search/impact/selectors.py

# Unanswered questions are matched against the draft in Python, after SQL has grouped them and kept
# the shared ones: the most-asked first, so a long Ask log costs a bounded read.
MAX_UNANSWERED_CANDIDATES: Final = 300

# --- Search: insights ---

# search/insights/logs.py

LOG_MAX_QUERY_CHARS: Final = 500  # the logs' query column length (SearchLog.query, SearchMiss.query)
RESULTS_LOGGED: Final = 10  # the first page of results
CLICK_WITHIN_HOURS: Final = 24  # an opened result counts for this long after its search

# search/insights/searches.py

SEARCHES_MAX_ROWS: Final = 2000  # the most recent searches read
TOP_QUERIES: Final = 10  # the head of the list an editor reads; the rest is in the full log
TOP_PAGES: Final = 5  # most opened pages per space: enough to see where searches land

# search/insights/selectors.py

INSIGHTS_MAX_ROWS: Final = 2000  # the most recent questions (and searches) read per list
MAX_GROUPS: Final = 50  # question groups listed: one page an editor can act on
MAX_REJECTED: Final = 50  # the latest rejected questions, enough to spot a pattern
TOP_PER_SPACE: Final = 10  # the head of each space's questions; the overview stays one screen

# search/insights/grouping.py

GROUPING_MAX_EMBEDDED: Final = 400  # distinct wordings embedded per grouping; the rest group by folded text only
GROUPING_BATCH: Final = 64  # wordings per embedder call: bounds one call's memory and request size
GROUPING_VECTOR_TTL_S: Final = 7 * 24 * 3600  # a week: the insights pages revisit the same wordings for days
GROUP_VARIANTS_SHOWN: Final = 5  # a group's other wordings listed: enough to see what it gathers
# A question whose answers were rated "not helpful" this many times is a gap, not an answered
# question: once may be one reader's taste, twice is the answer failing.
REJECTED_SEVERAL: Final = 2

# search/insights/visibility.py

# In a small team one or two people asking the same thing can be told apart by whoever knows who
# was working on it that day; from three distinct askers on it is a shared need, not a person.
MIN_ASKERS: Final = 3

# search/insights/fixes.py

FIXES_MAX_CHECKED: Final = 20  # groups looked at per page load, the first shown
FIXES_TOP_RANK: Final = 3  # a fresh page counts when retrieval ranks it this high for the question
MAX_FRESH_PAGES: Final = 500  # pages changed since the oldest group checked, read at most

# search/insights/pages_to_review.py

MAX_TO_REVIEW: Final = 200  # one screen an editor can work through; bounds the query on a large handbook

# --- Search: indexing ---

# search/indexing/chunking.py

MAX_HEADING_CHARS: Final = 1000  # Chunk.heading's column length; absurdly deep or long paths are cut to fit
# A chunk is cut near this many characters: a passage short enough to embed whole and to quote, long
# enough to hold a rule and its conditions.
CHUNK_TARGET_CHARS: Final = 800
# The most a chunk holds: longer prose is split at sentence ends (code blocks and table rows stay whole)
CHUNK_MAX_CHARS: Final = 1200

# search/management/commands/reindex.py

REINDEX_TIMEOUT_S: Final = 3600.0  # the command's default wait for the queued reindex to finish

# --- Summaries ---

# summaries/extractive.py

SUMMARY_MIN_WORDS: Final = 5  # shorter lines are labels or fragments, not statements worth quoting
SUMMARY_MAX_WORDS: Final = 60  # longer sentences are run-ons or lists flattened by the parser; a summary stays short
MAX_KEY_POINTS: Final = 5  # a list a reader takes in at a glance
# Pages longer than this (in words) get three sentences instead of two.
LONG_PAGE_WORDS: Final = 150
# Key facts: each table whose cells hold numbers is kept as one digest ("Barème: Norvège … €; Suisse … €").
MAX_DIGEST_ROWS: Final = 12  # a digest is one line of a summary: a longer table is read on the page
MAX_DIGEST_WORDS: Final = 60  # as long as the longest sentence kept (SUMMARY_MAX_WORDS)
MAX_DIGEST_CELL_WORDS: Final = 8  # a table with prose in its cells is not a table of figures
SUMMARY_SENTENCES: Final = 2  # sentences of a summary: what a result's line holds
SUMMARY_SENTENCES_LONG: Final = 3  # …of a long page's (LONG_PAGE_WORDS), which has more to say
KEY_POINT_PER_CANDIDATES: Final = 5  # at least one key point per this many usable sentences, up to MAX_KEY_POINTS

# summaries/features.py

# The length feature's cap and unit (words): the sentences kept are no longer than SUMMARY_MAX_WORDS,
# and the unit is the scale the shipped weights were fitted at (a refit absorbs any other).
FEATURE_LENGTH_CAP_WORDS: Final = 60
FEATURE_LENGTH_UNIT_WORDS: Final = 30  # the length feature counts in units of this many words

# summaries/fitting.py

# Inverse regularisation (scikit-learn's C): with a few hundred ticked sentences, larger weights chase
# one editor's habits.
SUMMARY_REGULARISATION_C: Final = 1.0
SUMMARY_MAX_FOLDS: Final = 5  # cross-validation folds: each held-out fold keeps enough pages to score
SUMMARY_FIT_MAX_ITERATIONS: Final = 2000  # the solver's iterations: enough to converge on the sentence features

# summaries/scorer_fit.py

# Close to the pages the shipped weights were fitted on (see their fit report): fewer picks would let
# a handful of pages, often one editor's taste, outweigh them.
MIN_TICKED_PAGES: Final = 20

# summaries/generate.py

# A few thousand tokens of input: enough for most pages in one call, small enough for any model.
SUMMARY_INPUT_CAP_CHARS: Final = 12_000

# summaries/tasks.py

# An unreachable LLM provider is retried with growing waits; the last try falls back to the
# extractive summary.
SUMMARY_RETRY_BACKOFF_S: Final = 5
SUMMARY_RETRY_BACKOFF_MAX_S: Final = 600  # the longest wait between two tries
SUMMARY_MAX_RETRIES: Final = 5  # tries after the first; the last one writes the extractive summary
SUMMARY_MAX_TOKENS: Final = 500  # the LLM's reply: a short summary and its key points, and a bound on its cost
LLM_SUMMARY_MAX_CHARS: Final = 2000  # of the LLM's summary kept: a summary, not a rewrite of the page
LLM_KEY_POINT_MAX_CHARS: Final = 300  # of each LLM key point kept: a point, not a paragraph

# --- Statements ---

# statements/answer_units.py

# Bumped whenever the rule that cuts a page into units changes: stored unit vectors are marked with
# it (``search/indexing/unit_vectors.py``), so the sweep stores the new units of every page once.
ANSWER_UNITS_RULES_VERSION: Final = 4
MAX_LEAD_WORDS: Final = 30  # a longer introduction is quoted as its own sentence, not before every item
MAX_ITEM_WORDS: Final = 60  # a longer list item is split into sentences
# Revisions parsed per process: the pages in use stay warm, memory stays bounded
ANSWER_UNITS_PAGE_CACHE_SIZE: Final = 512

# statements/statement_check.py

FIGURES_NEAR: Final = 3  # a sentence's figures must be in one of the statements closest to it
# A shorter sentence ("You get so many days") says too little for the words and meaning tests: its
# figures and names decide.
MIN_WORDS_TESTED: Final = 4
