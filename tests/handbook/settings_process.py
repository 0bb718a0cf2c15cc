"""Settings imported in a fresh process, as a deployment would: the environment helpers of the settings tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

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
    code = "import config.settings as s; print('DEBUG', s.DEBUG, s.DATABASES['default']['NAME'], s.LLM_MODEL)"
    return run_python("-c", code, env=settings_env(**overrides))


# Generated with secrets.token_urlsafe(50) for these tests; never used anywhere else.
GOOD_KEY = "JuKKBoNFhjpTd2D_A-7170al2-9pWbEUFc27P1jrlba16cqC7CguiHw_DCZdm9ic0co"
DEV_KEY = "dev-only-insecure-key-handbook-0000000000000000000000000000"
SECURITY_SETTINGS = (
    "import config.settings as s; "
    "print(s.DEBUG, s.SECURE_SSL_REDIRECT, s.SECURE_PROXY_SSL_HEADER, s.SECURE_REDIRECT_EXEMPT)"
)


def production(**overrides: str) -> dict[str, str]:
    return {"HANDBOOK_PRODUCTION": "true", "SECRET_KEY": GOOD_KEY, "ALLOWED_HOSTS": "handbook.example.com"} | overrides
