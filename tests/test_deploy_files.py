"""The production files stay valid: compose services, healthchecks, README truths."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_compose_has_the_production_stack():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"db", "redis", "web", "worker"} <= set(services)
    assert services["db"]["image"].startswith("pgvector/pgvector")
    assert "--appendonly" in services["redis"]["command"]
    for name in ("db", "redis", "web", "worker"):
        assert "healthcheck" in services[name], name
    assert "gunicorn" in services["web"]["command"]
    assert services["worker"]["command"][:2] == ["celery", "-A"]


def test_readme_documents_every_setting():
    import re

    readme = (ROOT / "README.md").read_text()
    settings_src = (ROOT / "handbook" / "settings.py").read_text()
    names = set(re.findall(r'env_(?:str|bool|int|float|list|url)\("([A-Z_]+)"', settings_src))
    assert names, "settings read the environment"
    missing = sorted(n for n in names if f"`{n}`" not in readme)
    assert not missing, f"README lacks: {missing}"


def test_ci_calls_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "make test" in (ROOT / "README.md").read_text()
