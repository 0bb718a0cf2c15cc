"""Every environment variable the code reads is in the generated settings documentation.

The "Settings" page of the documentation is generated (``scripts/settings_table.py``, run by
``make docs``) from the code's reads of the environment and the descriptions in
``docs/admin/settings.yml``. These tests need neither MkDocs nor a running service: they find the
reads in the source with a plain text search, independently of the generator, and check the table
the generator writes.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
APPS = ("config", "core", "accounts", "handbook", "statements", "comments", "summaries", "search", "api")
READS = re.compile(
    r"""\benv_(?:str|bool|int|float|list|url)\(\s*["']([A-Z][A-Z0-9_]*)["']"""
    r"""|\bos\.environ\.get\(\s*["']([A-Z][A-Z0-9_]*)["']"""
    r"""|\bos\.getenv\(\s*["']([A-Z][A-Z0-9_]*)["']"""
    r"""|\bos\.environ\[\s*["']([A-Z][A-Z0-9_]*)["']\s*\](?!\s*=[^=])"""
)


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("settings_table", ROOT / "scripts" / "settings_table.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["settings_table"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def variables_read() -> set[str]:
    """Names read from the environment in the project package and the apps (``NAME_FILE`` is NAME's)."""
    names: set[str] = set()
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for match in READS.finditer(path.read_text()):
                names.add(next(group for group in match.groups() if group))
    return {n for n in names if not (n.endswith("_FILE") and n.removesuffix("_FILE") in names)}


def test_the_code_reads_the_environment():
    names = variables_read()
    assert {"DATABASE_URL", "SECRET_KEY", "OIDC_CLIENT_ID", "HANDBOOK_PG_SHARED_BUFFERS"} <= names


def test_every_variable_read_is_in_the_generated_table():
    table = _generator().render()
    missing = sorted(n for n in variables_read() if f"| `{n}` |" not in table)
    assert not missing, f"not in the settings documentation (describe them in docs/admin/settings.yml): {missing}"


def test_every_variable_described_is_read():
    sections = yaml.safe_load((ROOT / "docs/admin/settings.yml").read_text())["sections"]
    described = {name for section in sections for name in section["settings"]}
    stale = sorted(described - variables_read())
    assert not stale, f"described in docs/admin/settings.yml but read nowhere: {stale}"


def test_the_generator_finds_what_the_text_search_finds():
    assert set(_generator().code_reads()) == variables_read()


def test_defaults_come_from_the_code():
    """A default the code states as a literal is the table's, so changing it in the code changes the docs."""
    table = _generator().render()
    rows = {line.split("|")[1].strip(" `"): line for line in table.splitlines() if line.startswith("| `")}
    assert "| `20/m` |" in rows["ASK_RATE_LIMIT"]
    assert "| `60` | integer ≥ 0 |" in rows["DATABASE_CONN_MAX_AGE"]
    assert "boolean" in rows["EMBEDDINGS_ENABLED"]


def test_a_variable_without_description_fails_the_build(monkeypatch: pytest.MonkeyPatch):
    generator = _generator()
    sections = generator.descriptions()
    trimmed = [{**s, "settings": {k: v for k, v in s["settings"].items() if k != "LLM_MODEL"}} for s in sections]
    monkeypatch.setattr(generator, "descriptions", lambda: trimmed)
    assert any(p.startswith("LLM_MODEL is read by config/settings.py") for p in generator.check())
    with pytest.raises(generator.SettingsDocError):
        generator.render()


def test_the_readme_points_to_the_settings_page():
    assert "docs/admin/settings.md" in (ROOT / "README.md").read_text()
    assert "<!-- settings-table -->" in (ROOT / "docs/admin/settings.md").read_text()
