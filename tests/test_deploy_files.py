"""The production files stay valid: compose services, healthchecks, README truths.

That every setting is documented is tests/test_settings_documented.py's.
"""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_compose_has_the_production_stack():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"db", "redis", "web", "worker-interactive", "worker-bulk", "beat"} <= set(services)
    assert services["db"]["image"].startswith("pgvector/pgvector")
    assert "--appendonly" in services["redis"]["command"]
    for name in ("db", "redis", "web", "worker-interactive", "worker-bulk"):
        assert "healthcheck" in services[name], name
    assert "gunicorn" in services["web"]["command"]


def test_compose_has_a_worker_service_per_queue_that_scales():
    """`docker compose up --scale worker-bulk=N`: no fixed name or port, a node name per container."""
    from core.queues import QUEUES

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    for queue in QUEUES:
        worker = services[f"worker-{queue}"]
        command = worker["command"]
        assert command[:3] == ["celery", "-A", "config"] and "worker" in command
        assert command[command.index("-Q") + 1] == queue
        assert command[command.index("--hostname") + 1] == f"{queue}@%h"
        assert f"{queue}@$$HOSTNAME" in worker["healthcheck"]["test"][1]
        assert "container_name" not in worker and "ports" not in worker


def test_compose_replica_streams_from_db_under_its_profile():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    replica = compose["services"]["db-replica"]
    assert replica["profiles"] == ["replica"], "optional: started with --profile replica"
    assert replica["image"] == compose["services"]["db"]["image"]
    script = replica["command"][0]
    assert "pg_basebackup -h db" in script and " -R " in script and "exec postgres" in script
    assert replica["depends_on"]["db"]["condition"] == "service_healthy"
    hba = ROOT / "deploy" / "postgres" / "allow-replication.sh"
    mount = f"./{hba.relative_to(ROOT)}:/docker-entrypoint-initdb.d/allow-replication.sh:ro"
    assert mount in compose["services"]["db"]["volumes"] and "host replication" in hba.read_text()
    assert "DATABASE_REPLICA_URLS" in compose["services"]["web"]["environment"]


def test_ci_calls_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "make test" in (ROOT / "README.md").read_text()
