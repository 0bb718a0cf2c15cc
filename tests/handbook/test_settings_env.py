"""Configuration from the environment: typed readers fail loudly, settings refuse bad values."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from handbook.env import env_bool, env_float, env_int, env_list, env_str, env_url

ROOT = Path(__file__).resolve().parents[2]
NAME = "HANDBOOK_TEST_VALUE"


@pytest.fixture
def env(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.delenv(NAME, raising=False)
    monkeypatch.delenv(NAME + "_FILE", raising=False)

    def set_value(value: str) -> None:
        monkeypatch.setenv(NAME, value)

    return set_value


# --- env_bool ------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["1", "true", "TRUE", " yes ", "On"])
def test_env_bool_true(env, raw):  # type: ignore[no-untyped-def]
    env(raw)
    assert env_bool(NAME, False) is True


@pytest.mark.parametrize("raw", ["0", "false", "No", "off", ""])
def test_env_bool_false(env, raw):  # type: ignore[no-untyped-def]
    env(raw)
    assert env_bool(NAME, True) is False


def test_env_bool_unset_is_default(env):  # type: ignore[no-untyped-def]
    assert env_bool(NAME, True) is True
    assert env_bool(NAME, False) is False


@pytest.mark.parametrize("raw", ["maybe", "2", "y", "truee", "enabled"])
def test_env_bool_rejects_anything_else(env, raw):  # type: ignore[no-untyped-def]
    env(raw)
    with pytest.raises(ImproperlyConfigured, match=f"{NAME}=.*is not a boolean"):
        env_bool(NAME, False)


# --- env_int / env_float ------------------------------------------------------------------


def test_env_int_reads_and_defaults(env):  # type: ignore[no-untyped-def]
    assert env_int(NAME, 7) == 7
    env(" 42 ")
    assert env_int(NAME, 7) == 42
    env("")
    assert env_int(NAME, 7) == 7


@pytest.mark.parametrize("raw", ["abc", "1.5", "10k", "0x10"])
def test_env_int_rejects_non_integers(env, raw):  # type: ignore[no-untyped-def]
    env(raw)
    with pytest.raises(ImproperlyConfigured, match="is not an integer"):
        env_int(NAME, 1)


def test_env_int_bounds(env):  # type: ignore[no-untyped-def]
    env("5")
    with pytest.raises(ImproperlyConfigured, match="below the minimum 10"):
        env_int(NAME, 60, minimum=10)
    env("5000")
    with pytest.raises(ImproperlyConfigured, match="above the maximum 2000"):
        env_int(NAME, 384, minimum=1, maximum=2000)
    env("10")
    assert env_int(NAME, 60, minimum=10, maximum=10) == 10


def test_env_float_reads_and_defaults(env):  # type: ignore[no-untyped-def]
    assert env_float(NAME, 2.5) == 2.5
    env("0.25")
    assert env_float(NAME, 2.5) == 0.25
    env("1e1")
    assert env_float(NAME, 2.5) == 10.0


@pytest.mark.parametrize("raw", ["fast", "1,5", "--1"])
def test_env_float_rejects_non_numbers(env, raw):  # type: ignore[no-untyped-def]
    env(raw)
    with pytest.raises(ImproperlyConfigured, match="is not a number"):
        env_float(NAME, 1.0)


def test_env_float_minimum(env):  # type: ignore[no-untyped-def]
    env("0")
    with pytest.raises(ImproperlyConfigured, match="below the minimum 0.1"):
        env_float(NAME, 30.0, minimum=0.1)


def test_env_float_rejects_nan(env):  # type: ignore[no-untyped-def]
    env("nan")
    with pytest.raises(ImproperlyConfigured):
        env_float(NAME, 30.0, minimum=0.1)


# --- env_list / env_str / env_url -------------------------------------------------------


def test_env_list(env):  # type: ignore[no-untyped-def]
    assert env_list(NAME, ["a"]) == ["a"]
    env(" x.example.com, y.example.com,, ,z ")
    assert env_list(NAME, ["a"]) == ["x.example.com", "y.example.com", "z"]
    env("")
    assert env_list(NAME, ["a"]) == []


def test_env_str_plain_and_default(env):  # type: ignore[no-untyped-def]
    assert env_str(NAME, "fallback") == "fallback"
    env("value")
    assert env_str(NAME, "fallback") == "value"


def test_env_str_file_wins(env, monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    secret = tmp_path / "secret"
    secret.write_text("  from-file\n")
    env("from-env")
    monkeypatch.setenv(NAME + "_FILE", str(secret))
    assert env_str(NAME) == "from-file"


def test_env_str_unreadable_file(env, monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    missing = tmp_path / "nope"
    monkeypatch.setenv(NAME + "_FILE", str(missing))
    with pytest.raises(ImproperlyConfigured, match=f"{NAME}_FILE=.*nope.*cannot be read"):
        env_str(NAME)


def test_env_url(env, monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    assert env_url(NAME, schemes=("postgres", "postgresql")) == ""
    env("postgresql://u:p@db:5432/handbook")
    assert env_url(NAME, schemes=("postgres", "postgresql")) == "postgresql://u:p@db:5432/handbook"
    env("mysql://u:p@db/handbook")
    with pytest.raises(ImproperlyConfigured, match=f"{NAME} must start with one of postgres://, postgresql://"):
        env_url(NAME, schemes=("postgres", "postgresql"))
    url_file = tmp_path / "url"
    url_file.write_text("redis://cache:6379\n")
    monkeypatch.setenv(NAME + "_FILE", str(url_file))
    assert env_url(NAME, schemes=("redis",)) == "redis://cache:6379"
    url_file.write_text("http://cache:6379\n")
    with pytest.raises(ImproperlyConfigured):
        env_url(NAME, schemes=("redis",))


def test_env_url_needs_the_separator(env):  # type: ignore[no-untyped-def]
    env("postgres")
    with pytest.raises(ImproperlyConfigured):
        env_url(NAME, schemes=("postgres", "postgresql"))


# --- settings, imported in a fresh process -----------------------------------------------

_CLEARED = (
    "DEBUG",
    "SECRET_KEY",
    "SECRET_KEY_FILE",
    "HANDBOOK_PRODUCTION",
    "DATABASE_URL",
    "DATABASE_URL_FILE",
    "REDIS_URL",
    "REDIS_URL_FILE",
    "LLM_BASE_URL",
    "LLM_MODEL",
    "LLM_TIMEOUT_S",
    "LLM_MAX_RETRIES",
    "EMBEDDINGS_BASE_URL",
    "EMBEDDINGS_DIMENSIONS",
    "DJANGO_SETTINGS_MODULE",
)


def import_settings(**overrides: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    # Unreachable but well-formed URLs: importing settings must not need (or start) any server.
    env.update(DATABASE_URL="postgresql://u:p@127.0.0.1:9/handbook", REDIS_URL="redis://127.0.0.1:9")
    env.update(overrides)
    code = "import handbook.settings as s; print('DEBUG', s.DEBUG, s.DATABASES['default']['NAME'], s.LLM_MODEL)"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )


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
    secret.write_text("s" * 50 + "\n")
    code_env = {"HANDBOOK_PRODUCTION": "true", "SECRET_KEY_FILE": str(secret)}
    result = import_settings(**code_env)
    assert result.returncode == 0, result.stderr
