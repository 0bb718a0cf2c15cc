"""The search index: one row per chunk of a page's published revision."""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex, OpClass
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import Func, Q
from django.db.models.functions import Cast
from django.db.models.lookups import Exact
from django.utils.translation import gettext_lazy as _
from pgvector.django import HnswIndex, VectorField

from config.numbers import HNSW_DIMENSIONS
from core import languages
from core.fitted import FittedThing
from handbook.models import Page, Revision


def _hnsw_index(name: str, condition: Q | None = None) -> HnswIndex:
    """A cosine HNSW index over the ``HNSW_DIMENSIONS``-dimension embeddings (``condition``: a partition)."""
    dims = Func("embedding", function="vector_dims", output_field=models.IntegerField())
    where = Q(Exact(dims, HNSW_DIMENSIONS))
    return HnswIndex(
        OpClass(Cast("embedding", VectorField(dimensions=HNSW_DIMENSIONS)), name="vector_cosine_ops"),
        name=name,
        m=16,
        ef_construction=64,
        condition=where & condition if condition is not None else where,
    )


class Chunk(models.Model):
    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="chunks")
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="chunks")
    ordinal = models.PositiveIntegerField()
    heading = models.CharField(max_length=1000, blank=True, help_text="Heading path, outermost first.")
    anchor = models.CharField(max_length=300, blank=True, help_text="Id of the heading in the rendered page.")
    text = models.TextField()
    language = models.CharField(max_length=8, default=languages.DEFAULT.code)
    content_hash = models.CharField(max_length=64)
    search_vector = SearchVectorField(null=True)
    # Dimensionless on purpose: a model change may bring another dimension.
    # The HNSW index is an expression index per dimension (see migrations).
    embedding = VectorField(null=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    embedded_at = models.DateTimeField(null=True, blank=True)
    # While the index moves to another embedding model, its vectors are built
    # here; search keeps serving ``embedding`` until every chunk has one, then
    # the two swap in a single UPDATE (see ``search/embedding/model_switch.py``).
    next_embedding = VectorField(null=True)
    next_embedding_model = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["page", "ordinal"]
        indexes = [
            # One full-text index per language partition: the keyword leg searches each language
            # with its own config, and a shared index made the French pass walk every English
            # chunk that happens to share a stem (then throw it away).
            *(
                GinIndex(fields=["search_vector"], name=f"chunk_search_vector_{code}", condition=Q(language=code))
                for code in languages.CODES
            ),
            GinIndex(
                fields=["search_vector"],
                name="chunk_search_vector_other",
                condition=~Q(language__in=list(languages.CODES)),
            ),
            models.Index(fields=["page", "content_hash"], name="chunk_page_hash"),
            models.Index(fields=["embedding_model"], name="chunk_embedding_model"),
            # The way into a small language partition, searched exactly by the cross-language leg.
            models.Index(fields=["language"], name="chunk_language"),
            # HNSW graphs for the vector lists: one over every chunk and one per language partition
            # (the cross-language leg walks each language apart). ``embedding`` has no fixed dimension,
            # so each is an expression index over the vectors of one dimension (search/retrieval/vector.py).
            _hnsw_index("chunk_embedding_hnsw_384"),
            *(_hnsw_index(f"chunk_embedding_hnsw_384_{code}", Q(language=code)) for code in languages.CODES),
        ]

    def __str__(self) -> str:
        return f"{self.page_id}#{self.ordinal} {self.heading}"


class UnitVector(models.Model):
    """The vector of one answer unit of a chunk (``statements/answer_units.py``), computed at index time.

    Ask scores the units of its passages against the question; reading their vectors here instead of
    embedding them at question time keeps Ask fast, and makes its time independent of what other
    people asked (a shared cache of question-time vectors would tell that a unit was quoted lately).
    Keyed by the unit's text: the same chunk text can carry other units after an edit elsewhere on the
    page (a table's headers), and a unit is only ever looked up by the text Ask is about to score.
    """

    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="unit_vectors")
    model = models.CharField(max_length=200)
    text_hash = models.CharField(max_length=32)  # md5 of the unit's text (an address, not a secret)
    embedding = VectorField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["chunk", "model", "text_hash"], name="unitvector_chunk_model_text")
        ]

    def __str__(self) -> str:
        return f"{self.chunk_id}/{self.text_hash[:8]} ({self.model})"


class IndexState(models.Model):
    """Where a page's index stands; the sweep heals anything not ``indexed``."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        INDEXED = "indexed", _("Indexed")
        FAILED = "failed", _("Failed")

    page = models.OneToOneField(Page, on_delete=models.CASCADE, related_name="index_state")
    revision = models.ForeignKey(Revision, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    embedding_model = models.CharField(max_length=200, blank=True)
    # The model whose answer-unit vectors are stored for the page's current chunks ("" until they
    # are: Ask embeds a missing unit at question time).
    units_model = models.CharField(max_length=200, blank=True, default="")
    chunk_count = models.PositiveIntegerField(default=0)
    embedded_count = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["status"], name="indexstate_status")]

    def __str__(self) -> str:
        return f"{self.page_id}: {self.status}"


class AskLog(models.Model):
    """One question asked, what came back, and how the asker rated it (content gaps)."""

    class Mode(models.TextChoices):
        LLM = "llm", _("LLM")
        EXTRACTIVE = "extractive", _("Extractive")
        NO_ANSWER = "no_answer", _("No answer")

    user = models.ForeignKey("auth.User", null=True, on_delete=models.SET_NULL, related_name="+")
    question = models.TextField()
    language = models.CharField(max_length=8, default=languages.DEFAULT.code)
    mode = models.CharField(max_length=12, choices=Mode.choices)
    answer = models.TextField(blank=True)
    citations = models.JSONField(default=list, blank=True)
    notice = models.CharField(max_length=300, blank=True)
    cached = models.BooleanField(default=False)
    latency_ms = models.PositiveIntegerField(default=0)
    helpful = models.BooleanField(null=True, blank=True)
    comment = models.TextField(blank=True)
    # The spaces of the passages retrieved for the question (the asker could read them), best first:
    # where a question that found no answer nearly did, so the Insights page shows it to those
    # spaces' editors only (``search/insights/``). Ids only: never a title or a passage.
    # Null on rows logged before it was kept: those are shown to superusers only.
    passage_spaces = ArrayField(models.IntegerField(), null=True, blank=True)
    # The pages those passages came from: an answer's text is shown on Insights only to someone who
    # may read every one of them (a model may word what it was sent without citing it).
    passage_pages = ArrayField(models.IntegerField(), null=True, blank=True)
    # The space the asker said should answer (the feedback form offers only spaces they may read):
    # their rating, question and comment then reach that space's editors on Insights.
    feedback_space = models.ForeignKey(
        "handbook.Space", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["mode", "helpful"], name="asklog_gaps"),
            GinIndex(fields=["passage_spaces"], name="asklog_passage_spaces"),
        ]

    def __str__(self) -> str:
        return self.question[:80]


class SearchMiss(models.Model):
    """A submitted search that found nothing: what people look for and the handbook lacks.

    No user: the words are people's, the gap is the handbook's. Purged with the Ask log
    after ``ASK_LOG_RETENTION_DAYS`` (``search/insights/logs.py``).
    """

    query = models.CharField(max_length=500)
    language = models.CharField(max_length=8, default=languages.DEFAULT.code)
    # Who searched, as a key that names nobody: a hash of a secret of the person's and the search's
    # words (``search.insights.logs``). It only counts the distinct people behind the same words,
    # for Insights' rule (``search.insights.visibility.MIN_ASKERS``); it links none of a person's
    # other searches. Null on rows recorded before it was kept: they count as nobody.
    searcher_key = models.CharField(max_length=64, null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.query[:80]


class SearchLog(models.Model):
    """A submitted search and where its first results were: what people look for, per space.

    No user: the words are people's. ``result_spaces`` are the spaces of the first page of results
    (the best result's first), ``result_pages`` their page ids in rank order; the searcher could
    read them all. Purged with the Ask log after ``ASK_LOG_RETENTION_DAYS`` (``search/insights/logs.py``).
    """

    # What the results page names the search by, for reporting the result opened: random, so it
    # says nothing of how many searches others made.
    key = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    query = models.CharField(max_length=500)
    language = models.CharField(max_length=8, default=languages.DEFAULT.code)
    result_spaces = ArrayField(models.IntegerField(), default=list, blank=True)
    result_pages = ArrayField(models.IntegerField(), default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [GinIndex(fields=["result_spaces"], name="searchlog_result_spaces")]

    def __str__(self) -> str:
        return self.query[:80]


class SearchClick(models.Model):
    """A result of a logged search that was opened (once per search and page); deleted with its search."""

    search_log = models.ForeignKey(SearchLog, on_delete=models.CASCADE, related_name="clicks")
    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["search_log", "page"], name="searchclick_unique")]

    def __str__(self) -> str:
        return f"{self.search_log_id} -> {self.page_id}"


class IndexSettings(models.Model):
    """Singleton row: the embedding model whose vectors search reads."""

    serving_model = models.CharField(max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "index settings"

    def __str__(self) -> str:
        return self.serving_model or "(none)"


class LexemeStat(models.Model):
    """How many chunks of one readership scope and language contain a lexeme: the IDF of the keyword leg.

    A scope is the published pages of one space with one restriction (``groups``, empty when
    unrestricted): a reader's document frequencies are the sum over the scopes they may read,
    so hidden pages never move a reader's ranking (``search/statistics/scopes.py``). Refreshed in bulk
    (``search/statistics/term_statistics.py``), not on every write, so indexing never contends on hot rows; a
    lexeme newer than the last refresh counts as rare, which is what it is.
    """

    space_id = models.IntegerField(default=0)
    groups = ArrayField(models.IntegerField(), default=list, blank=True)
    language = models.CharField(max_length=8)
    lexeme = models.CharField(max_length=300)
    ndoc = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["language", "lexeme", "space_id", "groups"], name="lexemestat_scope_unique")
        ]

    def __str__(self) -> str:
        return f"{self.language}:{self.lexeme}={self.ndoc} (space {self.space_id})"


class LexiconWord(models.Model):
    """A frequent word of one handbook language and its vector: the dictionary of word translation.

    Built from the chunks by ``search/lexicon/word_translation.py`` with the serving query embedder; a query word
    is translated into the nearest word of the other language (see that module).
    """

    model = models.CharField(max_length=200)
    language = models.CharField(max_length=8)
    word = models.CharField(max_length=100)
    chunks = models.PositiveIntegerField(help_text="Chunks of the language that contain the word.")
    embedding = VectorField()
    # The word's chunk count in each readership scope where it is frequent (search/statistics/scopes.py):
    # "<space>" or "<space>:<group>.<group>" keys, counts in the same order.
    scopes = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    scope_chunks = ArrayField(models.IntegerField(), default=list, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["model", "language", "word"], name="lexiconword_unique")]

    def __str__(self) -> str:
        return f"{self.language}:{self.word}"


class VerifiedAnswer(models.Model):
    """An editor's answer to a question: the units of a page that answer it, or "the handbook does
    not say this" (``page`` empty: a gap to write). Ask shows it first to readers of the page whose
    question is the same or a near one (``search/verified/``)."""

    class Kind(models.TextChoices):
        ANSWER = "answer", _("Answer")
        NOT_IN_HANDBOOK = "gap", _("The handbook does not say this")

    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.ANSWER)
    question = models.TextField()
    language = models.CharField(max_length=8, default=languages.DEFAULT.code)
    space = models.ForeignKey("handbook.Space", on_delete=models.CASCADE, related_name="+")
    page = models.ForeignKey(Page, null=True, blank=True, on_delete=models.CASCADE, related_name="verified_answers")
    revision = models.ForeignKey(Revision, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # The units cited, in document order: [{"text", "hash", "anchor", "heading"}] as picked on ``revision``.
    units = models.JSONField(default=list, blank=True)
    editor = models.ForeignKey("auth.User", null=True, on_delete=models.SET_NULL, related_name="+")
    verified_at = models.DateTimeField()

    class Meta:
        ordering = ["-verified_at"]
        indexes = [models.Index(fields=["page", "kind"])]

    def __str__(self) -> str:
        return f"{self.kind}: {self.question[:60]}"


class VerifiedQuestion(models.Model):
    """A wording a verified answer answers: the editor's question, then readers' paraphrases that
    matched it; each with its question vector under one embedding model."""

    verified = models.ForeignKey(VerifiedAnswer, on_delete=models.CASCADE, related_name="wordings")
    text = models.CharField(max_length=2000)
    folded = models.CharField(max_length=2000, db_index=True)  # case, accents and punctuation folded
    language = models.CharField(max_length=8, default=languages.DEFAULT.code)
    model = models.CharField(max_length=200, blank=True)
    embedding = VectorField(null=True)
    asked = models.BooleanField(default=False, help_text="A reader's paraphrase (not the editor's wording).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["verified", "folded"], name="verified_wording_unique")]

    def __str__(self) -> str:
        return self.text[:80]


class QuoteRankerFit(FittedThing):
    """Ask's quote ranker refitted from verified answers, one per embedding model (its similarities
    are on that model's scale): weights over the units' features, and the fit report admins read
    (``search/ask/quote_learning.py``)."""

    KIND = "quote ranker"
    # 2: Ask's kind evidence is ±1 named ``kind_held`` (it was a hand-weighted ``kind``).
    FORMAT = 2

    model = models.CharField(max_length=200, unique=True)
    weights = models.JSONField(default=dict)
    in_use = models.BooleanField(
        default=False, help_text="Enough answers, and better than the shipped ranker held out."
    )
    fitted_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.model} ({'in use' if self.in_use else 'not used'})"


class DecisionPolicy(FittedThing):
    """The fitted decisions of one embedding model (``search/decisions/``): for each decision its
    features, weights, threshold and fit report, as ``manage.py calibrate`` wrote them. Similarities are
    a property of the model, so a policy serves only the model it was fitted for."""

    KIND = "decisions"
    # 2: Ask's kind evidence is ±1 named ``kind_held`` (it was a hand-weighted ``kind``).
    FORMAT = 2

    model = models.CharField(max_length=200, unique=True)
    decisions = models.JSONField(default=dict)
    report = models.JSONField(default=dict, help_text="Calibration set, figures, when and how it was fitted.")
    # What the last refit from readers' labels replaced ({"decisions", "report", "replaced"}: the digest
    # of the decisions it wrote), so an admin can roll back to it while that refit still serves.
    previous = models.JSONField(default=dict, blank=True, help_text="The decisions a refit from readers replaced.")
    fitted_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "decision policy"
        verbose_name_plural = "decision policies"

    def __str__(self) -> str:
        return f"{self.model} ({', '.join(sorted(self.decisions)) or 'empty'})"
