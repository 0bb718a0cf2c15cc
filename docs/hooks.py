"""MkDocs hooks (mkdocs.yml ``hooks:``): the parts of the documentation generated from the project.

A page holds a marker where generated Markdown goes:

- ``<!-- settings-table -->``: every environment variable, from the code that reads it and its
  description in ``docs/admin/settings.yml`` (``scripts/settings_table.py``; a variable read but not
  described, or described but not read, fails the build);
- ``<!-- api-reference -->``: the REST API's operations and shapes, from the live OpenAPI schema
  of the django-ninja ``api`` object (imported in a child process with the project's settings,
  which read the environment and start nothing);
- ``<!-- bench-results -->``: the figures of the result files ``make bench`` and ``make prove``
  wrote under ``bench/results/`` on this machine, with the date and machine each file records.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
MARKERS = ("<!-- settings-table -->", "<!-- api-reference -->", "<!-- bench-results -->")

_SCHEMA_SCRIPT = """
import json, django
django.setup()
from api.views import api
print(json.dumps(api.get_openapi_schema()))
"""


def _settings_table() -> str:
    spec = importlib.util.spec_from_file_location("settings_table", ROOT / "scripts" / "settings_table.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["settings_table"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return str(module.render())


# --- the API reference -------------------------------------------------------------------------


def openapi_schema() -> dict[str, Any]:
    """The schema the running site serves at /api/v1/openapi.json, without running it."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # As the image build's collectstatic: no production checks, no embedded service started.
        "HANDBOOK_PRODUCTION": "false",
        "HANDBOOK_EMBEDDED": "0",
        "DEBUG": "false",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-c", _SCHEMA_SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        raise RuntimeError(f"the OpenAPI schema could not be built:\n{done.stderr}")
    return dict(json.loads(done.stdout))


def _anchor(name: str) -> str:
    return "schema-" + name.lower()


def _type(schema: dict[str, Any]) -> str:
    """A schema as a short phrase: ``string``, ``array of [SearchHit](#…)``, ``integer, 1–100``…"""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(name)})"
    if "anyOf" in schema:
        kinds = [_type(s) for s in schema["anyOf"] if s.get("type") != "null"]
        nullable = any(s.get("type") == "null" for s in schema["anyOf"])
        return " or ".join(kinds) + (" or null" if nullable else "")
    kind = str(schema.get("type", "any"))
    if kind == "array":
        kind = "array of " + _type(schema.get("items", {}))
    if "enum" in schema:
        kind += ": " + ", ".join(f"`{v}`" for v in schema["enum"])
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        kind += f", {low}–{high}"
    elif low is not None:
        kind += f" ≥ {low}"
    elif high is not None:
        kind += f" ≤ {high}"
    if "default" in schema:
        kind += f" (default `{schema['default']}`)"
    return kind


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _body_schema(part: dict[str, Any]) -> str:
    content = part.get("content", {})
    for media, body in content.items():
        return f"{_type(body.get('schema', {}))} (`{media}`)"
    return "—"


def api_reference(schema: dict[str, Any]) -> str:
    info = schema.get("info", {})
    out = [f"OpenAPI {schema.get('openapi', '')}, *{info.get('title', '')}* version {info.get('version', '')}.", ""]
    if info.get("description"):
        out += [info["description"], ""]
    schemes = schema.get("components", {}).get("securitySchemes", {})
    if schemes:
        named = (f"`{name}` ({s.get('scheme') or s.get('in', '')} {s.get('type', '')})" for name, s in schemes.items())
        out += ["Authentication schemes: " + ", ".join(named) + ".", ""]
    out += ["## Operations", ""]
    for path, methods in schema.get("paths", {}).items():
        for method, op in methods.items():
            out += [f"### `{method.upper()} {path}`", ""]
            if op.get("summary"):
                out += [f"**{op['summary']}.**", ""]
            if op.get("description"):
                out += [op["description"], ""]
            params = op.get("parameters", [])
            if params:
                out += ["| parameter | in | type | required |", "|---|---|---|---|"]
                for p in params:
                    required = "yes" if p.get("required") else "no"
                    out.append(f"| `{p['name']}` | {p['in']} | {_cell(_type(p.get('schema', {})))} | {required} |")
                out.append("")
            if "requestBody" in op:
                out += [f"Request body: {_body_schema(op['requestBody'])}.", ""]
            out += ["| status | meaning | body |", "|---|---|---|"]
            for status, response in op.get("responses", {}).items():
                out.append(f"| {status} | {_cell(response.get('description', ''))} | {_body_schema(response)} |")
            out.append("")
    out += ["## Shapes", ""]
    for name, shape in schema.get("components", {}).get("schemas", {}).items():
        out += [f"### {name} {{#{_anchor(name)}}}", ""]
        if shape.get("description"):
            out += [shape["description"], ""]
        needed = set(shape.get("required", []))
        out += ["| field | type | required |", "|---|---|---|"]
        for field, prop in shape.get("properties", {}).items():
            out.append(f"| `{field}` | {_cell(_type(prop))} | {'yes' if field in needed else 'no'} |")
        if shape.get("additionalProperties"):
            out.append("| *other fields* | passed through as the command line's JSON gives them | no |")
        out.append("")
    return "\n".join(out)


# --- the benchmark results ---------------------------------------------------------------------


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.4g}"
    text = _cell(json.dumps(value, ensure_ascii=False) if not _scalar(value) else str(value))
    # A result holds quoted page text: shown as data, never read as a link or as HTML.
    return text.replace("[", "\\[").replace("]", "\\]").replace("<", "&lt;")


def _flat(data: Any, prefix: str = "", depth: int = 0) -> list[tuple[str, Any]]:
    """``(key.path, scalar)`` pairs, three levels deep at most; what lies deeper is left to the file."""
    if _scalar(data):
        return [(prefix, data)]
    if depth >= 3:
        return []
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else []
    pairs: list[tuple[str, Any]] = []
    for key, value in items:
        pairs += _flat(value, f"{prefix}.{key}" if prefix else str(key), depth + 1)
    return pairs


def _table_of_rows(rows: list[dict[str, Any]]) -> list[str]:
    columns = [c for c in rows[0] if all(_scalar(r.get(c)) for r in rows)][:10]
    if not columns:
        return []
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(_format(r.get(c, "")) for c in columns) + " |" for r in rows[:40]]
    return out


def bench_results(results: Path = RESULTS) -> str:
    files = sorted(results.glob("*.json")) if results.is_dir() else []
    if not files:
        return (
            '!!! note "No results on the machine that built this site"\n'
            "    `make bench` (and `make prove`) write them under `bench/results/`; build the site again "
            "(`make docs`) to see them here.\n"
        )
    out: list[str] = []
    for path in files:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            out += [f"### `{path.name}`", "", f"Unreadable: {_cell(str(exc))}", ""]
            continue
        meta = data.pop("meta", {}) if isinstance(data, dict) else {}
        out += [f"### `{path.name}`", ""]
        if meta:
            load = ", ".join(f"{x:.1f}" for x in meta.get("load_average") or [])
            out += [
                f"Written {meta.get('written_at', 'at an unrecorded time')} on a machine with "
                f"{meta.get('cpus', 'an unrecorded number of')} CPUs (load average {load or 'not recorded'}).",
                "",
            ]
        else:
            written = time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
            out += [f"The file records no date or machine; it was last written {written}.", ""]
        tables: list[str] = []
        if isinstance(data, dict):
            for key, value in data.items():
                if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
                    table = _table_of_rows(value)
                    if table:
                        tables += [f"`{key}`:", "", *table, ""]
        rest = {k: v for k, v in data.items() if not isinstance(v, list)} if isinstance(data, dict) else data
        pairs = [(k, v) for k, v in _flat(rest) if k]
        body = [*tables]
        if pairs:
            body += ["| figure | value |", "|---|---|"]
            body += [f"| `{_cell(k)}` | {_format(v)} |" for k, v in pairs[:60]]
            body.append("")
            if len(pairs) > 60:
                body += [f"…and {len(pairs) - 60} more in the file.", ""]
        out += [f'??? abstract "Figures of `{path.stem}`"', ""]
        out += [("    " + line) if line else "" for line in body or ["(no figures)"]]
        out.append("")
    return "\n".join(out)


# --- the hook ----------------------------------------------------------------------------------


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKERS[0] in markdown:
        markdown = markdown.replace(MARKERS[0], _settings_table())
    if MARKERS[1] in markdown:
        markdown = markdown.replace(MARKERS[1], api_reference(openapi_schema()))
    if MARKERS[2] in markdown:
        markdown = markdown.replace(MARKERS[2], bench_results())
    return markdown
