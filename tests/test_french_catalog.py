"""Every string the interface marks for translation has its French translation in the catalogs
Django serves (the project's and each app's, merged), so a French reader never meets an English
sentence the code meant to translate.

The strings are found as ``makemessages`` finds them, without gettext's tools: the templates through
Django's own ``templatize`` (what ``makemessages`` feeds to xgettext), the Python modules through their
syntax tree.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.utils.translation import trans_real
from django.utils.translation.template import templatize

APPS = ("accounts", "api", "comments", "config", "core", "handbook", "search", "statements", "summaries")
# name -> (index of the context argument or None, indexes of the message arguments)
CALLS = {
    "gettext": (None, (0,)),
    "gettext_lazy": (None, (0,)),
    "_": (None, (0,)),
    "ngettext": (None, (0, 1)),
    "ngettext_lazy": (None, (0, 1)),
    "pgettext": (0, (1,)),
    "pgettext_lazy": (0, (1,)),
    "npgettext": (0, (1, 2)),
    "npgettext_lazy": (0, (1, 2)),
}


def _key(context: str | None, message: str) -> str:
    return f"{context}\x04{message}" if context is not None else message


def _from_python(source: str) -> Iterator[tuple[str, bool]]:
    """(catalog key, plural) of each marked literal of a module."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name not in CALLS:
            continue
        context_at, message_at = CALLS[name]
        args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args]
        if len(args) <= max(message_at) or args[message_at[0]] is None:
            continue  # a variable passed through: its literal is marked where it is written
        context = args[context_at] if context_at is not None else None
        yield _key(context, args[message_at[0]]), len(message_at) > 1  # type: ignore[arg-type]


def _from_template(source: str) -> Iterator[tuple[str, bool]]:
    """(catalog key, plural) of each string a template translates, as ``templatize`` writes it."""
    # Line by line, each left-aligned: what is not translated is written as X's, kept indented.
    lines = [line.strip() for line in templatize(source).splitlines()]
    tokens = [t for line in lines for t in tokenize.generate_tokens(io.StringIO(line).readline)]
    for i, token in enumerate(tokens):
        if token.type != tokenize.NAME or token.string not in CALLS or tokens[i + 1].string != "(":
            continue
        strings: list[str] = []
        for following in tokens[i + 2 :]:
            if following.type == tokenize.STRING:
                strings.append(ast.literal_eval(following.string))
            elif following.string != ",":
                break
        context_at, message_at = CALLS[token.string]
        context = strings[context_at] if context_at is not None else None
        yield _key(context, strings[message_at[0]]), len(message_at) > 1


def _marked() -> dict[str, set[str]]:
    """Every marked string (catalog key) with the files that mark it; plural ones under their singular."""
    base = Path(settings.BASE_DIR)
    found: dict[str, set[str]] = {}
    files = [p for app in APPS for p in (base / app).rglob("*.py") if "migrations" not in p.parts]
    for path in files:
        for key, _plural in _from_python(path.read_text(encoding="utf-8")):
            found.setdefault(key, set()).add(str(path.relative_to(base)))
    templates = [*(base / "templates").rglob("*.html"), *(base / "templates").rglob("*.txt")]
    templates += [p for app in APPS for p in (base / app).glob("templates/**/*.html")]
    for path in templates:
        for key, _plural in _from_template(path.read_text(encoding="utf-8")):
            found.setdefault(key, set()).add(str(path.relative_to(base)))
    return found


def test_the_extraction_finds_strings_of_both_kinds():
    """The test below can fail: it sees template and Python strings, plural and with a context."""
    marked = _marked()
    assert "Your profile" in marked  # {% translate %} in a template
    assert "%%(name)s uploaded: its Markdown was added to the text." in marked  # a % doubled, as served
    assert any(f.endswith(".py") for files in marked.values() for f in files)
    assert len(marked) > 500


def test_every_marked_string_has_a_french_translation():
    catalog = trans_real.translation("fr")._catalog
    plural_keys = {k[0] for k, _ in catalog.items() if isinstance(k, tuple)}  # not a dict: no iteration
    missing = {
        key: sorted(files)
        for key, files in _marked().items()
        if key not in catalog and key not in plural_keys and not str(catalog.get(key, "")).strip()
    }
    assert not missing, "\n".join(f"{key!r} ({', '.join(files)})" for key, files in sorted(missing.items()))


@pytest.mark.django_db
def test_a_question_or_search_refused_is_told_in_the_reader_s_language(client, make_user):  # type: ignore[no-untyped-def]
    client.force_login(make_user("reader", "staff"))
    too_long = "mot " * 400
    asked = client.post("/ask/", {"q": "   "}, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    searched = client.get("/search/", {"q": too_long}, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Saisissez une question." in asked
    assert "Votre recherche est trop longue" in searched
    english = client.get("/search/", {"q": too_long}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Your search is too long" in english
