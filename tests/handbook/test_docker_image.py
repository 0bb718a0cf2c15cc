"""The Docker image and the compose file: no secret baked in, production settings enforced."""

from __future__ import annotations

import http.client
import re
import shlex
import socket
import subprocess
import sys
import time

import pytest
import yaml

from tests.handbook.settings_process import (
    GOOD_KEY,
    ROOT,
    SECURITY_SETTINGS,
    run_python,
    settings_env,
)

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
    code = "import config.settings as s; print(s.SECRET_KEY)"
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
        [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}", "-w", "1"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        # Ready once its worker has answered /healthz (booting Django and loading every app's views
        # takes seconds on a busy machine; compose gives the first probes a start period and retries).
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, (tmp_path / "gunicorn.log").read_text()
            try:
                get("/healthz")
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
