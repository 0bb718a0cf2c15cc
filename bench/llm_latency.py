"""LLM latency bench: search and Ask with a slow, and with a never-answering, LLM provider.

Goals (issue #23):

- search with an LLM configured (the slow provider): p95 within 10 % of the same
  searches with no LLM, in the same run, cold caches included;
- Ask with a provider that never answers: p95 <= ``ASK_LLM_BUDGET_S`` + 1 s;
- Ask streamed with the slow provider: first text or the fallback within 2.5 s (p95);
- 0 LLM calls caused by search-as-you-type fragments (counted at the provider).

The "slow provider" is tests/fake_llm.py's OpenAI-compatible server on loopback,
driven by the real ``openai`` client: every reply takes 2 s (streamed text starts
after 1 s and is spread over the next second) and 20 % of the calls never answer.
It translates queries (JSON) and answers questions citing passage [1].

Self-contained: a small bilingual handbook written here (``CORPUS``, 32 pages) in
its own database ``bench_llm`` on the bench Postgres and its own Redis database
(no ../shared). Searches go through the real view (``/search/``, Django's test
client, logged in); query translations are fetched by a real Celery worker
(a subprocess, thread pool) as in production. Each configuration reads its own
cache namespace, so "cold" means no query vector, translation or answer cached
for either; the database and the model are warmed first for both alike.

Run: python -m bench.llm_latency [--asks N] [--stream-asks N]   (about 4 minutes on 2 idle cores)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, md_table, percentile, write_results

SPACE = "bench-llm"
DATABASE = "bench_llm"
REDIS_DB = 3  # apart from the other benches' broker and caches
SLOW_SECONDS, SLOW_FIRST_TOKEN, HANG_RATE = 2.0, 1.0, 0.2
GOAL_SEARCH_RATIO, GOAL_STREAM_S = 1.10, 2.5
# Cold rounds: the queries as written, then with a number no page contains (new queries again).
COLD_SUFFIXES = ("", "2024", "2025")

# Topic: (English title, English text, French title, French text). Pages are written as people
# write them: the two languages do not mirror each other word for word.
CORPUS: list[tuple[str, str, str, str]] = [
    ("Annual leave", "Every employee gets 25 working days of paid annual leave per year. Up to five unused days "
     "may be carried over until 31 March. Request leave in the HR portal two weeks ahead.",
     "Congés annuels", "Chaque salarié dispose de 25 jours ouvrés de congés payés par an. Cinq jours non pris "
     "peuvent être reportés jusqu'au 31 mars. Posez vos congés dans le portail RH deux semaines avant."),
    ("Parental leave", "Parents get 16 weeks of paid parental leave. Tell your manager three months before the "
     "expected date of birth or adoption.",
     "Congé parental", "Les parents ont droit à 16 semaines de congé parental rémunéré. Prévenez votre "
     "responsable trois mois avant la naissance ou l'adoption."),
    ("Remote work", "Staff may work from home up to three days a week. A second screen can be borrowed from IT.",
     "Télétravail", "Le télétravail est possible jusqu'à trois jours par semaine. Un second écran peut être "
     "emprunté au service informatique."),
    ("Expense claims", "Submit expense claims within 30 days with the receipts attached. Meals are reimbursed up "
     "to 25 euros.",
     "Notes de frais", "Déposez vos notes de frais sous 30 jours avec les justificatifs. Les repas sont "
     "remboursés jusqu'à 25 euros."),
    ("Business travel", "Book train travel for trips under four hours. Flights need the approval of your director.",
     "Déplacements professionnels", "Le train est obligatoire pour les trajets de moins de quatre heures. "
     "L'avion nécessite l'accord de votre directeur."),
    ("Laptop replacement", "Laptops are replaced every four years. Report a broken laptop to the IT help desk.",
     "Remplacement des ordinateurs", "Les ordinateurs portables sont renouvelés tous les quatre ans. Signalez une "
     "panne au support informatique."),
    ("VPN access", "Use the company VPN on public networks. Install the WireGuard client and sign in with your "
     "badge number.",
     "Accès VPN", "Utilisez le VPN de l'entreprise sur les réseaux publics. Installez le client WireGuard et "
     "connectez-vous avec votre numéro de badge."),
    ("Parking", "Building B has forty parking spaces for cars and bicycles. Ask reception for a parking badge.",
     "Stationnement", "Le bâtiment B compte quarante places pour les voitures et les vélos. Demandez un badge de "
     "parking à l'accueil."),
    ("Canteen", "The canteen is open from noon to two. A meal costs four euros with your badge.",
     "Cantine", "La cantine est ouverte de midi à quatorze heures. Un repas coûte quatre euros avec votre badge."),
    ("Training budget", "Each employee has a training budget of 1,500 euros per year. Your manager approves the "
     "courses.",
     "Budget formation", "Chaque salarié dispose d'un budget formation de 1 500 euros par an. Votre responsable "
     "valide les formations."),
    ("Onboarding", "New employees get a buddy for their first month. The welcome session is on Monday morning.",
     "Intégration", "Les nouveaux arrivants ont un parrain pendant leur premier mois. La session d'accueil a lieu "
     "le lundi matin."),
    ("Payroll", "Salaries are paid on the last working day of the month. Payslips are in the HR portal.",
     "Paie", "Les salaires sont versés le dernier jour ouvré du mois. Les bulletins de paie sont dans le portail "
     "RH."),
    ("Health insurance", "Health insurance covers you and your family from your first day. Dental care is "
     "included.",
     "Mutuelle", "La mutuelle vous couvre, vous et votre famille, dès le premier jour. Les soins dentaires sont "
     "inclus."),
    ("Sick leave", "Send your doctor's note within 48 hours. Sick leave is paid in full for three months.",
     "Arrêt maladie", "Envoyez votre arrêt de travail sous 48 heures. L'arrêt maladie est payé intégralement "
     "pendant trois mois."),
    ("Security badges", "Wear your badge at all times. A lost badge must be reported to security the same day.",
     "Badges d'accès", "Portez votre badge en permanence. Un badge perdu doit être signalé à la sécurité le jour "
     "même."),
    ("Meeting rooms", "Book meeting rooms in the calendar. Large rooms need to be booked a week ahead.",
     "Salles de réunion", "Réservez les salles de réunion dans l'agenda. Les grandes salles se réservent une "
     "semaine à l'avance."),
]  # fmt: skip

SEARCHES = [
    "paid annual leave days", "carry over unused leave", "parental leave weeks", "work from home days",
    "borrow a second screen", "expense claim receipts", "meal reimbursement limit", "train or flight approval",
    "broken laptop help desk", "vpn on public wifi", "parking badge reception", "canteen opening hours",
    "training budget per year", "new employee buddy", "salary payment date", "dental care insurance",
    "doctor note sick leave", "lost security badge", "book a large meeting room", "payslips hr portal",
    "jours de congés payés", "reporter des congés non pris", "durée du congé parental", "jours de télétravail",
    "emprunter un écran", "justificatifs notes de frais", "remboursement des repas", "train ou avion accord",
    "ordinateur portable en panne", "vpn réseau public", "badge de parking accueil", "horaires de la cantine",
    "budget formation annuel", "parrain nouvel arrivant", "date de versement des salaires", "soins dentaires mutuelle",
    "arrêt maladie délai", "badge perdu sécurité", "réserver une grande salle", "bulletins de paie portail",
    "request leave two weeks ahead", "adoption leave notice", "it help desk screen", "expense deadline 30 days",
    "director approval for flights", "laptop renewal every four years", "wireguard client badge number",
    "bicycle spaces building b", "meal price with badge", "manager approves courses",
    "demande de congés portail", "naissance ou adoption", "service informatique écran", "délai notes de frais",
    "trajets de moins de quatre heures", "ordinateurs renouvelés", "client wireguard numéro de badge",
    "places pour les vélos", "prix du repas badge", "responsable valide les formations",
]  # fmt: skip
QUESTIONS = [
    "How many days of paid annual leave do I get?", "How long is parental leave?",
    "How many days a week can I work from home?", "Within how many days must I submit expense claims?",
    "When are laptops replaced?", "How much does a meal cost at the canteen?",
    "Combien de jours de congés payés par an ?", "Combien de semaines dure le congé parental ?",
    "Quel est le budget formation annuel ?", "Quand les salaires sont-ils versés ?",
]  # fmt: skip

# Each configuration reads and writes its own cache namespace (see cache_key).
_PREFIX = ["bench-llm-warmup"]
# What the index keeps in the cache as state, not as a cached result: shared by every namespace.
_STATE_KEYS = ("lexicon:version",)


def cache_key(key: str, key_prefix: str, version: int) -> str:
    """Django's default key layout, under the prefix of the configuration being measured."""
    prefix = "bench-llm-state" if key in _STATE_KEYS else _PREFIX[0]
    return f"{prefix}:{version}:{key}"


# --- setup ------------------------------------------------------------------------------


def setup() -> None:
    from bench.common import _ensure_data_dir, _use_embedded_services, database_url

    _ensure_data_dir()
    _use_embedded_services()
    from core import embedded

    os.environ["REDIS_URL"] = f"{embedded.redis_url().rstrip('/')}/{REDIS_DB}"
    os.environ["DATABASE_URL"] = database_url(DATABASE)
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "false"
    from django.conf import settings

    settings.CACHES["default"]["KEY_FUNCTION"] = "bench.llm_latency.cache_key"  # before any cache is made
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    # The bench measures latency, not the limits: none of them may refuse a call.
    for name in ("SEARCH_RATE_LIMIT", "ASK_RATE_LIMIT", "LLM_USER_RATE_LIMIT", "LLM_GLOBAL_RATE_LIMIT"):
        setattr(settings, name, "1000000/m")


def ensure_corpus() -> Any:
    """The bilingual handbook, indexed with vectors and its word-translation vocabulary (once)."""
    from django.contrib.auth.models import Group, User

    from config.celery import app
    from handbook.models import Page
    from handbook.services import page_create, space_create
    from search.indexing.pipeline import pages_needing_index

    staff = Group.objects.get_or_create(name="staff")[0]
    space = space_create(slug=SPACE, title="Bench LLM", viewer_groups=[staff])
    user, _created = User.objects.get_or_create(username="bench-llm")
    user.groups.add(staff)
    if Page.objects.filter(space=space).count() >= 2 * len(CORPUS) and not pages_needing_index().exists():
        from search.embedding.model_switch import query_embedder
        from search.lexicon.word_translation import lexicon_is_stale
        from search.services import lexicon_build

        if lexicon_is_stale(query_embedder().model_name):  # the word-translation vocabulary of no LLM
            lexicon_build()
        return user
    started = time.monotonic()
    app.conf.task_always_eager = True  # index inline while writing the corpus
    try:
        for n, (title_en, text_en, title_fr, text_fr) in enumerate(CORPUS):
            for language, title, text in (("en", title_en, text_en), ("fr", title_fr, text_fr)):
                ref = f"{language}-{n}"
                if not Page.objects.filter(ref=ref).exists():
                    body = f"# {title}\n\n{text}\n\n## {title}: contacts\n\n{text.split('. ')[-1]}\n"
                    page_create(space=space, title=title, body=body, language=language, ref=ref)
        from search.services import lexicon_build

        lexicon_build()
    finally:
        app.conf.task_always_eager = False
    print(f"(corpus written and indexed in {time.monotonic() - started:.0f} s)", flush=True)
    return user


class Worker:
    """A real Celery worker for the translation tasks, reading the LLM configuration's cache."""

    def __init__(self, prefix: str, llm_url: str) -> None:
        from django.conf import settings

        env = dict(os.environ)
        env.update(
            CACHE_KEY_PREFIX=prefix,
            LLM_BASE_URL=llm_url,
            LLM_MODEL="slow-fake",
            LLM_MAX_RETRIES="0",
            LLM_USER_RATE_LIMIT="1000000/m",
            LLM_GLOBAL_RATE_LIMIT="1000000/m",
            DATABASE_URL=os.environ["DATABASE_URL"],
            REDIS_URL=settings.REDIS_URL,
        )
        command = [
            sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=threads", "--concurrency=64",
            "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=WARNING",
            "-n", f"bench-llm-{os.getpid()}@%h",
        ]  # fmt: skip
        log = open(Path(os.environ["HANDBOOK_DATA_DIR"]) / "bench-llm-worker.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 60) -> None:
        from config.celery import app

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit("the bench worker exited; see bench-llm-worker.log in the data dir")
            if app.control.ping(timeout=0.5):
                return
        raise SystemExit("the bench worker did not start")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()


# --- the fake provider ---------------------------------------------------------------------


def _paired_queries() -> dict[str, str]:
    """Each query and its counterpart in the other language (the lists are written in pairs)."""
    english = SEARCHES[:20] + SEARCHES[40:50]
    french = SEARCHES[20:40] + SEARCHES[50:60]
    pairs = dict(zip(english, french, strict=True))
    return pairs | {fr: en for en, fr in pairs.items()}


TRANSLATIONS = _paired_queries()


def _reply(payload: dict[str, Any]) -> Any:
    """A well-behaved, slow model: translations (a query's counterpart in the other language, so the
    translated pass does the work a real translation would) and answers citing passage [1]."""
    from tests.fake_llm import Reply

    messages = payload["messages"]
    if messages[0]["content"].startswith("Translate"):
        words = messages[1]["content"].split()
        suffix = [w for w in words if w in COLD_SUFFIXES]
        query = " ".join(w for w in words if w not in COLD_SUFFIXES)
        return Reply(content=json.dumps({"translation": " ".join([TRANSLATIONS.get(query, query), *suffix])}))
    if payload.get("stream"):
        return Reply(stream_chunks=["According to the handbook, ", "see the cited page ", "[1]."])
    return Reply(content=json.dumps({"answer": "According to the handbook, see the cited page [1].", "sources": [1]}))


def _translation_calls(fake: Any) -> int:
    return sum(1 for r in list(fake.requests) if r["messages"][0]["content"].startswith("Translate"))


# --- measures -------------------------------------------------------------------------------


def _configure(llm_url: str, prefix: str) -> None:
    from django.conf import settings

    settings.LLM_BASE_URL, settings.LLM_MODEL = (llm_url, "slow-fake") if llm_url else ("", "")
    _PREFIX[0] = prefix


def _search(client: Any, query: str, headers: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    response = client.get("/search/", {"q": query}, **(headers or {}))
    elapsed = time.perf_counter() - started
    assert response.status_code == 200, response.status_code
    return elapsed


def search_pass(
    client: Any, configs: dict[str, tuple[str, str]], out: dict[str, list[float]], suffix: str = ""
) -> None:
    """Every query once per configuration, the order alternating query by query."""
    names = list(configs)
    for n, query in enumerate(SEARCHES):
        for name in names if n % 2 == 0 else reversed(names):
            _configure(*configs[name])
            out[name].append(_search(client, f"{query} {suffix}".strip()))


def _wait_for(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return predicate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--asks", type=int, default=6, help="questions asked of the never-answering provider")
    parser.add_argument("--stream-asks", type=int, default=20, help="streamed questions to the slow provider")
    parser.add_argument("--warm-rounds", type=int, default=3)
    args = parser.parse_args()

    setup()
    user = ensure_corpus()
    from django.conf import settings
    from django.test import Client

    from config.celery import app
    from search.ask.answers import answer_question, stream_answer
    from search.embedding.model_switch import query_embedder
    from tests.fake_llm import FakeLLMServer

    run = time.time_ns()
    none_prefix, llm_prefix = f"bench-llm-none-{run}", f"bench-llm-llm-{run}"
    budget = settings.ASK_LLM_BUDGET_S
    results: dict[str, Any] = {"budget_s": budget, "first_token_s": settings.ASK_LLM_FIRST_TOKEN_S}
    with FakeLLMServer() as fake:
        fake.slow(seconds=SLOW_SECONDS, first_token=SLOW_FIRST_TOKEN, hang_rate=HANG_RATE)
        fake.respond = _reply
        app.control.purge()  # tasks an earlier, interrupted run left behind
        worker = Worker(llm_prefix, fake.base_url)
        try:
            worker.wait_ready()
            client = Client()
            client.force_login(user)
            configs = {"no LLM": ("", none_prefix), "LLM (slow fake)": (fake.base_url, llm_prefix)}

            # Warm the model, the database and the connections for both configurations alike.
            query_embedder().embed_query("warm-up")
            _configure("", "bench-llm-warmup")
            for query in SEARCHES:
                _search(client, query)
            gc.collect()
            gc.freeze()  # as the web process does once loaded (config/wsgi.py)

            cold: dict[str, list[float]] = {name: [] for name in configs}
            for suffix in COLD_SUFFIXES:  # a word that matches nothing: new queries, all caches cold
                search_pass(client, configs, cold, suffix)
            submitted = len(SEARCHES) * len(COLD_SUFFIXES)
            # The worker fetches the translations meanwhile (2 s each, 20 % never answer).
            _wait_for(lambda: _translation_calls(fake) >= submitted, 60)
            time.sleep(SLOW_SECONDS + 1.0)
            translations_after_cold = _translation_calls(fake)
            warm: dict[str, list[float]] = {name: [] for name in configs}
            for _ in range(args.warm_rounds):
                search_pass(client, configs, warm)
            time.sleep(1.0)
            translation_calls = _translation_calls(fake)

            # Search as you type, questions included: results, the Ask panel and its quoted answer.
            _configure(*configs["LLM (slow fake)"])
            before = fake.chat_calls
            typed_requests = 0
            typing = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": "q", "HTTP_HX_TRIGGER_NAME": "q"}
            for text in [*SEARCHES[:10], *QUESTIONS]:
                words = text.split()
                for k in range(1, len(words) + 1):
                    _search(client, "typed " + " ".join(words[:k]), typing)
                    typed_requests += 1
            for question in QUESTIONS:
                response = client.post("/ask/stream/", {"q": question, "typing": "1"})
                b"".join(response.streaming_content)
                typed_requests += 1
            time.sleep(SLOW_SECONDS + 1.0)  # anything queued would have reached the provider by now
            typing_calls = fake.chat_calls - before

            # Ask, the provider never answering: the whole answer within the budget + 1 s. The process
            # is one that has called the model before: the openai import and client set-up (seconds
            # on a busy machine, once per process) are not the question's.
            from core.llm import prepare

            _configure(*configs["LLM (slow fake)"])
            prepare()
            fake.hang()
            hang_total: list[float] = []
            hang_stream_first: list[float] = []
            for question in QUESTIONS[: args.asks]:
                started = time.perf_counter()
                answer = answer_question(user=user, question=question, rate_limit=False, use_cache=False, log=False)
                hang_total.append(time.perf_counter() - started)
                assert answer.mode != "llm"
                started = time.perf_counter()
                next(iter(stream_answer(user=user, question=question)))
                hang_stream_first.append(time.perf_counter() - started)

            # Ask streamed with the slow provider: the first words, or the fallback, in time.
            fake.slow(seconds=SLOW_SECONDS, first_token=SLOW_FIRST_TOKEN, hang_rate=HANG_RATE)
            first_event: list[float] = []
            stream_total: list[float] = []
            fallbacks = 0
            for n in range(args.stream_asks):
                question = QUESTIONS[n % len(QUESTIONS)]
                started = time.perf_counter()
                first = None
                for event in stream_answer(user=user, question=question):
                    first = first or time.perf_counter() - started
                    if event["type"] == "done":
                        fallbacks += bool(event["answer"].fallback)
                first_event.append(first or float("nan"))
                stream_total.append(time.perf_counter() - started)
        finally:
            worker.stop()

    def row(label: str, none: list[float], llm: list[float], goal: bool) -> list[Any]:
        p95_none, p95_llm = percentile(none, 95) * 1000, percentile(llm, 95) * 1000
        return [
            label, len(none), percentile(none, 50) * 1000, p95_none, percentile(llm, 50) * 1000, p95_llm,
            f"{p95_llm / p95_none:.2f}", f"≤ {GOAL_SEARCH_RATIO:.2f}" if goal else "–",
        ]  # fmt: skip

    names = list(configs)
    everything = {name: cold[name] + warm[name] for name in names}
    search_rows = [
        row("cold (first search of each query)", cold[names[0]], cold[names[1]], True),
        row("warm (translation cached)", warm[names[0]], warm[names[1]], False),
        row("all searches", everything[names[0]], everything[names[1]], True),
    ]
    headers = ["searches (/search/, full page)", "n", "no LLM p50", "no LLM p95", "LLM p50", "LLM p95", "p95 ratio"]
    print("\n### Search: no LLM vs the slow provider (ms; same run, alternating)\n")
    print(md_table([*headers, "goal"], search_rows, digits=1))
    ask_rows = [
        ["Ask, provider never answers: whole answer p95 (s)", len(hang_total), percentile(hang_total, 95),
         f"≤ {budget + 1:.1f} (budget {budget:g} + 1)"],
        ["  the slowest of them (s)", len(hang_total), max(hang_total), "–"],
        ["Ask streamed, provider never answers: fallback p95 (s)", len(hang_stream_first),
         percentile(hang_stream_first, 95), f"≤ {GOAL_STREAM_S}"],
        ["Ask streamed, slow provider: first text or fallback p95 (s)", len(first_event),
         percentile(first_event, 95), f"≤ {GOAL_STREAM_S}"],
        ["Ask streamed, slow provider: whole answer p95 (s)", len(stream_total), percentile(stream_total, 95), "–"],
        ["  of which fell back (calls never answered: 20 % on average)", len(stream_total), fallbacks, "–"],
        ["LLM calls from search-as-you-type requests", typed_requests, typing_calls, "0"],
        ["translation calls for the submitted queries (after the cold pass / at the end)", submitted,
         f"{translations_after_cold} / {translation_calls}", f"{submitted} (one per query)"],
    ]  # fmt: skip
    print("\n### Ask and LLM calls\n")
    print(md_table(["measure", "n", "value", "goal"], ask_rows, digits=2))
    results.update(
        search={"cold": cold, "warm": warm},
        ask_hang_total=hang_total,
        ask_hang_stream_first=hang_stream_first,
        stream_first_event=first_event,
        stream_total=stream_total,
        stream_fallbacks=fallbacks,
        typing_requests=typed_requests,
        typing_llm_calls=typing_calls,
        translation_calls=translation_calls,
        submitted_queries=submitted,
    )
    write_results("llm_latency", results)


if __name__ == "__main__":
    main()
