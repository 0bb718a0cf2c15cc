"""Configuration from the environment: typed readers fail loudly, settings refuse bad values."""

from __future__ import annotations

import http.client
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
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
    # Set by the browser tests' conftest for Playwright's event loop; a deployment never has it.
    "DJANGO_ALLOW_ASYNC_UNSAFE",
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
    "ALLOWED_HOSTS",
    "TRUST_X_FORWARDED_PROTO",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
)


def settings_env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    # Unreachable but well-formed URLs: importing settings must not need (or start) any server.
    env.update(DATABASE_URL="postgresql://u:p@127.0.0.1:9/handbook", REDIS_URL="redis://127.0.0.1:9")
    env.update(overrides)
    return env


def run_python(*args: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def import_settings(**overrides: str) -> subprocess.CompletedProcess[str]:
    code = "import handbook.settings as s; print('DEBUG', s.DEBUG, s.DATABASES['default']['NAME'], s.LLM_MODEL)"
    return run_python("-c", code, env=settings_env(**overrides))


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

# Generated with secrets.token_urlsafe(50) for these tests; never used anywhere else.
GOOD_KEY = "JuKKBoNFhjpTd2D_A-7170al2-9pWbEUFc27P1jrlba16cqC7CguiHw_DCZdm9ic0co"
DEV_KEY = "dev-only-insecure-key-handbook-0000000000000000000000000000"
SECURITY_SETTINGS = (
    "import handbook.settings as s; "
    "print(s.DEBUG, s.SECURE_SSL_REDIRECT, s.SECURE_PROXY_SSL_HEADER, s.SECURE_REDIRECT_EXEMPT)"
)


def production(**overrides: str) -> dict[str, str]:
    return {"HANDBOOK_PRODUCTION": "true", "SECRET_KEY": GOOD_KEY, "ALLOWED_HOSTS": "handbook.example.com"} | overrides


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
    result = run_python(
        "-c", "import handbook.settings as s; print(s.DEBUG, s.SECRET_KEY)", env=settings_env(DEBUG="1")
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", DEV_KEY]


def test_proxy_header_is_trusted_only_when_enabled():
    for env, expected in [
        (production(), "None"),
        (production(TRUST_X_FORWARDED_PROTO="false"), "None"),
        (production(TRUST_X_FORWARDED_PROTO="true"), "('HTTP_X_FORWARDED_PROTO', 'https')"),
    ]:
        result = run_python(
            "-c", "import handbook.settings as s; print(s.SECURE_PROXY_SSL_HEADER)", env=settings_env(**env)
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
    from handbook.env import secret_key_weakness

    found = secret_key_weakness(key, known=(DEV_KEY,))
    assert (weakness in found) if weakness else found == ""


# --- the Docker image ------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per Dockerfile instruction, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def dockerfile_runtime_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for instruction, args in final_stage():
        if instruction == "ENV":
            words = shlex.split(args)
            if all("=" in word for word in words):
                env.update(word.split("=", 1) for word in words)
            else:  # legacy form: ENV NAME value
                env[words[0]] = " ".join(words[1:])
    return env


def test_image_holds_no_secret_key():
    for instruction, args in dockerfile_instructions():
        if instruction in {"ENV", "ARG", "LABEL"}:
            assert "SECRET_KEY" not in args, (instruction, args)
    assert "SECRET_KEY" not in dockerfile_runtime_env()


def final_stage() -> list[tuple[str, str]]:
    instructions = dockerfile_instructions()
    last_from = max(i for i, (kind, _args) in enumerate(instructions) if kind == "FROM")
    return instructions[last_from + 1 :]


def test_image_leaves_the_secrets_of_the_build_context_out(tmp_path):  # type: ignore[no-untyped-def]
    """GIVEN a build context holding an .env file (README tells operators to write SECRET_KEY
    there), the embedded services' data and a virtualenv beside the application
    WHEN the image's files are put together
    THEN none of those reach the image (``COPY . .`` used to copy them) and every app does."""
    from django.conf import settings

    # The final stage takes the application from the cleaning stage, never from the context.
    for kind, args in final_stage():
        if kind in {"COPY", "ADD"}:
            words = shlex.split(args)
            assert words[0].startswith("--from=") or words[:-1] == ["requirements.txt"], args
    instructions = dockerfile_instructions()
    stage = next(args.split()[-1] for kind, args in instructions if kind == "FROM" and " AS " in args.upper())
    copied = [args for kind, args in instructions if kind == "COPY" and args.startswith(f"--from={stage} ")]
    assert copied == [f"--from={stage} /src /app"], copied
    (cleaning,) = [args for kind, args in instructions if kind == "RUN" and args.startswith("cd /src ")]

    # Run the cleaning step on a context like an operator's checkout.
    context = tmp_path / "src"
    for name in (".env", ".env.production", "prod.env", "var/pg/PG_VERSION", ".venv/bin/python", ".git/config"):
        (context / name).parent.mkdir(parents=True, exist_ok=True)
        (context / name).write_text("SECRET_KEY=" + GOOD_KEY)
    local_apps = {app.split(".")[0] for app in settings.INSTALLED_APPS if (ROOT / app.split(".")[0]).is_dir()}
    kept = {*local_apps, "manage.py", "templates", "static", "locale"}
    for name in kept:
        (context / name).mkdir(parents=True, exist_ok=True)
    subprocess.run(["sh", "-c", cleaning.replace("/src", str(context))], check=True, timeout=30)
    left = {path.name for path in context.iterdir()}
    assert left == kept, left
    assert not any(GOOD_KEY in path.read_text() for path in context.rglob("*") if path.is_file())


def test_image_alone_refuses_to_start_without_a_key():
    """``docker run`` with no configuration: production mode, and no key to fall back on."""
    runtime = dockerfile_runtime_env()
    assert runtime.get("HANDBOOK_PRODUCTION") == "true"
    result = run_python("-c", SECURITY_SETTINGS, env=settings_env(**runtime))
    assert result.returncode != 0, result.stdout
    assert "SECRET_KEY must be set in production" in result.stderr


def test_image_build_key_is_refused_at_run_time():
    """collectstatic at build time imports the settings with some key; a start must refuse it."""
    (run,) = [
        args for instruction, args in dockerfile_instructions() if instruction == "RUN" and "collectstatic" in args
    ]
    words = shlex.split(run)
    build_env = dict(word.split("=", 1) for word in words[: words.index("python")])
    code = "import handbook.settings as s; print(s.SECRET_KEY)"
    build = run_python("-c", code, env=settings_env(**(dockerfile_runtime_env() | build_env)))
    assert build.returncode == 0, build.stderr  # the build itself works
    build_key = build.stdout.strip()
    runtime = settings_env(**dockerfile_runtime_env(), SECRET_KEY=build_key, ALLOWED_HOSTS="handbook.example.com")
    result = run_python("-c", SECURITY_SETTINGS, env=runtime)
    assert result.returncode != 0, result.stdout
    assert "ImproperlyConfigured: SECRET_KEY " in result.stderr


# --- docker-compose.yml ------------------------------------------------------------------------

_COMPOSE_VARIABLE = re.compile(r"\$\{(\w+)(?:(:?[-?])([^}]*))?\}")


def interpolate(value: str, variables: dict[str, str]) -> str:
    """Compose's ``${NAME}``, ``${NAME:-default}`` and ``${NAME:?error}``."""

    def replace(match: re.Match[str]) -> str:
        name, operator, argument = match.groups()
        given = variables.get(name, "")
        if operator and operator.endswith("?") and not given:
            raise KeyError(f"{name} is required: {argument}")
        if operator and operator.endswith("-") and not given:
            return argument
        return given

    return _COMPOSE_VARIABLE.sub(replace, value)


def compose() -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


COMPOSE_VARIABLES = {"SECRET_KEY": GOOD_KEY, "POSTGRES_PASSWORD": "pw", "ALLOWED_HOSTS": "handbook.example.com"}


def compose_env(service: str, variables: dict[str, str] = COMPOSE_VARIABLES) -> dict[str, str]:
    environment = compose()["services"][service]["environment"]
    return {name: interpolate(str(value), variables) for name, value in environment.items()}


@pytest.mark.parametrize("variable", ["SECRET_KEY", "POSTGRES_PASSWORD", "ALLOWED_HOSTS"])
def test_compose_requires_secrets_and_the_host_name(variable):  # type: ignore[no-untyped-def]
    for service in ("migrate", "web", "worker-interactive", "worker-bulk", "beat"):
        with pytest.raises(KeyError, match=f"{variable} is required: set {variable}"):
            compose_env(service, {k: v for k, v in COMPOSE_VARIABLES.items() if k != variable})
    raw = compose()["services"]["web"]["environment"]
    assert raw["SECRET_KEY"].startswith("${SECRET_KEY:?")
    assert raw["ALLOWED_HOSTS"].startswith("${ALLOWED_HOSTS:?")


def test_compose_trusts_the_proxy_header_only_behind_loopback():
    """web believes X-Forwarded-Proto only because nothing but a proxy on the host can reach it."""
    services = compose()["services"]
    for name in ("migrate", "web", "worker-interactive", "worker-bulk", "beat"):
        env = compose_env(name)
        assert env["HANDBOOK_PRODUCTION"] == "true", name
        assert env["TRUST_X_FORWARDED_PROTO"] == "true", name
        assert env.get("DEBUG", "false") == "false", name
    ports = [str(port) for port in services["web"]["ports"]]
    assert ports and all(port.startswith("127.0.0.1:") for port in ports), ports
    assert all("ports" not in services[name] for name in services if name != "web")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_compose_web_healthcheck_passes_against_production_settings(tmp_path):  # type: ignore[no-untyped-def]
    """GIVEN gunicorn started with web's environment from docker-compose.yml (production mode)
    WHEN the compose health check command runs against it over plain HTTP
    THEN it succeeds (it used to get a 301 to https, and a 400 for its 127.0.0.1 Host header),
    while any other plain-HTTP request is still redirected to HTTPS."""
    from django.conf import settings

    web = compose()["services"]["web"]
    # The test run's Postgres and Redis stand in for compose's db and redis services.
    services = {"DATABASE_URL": settings.DATABASE_URL, "REDIS_URL": settings.REDIS_URL}
    env = settings_env(**(compose_env("web") | services))
    port = _free_port()

    def get(path: str, **headers: str) -> http.client.HTTPResponse:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("GET", path, headers={"Host": "handbook.example.com", **headers})
        return connection.getresponse()

    log = (tmp_path / "gunicorn.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "handbook.wsgi:application", "--bind", f"127.0.0.1:{port}", "-w", "1"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        # Ready once its worker answers anything (booting Django takes a few seconds here).
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, (tmp_path / "gunicorn.log").read_text()
            try:
                get("/")
                break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)

        test = web["healthcheck"]["test"]
        assert test[:3] == ["CMD", "python", "-c"]
        assert "http://127.0.0.1:8000/healthz" in test[3]
        probe = run_python("-c", test[3].replace("127.0.0.1:8000", f"127.0.0.1:{port}"), env=env, timeout=30)
        assert probe.returncode == 0, probe.stderr + (tmp_path / "gunicorn.log").read_text()

        redirected = get("/")
        assert redirected.status == 301
        assert redirected.getheader("Location") == "https://handbook.example.com/"
        through_proxy = get("/", **{"X-Forwarded-Proto": "https"})
        assert through_proxy.status == 302
        assert through_proxy.getheader("Location").startswith("/accounts/login/")
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
