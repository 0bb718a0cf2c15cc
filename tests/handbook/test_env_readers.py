"""Configuration from the environment: the typed readers fail loudly."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_float, env_int, env_list, env_str, env_url

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
