"""Settings refuse bad values, and production refuses unsafe ones."""

from __future__ import annotations

import pytest

from tests.handbook.settings_process import (
    DEV_KEY,
    GOOD_KEY,
    SECURITY_SETTINGS,
    import_settings,
    production,
    run_python,
    settings_env,
)

# --- settings, imported in a fresh process -----------------------------------------------


def test_settings_import_with_good_values():
    result = import_settings(DEBUG="yes", LLM_BASE_URL="http://127.0.0.1:9/v1", LLM_MODEL="m")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "DEBUG True handbook m"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"DEBUG": "maybe"}, "DEBUG='maybe' is not a boolean"),
        ({"LLM_BASE_URL": "http://127.0.0.1:9/v1"}, "LLM_BASE_URL is set but LLM_MODEL is not."),
        ({"DATABASE_URL": "mysql://u:p@db/handbook"}, "DATABASE_URL must start with one of postgres://, postgresql://"),
        ({"REDIS_URL": "memcached://x"}, "REDIS_URL must start with one of redis://, rediss://, unix://"),
        ({"LLM_BASE_URL": "ftp://x", "LLM_MODEL": "m"}, "LLM_BASE_URL must start with one of http://, https://"),
        ({"LLM_TIMEOUT_S": "soon"}, "LLM_TIMEOUT_S='soon' is not a number"),
        ({"EMBEDDINGS_DIMENSIONS": "5000"}, "EMBEDDINGS_DIMENSIONS=5000 is above the maximum 2000"),
        ({"HANDBOOK_PRODUCTION": "true"}, "SECRET_KEY must be set in production"),
        ({"SECRET_KEY_FILE": "/nonexistent/secret"}, "SECRET_KEY_FILE='/nonexistent/secret' cannot be read"),
    ],
    ids=[
        "debug",
        "llm-model",
        "database-scheme",
        "redis-scheme",
        "llm-scheme",
        "llm-timeout",
        "dimensions",
        "production-secret",
        "secret-file",
    ],
)
def test_settings_refuse_bad_configuration(overrides, message):  # type: ignore[no-untyped-def]
    result = import_settings(**overrides)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def test_production_with_secret_key_file(tmp_path):  # type: ignore[no-untyped-def]
    secret = tmp_path / "key"
    secret.write_text(GOOD_KEY + "\n")
    code_env = {"HANDBOOK_PRODUCTION": "true", "SECRET_KEY_FILE": str(secret)}
    result = import_settings(**code_env)
    assert result.returncode == 0, result.stderr


# --- production: unsafe settings stop the start ----------------------------------------------


def test_good_production_configuration_is_accepted():
    """A generated key, DEBUG off: the start goes on, redirects to HTTPS except /healthz, and
    believes no proxy header it was not told to."""
    result = run_python("-c", SECURITY_SETTINGS, env=settings_env(**production()))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False True None ['^healthz$']"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"DEBUG": "true"}, "DEBUG must be false in production (HANDBOOK_PRODUCTION=true)"),
        ({"DEBUG": "1", "SECRET_KEY": ""}, "DEBUG must be false in production"),
        ({"SECRET_KEY": "abc"}, "SECRET_KEY is 3 characters long, fewer than 50"),
        ({"SECRET_KEY": GOOD_KEY[:49]}, "SECRET_KEY is 49 characters long, fewer than 50"),
        ({"SECRET_KEY": DEV_KEY}, "SECRET_KEY is the development key published in the source"),
        ({"SECRET_KEY": "django-insecure-" + GOOD_KEY}, "SECRET_KEY starts with 'django-insecure-'"),
        ({"SECRET_KEY": "changeme" * 8}, "SECRET_KEY contains the placeholder 'changeme'"),
        ({"SECRET_KEY": "Change-Me-" + GOOD_KEY}, "SECRET_KEY contains the placeholder 'changeme'"),
        ({"SECRET_KEY": "your-secret-key-" + GOOD_KEY}, "SECRET_KEY contains the placeholder 'yoursecret'"),
        ({"SECRET_KEY": "ab" * 30}, "SECRET_KEY has 2 distinct characters, fewer than 10"),
        ({"SECRET_KEY": "012345678" * 6}, "SECRET_KEY has 9 distinct characters, fewer than 10"),
        ({"TRUST_X_FORWARDED_PROTO": "sure"}, "TRUST_X_FORWARDED_PROTO='sure' is not a boolean"),
    ],
    ids=[
        "debug",
        "debug-before-key",
        "short-key",
        "49-characters",
        "dev-key",
        "django-insecure",
        "changeme",
        "change-me",
        "your-secret-key",
        "two-characters",
        "nine-characters",
        "proxy-flag",
    ],
)
def test_production_refuses_unsafe_settings(overrides, message):  # type: ignore[no-untyped-def]
    result = run_python("-c", SECURITY_SETTINGS, env=settings_env(**production(**overrides)))
    assert result.returncode != 0, result.stdout
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr
    assert GOOD_KEY not in result.stderr  # the message names the variable, never echoes the key


def test_production_refuses_a_weak_key_from_a_file(tmp_path):  # type: ignore[no-untyped-def]
    secret = tmp_path / "key"
    secret.write_text("changeme\n")
    env = settings_env(**production(SECRET_KEY="", SECRET_KEY_FILE=str(secret)))
    result = run_python("-c", SECURITY_SETTINGS, env=env)
    assert result.returncode != 0
    assert "SECRET_KEY is 8 characters long" in result.stderr


def test_outside_production_the_dev_key_and_debug_still_work():
    result = run_python("-c", "import config.settings as s; print(s.DEBUG, s.SECRET_KEY)", env=settings_env(DEBUG="1"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", DEV_KEY]


def test_proxy_header_is_trusted_only_when_enabled():
    for env, expected in [
        (production(), "None"),
        (production(TRUST_X_FORWARDED_PROTO="false"), "None"),
        (production(TRUST_X_FORWARDED_PROTO="true"), "('HTTP_X_FORWARDED_PROTO', 'https')"),
    ]:
        result = run_python(
            "-c", "import config.settings as s; print(s.SECURE_PROXY_SSL_HEADER)", env=settings_env(**env)
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == expected, env


@pytest.mark.parametrize("trust", ["false", "true"])
def test_check_deploy_has_no_warnings_in_production(trust):  # type: ignore[no-untyped-def]
    env = settings_env(**production(TRUST_X_FORWARDED_PROTO=trust))
    result = run_python("manage.py", "check", "--deploy", "--fail-level", "WARNING", env=env, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


@pytest.mark.parametrize(
    ("key", "weakness"),
    [
        ("", "is empty"),
        (DEV_KEY, "is the development key"),
        ("x" * 49, "fewer than 50"),
        ("INSECURE" + GOOD_KEY, "placeholder 'insecure'"),
        ("abcdefghi" * 6, "9 distinct characters"),
        (GOOD_KEY, ""),
        ("0123456789abcdef" * 4, ""),  # a hex key: 16 distinct characters
    ],
)
def test_secret_key_weakness(key, weakness):  # type: ignore[no-untyped-def]
    from config.env import secret_key_weakness

    found = secret_key_weakness(key, known=(DEV_KEY,))
    assert (weakness in found) if weakness else found == ""


# --- settings read configuration and nothing else ---------------------------------------------


def test_settings_start_no_service_without_urls(tmp_path):  # type: ignore[no-untyped-def]
    """Without DATABASE_URL and REDIS_URL, importing the settings starts no database and no Redis:
    that is the entry points' job (manage.py, the scripts), not a side effect of an import."""
    env = settings_env(HANDBOOK_DATA_DIR=str(tmp_path))
    del env["DATABASE_URL"], env["REDIS_URL"]
    code = "import config.settings as s; print(s.DATABASES['default']['HOST'], s.CELERY_BROKER_URL)"
    result = run_python("-c", code, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["unconfigured", "redis://unconfigured:6379"]
    assert list(tmp_path.iterdir()) == []  # no embedded Postgres or Redis data was made


def test_production_needs_the_service_urls():
    env = settings_env(**production())
    del env["DATABASE_URL"]
    result = run_python("-c", "import config.settings", env=env)
    assert result.returncode != 0
    assert "DATABASE_URL and REDIS_URL must be set in production" in result.stderr


def test_embedded_env_entry_point_prints_urls_only_for_what_is_unset(tmp_path):  # type: ignore[no-untyped-def]
    """``python -m core.embedded env`` (the scripts' entry point) leaves configured services alone."""
    env = settings_env(HANDBOOK_DATA_DIR=str(tmp_path))
    result = run_python("-m", "core.embedded", "env", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""  # both URLs are set: nothing to start
    assert list(tmp_path.iterdir()) == []
    off = settings_env(HANDBOOK_DATA_DIR=str(tmp_path), HANDBOOK_EMBEDDED="0")
    del off["DATABASE_URL"], off["REDIS_URL"]
    assert run_python("-m", "core.embedded", "env", env=off).stdout == ""  # switched off: none started
    assert list(tmp_path.iterdir()) == []
