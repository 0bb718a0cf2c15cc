"""Shared fixtures: users and groups, pages, a fake LLM server, a real Celery worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


# --- Parallel runs: a Redis per xdist worker (tests/parallel.py) -------------------


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[Any]) -> None:
    from tests.parallel import give_each_worker_a_redis

    give_each_worker_a_redis(config, specs)


def pytest_unconfigure(config: pytest.Config) -> None:
    from tests.parallel import stop_the_workers_redis

    stop_the_workers_redis(config)


# --- Fitted things: each test reads the policies, quote ranker and summary weights afresh ---


@pytest.fixture(autouse=True)
def _fitted_things_read_afresh() -> Iterator[None]:
    """Fitted things are kept per process (core/fitted.py): a policy or ranker a test stored would
    otherwise decide a later test's searches. The production decision runs in every test."""
    from core import fitted

    fitted.forget()
    yield
    fitted.forget()


# --- Embeddings: the local model computes each text once per run ------------------


@pytest.fixture(scope="session", autouse=True)
def _local_model_remembers_its_vectors() -> None:
    """Every test gets the real model's vectors; a text embedded by an earlier test is not computed
    again (tests/embedding_memo.py)."""
    from tests.embedding_memo import install

    install()


# --- Passwords: a cheap hasher ---------------------------------------------------


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Each test starts in the default language: a request through LocaleMiddleware leaves the
    reader's language active in the thread, and a later test would read its notices in French."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):  # type: ignore[no-untyped-def]
    """Users are made per test (worlds of the permission matrix, revocation trials) and log in
    through the form: the production hasher costs ~0.4 s a hash on this machine. No application
    code hashes anything itself, and production settings are checked in their own process
    (tests/handbook/test_settings_env.py)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _one_rate_limit_window(monkeypatch):  # type: ignore[no-untyped-def]
    """Rate limits count in fixed windows (``core/ratelimit.py``): a test that makes N calls under an
    N/m limit would see its count reset if a minute started between two of them. Each test counts in
    the one window it started in."""
    from types import SimpleNamespace

    from core import ratelimit

    now = ratelimit.time.time()
    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: now))


# --- Celery: eager unless a test asks for a real worker -------------------------


@pytest.fixture(autouse=True)
def _celery_eager() -> Iterator[None]:
    """Tasks run inline by default (and only when a transaction commits).

    Tests that prove behaviour of the real worker use the ``worker`` fixture,
    which switches this off for their duration.
    """
    from config.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = True


@pytest.fixture(scope="session", autouse=True)
def _search_pool_connections_closed(django_db_setup: Any) -> Iterator[None]:
    """Searches outside a transaction (live server, transactional tests) leave pool connections
    open; they are closed before the test database is dropped."""
    yield
    from search.retrieval import parallel

    parallel.close_connections()


# --- People and content ---------------------------------------------------------


@pytest.fixture
def make_user(db: Any):  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import Group, User

    def make(username: str, *groups: str, superuser: bool = False, staff: bool = False) -> User:
        user = User.objects.create_user(
            username=username, password="pw-" + username, is_staff=staff or superuser, is_superuser=superuser
        )
        for name in groups:
            user.groups.add(Group.objects.get_or_create(name=name)[0])
        return user

    return make


@pytest.fixture
def make_space(db: Any):  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import Group

    from handbook.services import space_create

    def make(slug: str, viewers: tuple[str, ...] = ("staff",), editors: tuple[str, ...] = ("editors",)):  # type: ignore[no-untyped-def]
        return space_create(
            slug=slug,
            title=slug.title(),
            viewer_groups=[Group.objects.get_or_create(name=g)[0] for g in viewers],
            editor_groups=[Group.objects.get_or_create(name=g)[0] for g in editors],
        )

    return make


@pytest.fixture
def make_page(db: Any, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """Create and publish a page; ``index=True`` runs the indexing task as a commit would."""
    from django.contrib.auth.models import Group

    from handbook.services import page_create

    def make(
        space,
        title: str,
        body: str,
        *,
        language: str = "en",
        restricted_to: tuple[str, ...] = (),  # type: ignore[no-untyped-def]
        index: bool = True,
        ref: str | None = None,
    ):
        groups = [Group.objects.get_or_create(name=g)[0] for g in restricted_to]
        with django_capture_on_commit_callbacks(execute=index):
            page = page_create(space=space, title=title, body=body, language=language, restricted_to=groups, ref=ref)
        page.refresh_from_db()
        return page

    return make


@pytest.fixture
def no_embeddings(settings):  # type: ignore[no-untyped-def]
    settings.EMBEDDINGS_ENABLED = False


# --- Fake LLM --------------------------------------------------------------------


@pytest.fixture
def fake_llm(settings):  # type: ignore[no-untyped-def]
    from tests.fake_llm import FakeLLMServer

    with FakeLLMServer() as fake:
        settings.LLM_BASE_URL = fake.base_url
        settings.LLM_MODEL = "fake-model"
        settings.LLM_API_KEY = "test-key"
        settings.LLM_TIMEOUT_S = 2.0
        settings.LLM_MAX_RETRIES = 1
        # Query translation would consume the replies a test scripts for Ask or summaries;
        # tests of translation switch it back on.
        settings.SEARCH_TRANSLATE_QUERIES = False
        yield fake


# --- A real Celery worker ---------------------------------------------------------


def _database_url() -> str:
    from django.db import connection

    params = connection.settings_dict
    host = params.get("HOST") or ""
    user = params.get("USER") or ""
    password = params.get("PASSWORD") or ""
    port = params.get("PORT") or ""
    if host.startswith("/"):
        return f"postgresql://{user}:{password}@/{params['NAME']}?host={host}"
    return f"postgresql://{user}:{password}@{host}:{port}/{params['NAME']}"


class WorkerProcess:
    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env, self.log_path = env, log_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> None:
        from config.celery import app

        log = open(self.log_path, "ab")  # noqa: SIM115 - lives as long as the process
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--loglevel=INFO",
                "--concurrency=1",
                "--pool=prefork",
                "--without-gossip",
                "--without-mingle",
                "-n",
                f"test-{os.getpid()}@%h",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited early; see {self.log_path}")
            if app.control.ping(timeout=0.5, limit=1):  # limit: back as soon as it answers
                return
        raise RuntimeError(f"worker did not answer within {timeout}s; see {self.log_path}")

    def kill(self) -> None:
        """SIGKILL the whole worker (parent and pool children), like a crashed machine."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="session")
def _worker_process(django_db_setup, django_db_blocker, tmp_path_factory):  # type: ignore[no-untyped-def]
    from django.conf import settings

    from config.celery import app

    with django_db_blocker.unblock():
        env = dict(os.environ)
        env.update(
            DATABASE_URL=_database_url(),
            REDIS_URL=settings.REDIS_URL,
            CELERY_TASK_ALWAYS_EAGER="false",
            DJANGO_SETTINGS_MODULE="config.settings",
        )
        app.control.purge()
        worker = WorkerProcess(env, tmp_path_factory.mktemp("worker") / "worker.log")
        worker.start()
    yield worker
    worker.stop()


@pytest.fixture
def worker(_worker_process, transactional_db):  # type: ignore[no-untyped-def]
    """A real worker process consuming from the real Redis; data must be committed."""
    from config.celery import app

    if _worker_process.process.poll() is not None:
        _worker_process.start()
    app.conf.task_always_eager = False
    yield _worker_process
    app.conf.task_always_eager = True
    _drain(app)


def _drain(app, timeout: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    """Let the worker go idle before the database is flushed (a running task would deadlock TRUNCATE)."""
    app.control.purge()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # One worker: limit=1 returns on its reply instead of waiting out the timeout.
        active = app.control.inspect(timeout=1.0, limit=1).active() or {}
        if not any(active.values()):
            return
        time.sleep(0.1)


def wait_for(predicate, timeout: float = 60.0, interval: float = 0.2) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


# --- A second embedding model: the bundled e5 on another similarity scale ---------
# (tests/second_model.py: unrelated texts near cosine 0, as with hosted models, where e5 puts them above 0.7)


@pytest.fixture
def second_model(settings):  # type: ignore[no-untyped-def]
    """The app embeds through ``tests/second_model.py``'s server: ``get_embedder()`` is an ``OpenAIEmbedder``
    talking to it. Yields the server: ``.url``, ``.model``, ``.stats()``.

    ``get_embedder()`` caches one embedder per (URL, model, key, dimensions, timeout): each server has
    its own port, hence a fresh one, but the cache is emptied on both sides so that no test gets (or
    leaves behind) an embedder whose server has stopped. Settings are restored by ``settings``.
    Search encodes queries with the model recorded as *serving* (``model_switch.query_embedder``):
    a test whose index was filled by another model still searches with that one.
    """
    from search.embedding import embedders
    from tests.second_model import SecondModelServer

    with SecondModelServer() as server:
        settings.EMBEDDINGS_ENABLED = True
        settings.EMBEDDINGS_BASE_URL = server.url
        settings.EMBEDDINGS_MODEL = server.model
        settings.EMBEDDINGS_DIMENSIONS = 384
        settings.EMBEDDINGS_API_KEY = "test-key"
        embedders._remote.cache_clear()
        try:
            yield server
        finally:
            embedders._remote.cache_clear()
