"""Driving the Markdown editor (static/js/editor.js) from a test: the textarea under it is hidden,
so text goes in through CodeMirror, as typing would; the textarea follows (forceSync)."""

from __future__ import annotations

from typing import Any


def editor_fill(page: Any, text: str) -> None:
    """Replace the whole text, like ``fill`` on the textarea it replaces."""
    page.locator(".EasyMDEContainer .CodeMirror").evaluate("(el, text) => el.CodeMirror.setValue(text)", text)


def editor_type_at_end(page: Any, text: str, delay: float = 5) -> None:
    """Type ``text`` at the end of the text, key by key."""
    page.locator(".EasyMDEContainer .CodeMirror").evaluate(
        "el => { el.CodeMirror.focus(); el.CodeMirror.execCommand('goDocEnd'); }"
    )
    page.keyboard.type(text, delay=delay)


def editor_place_cursor(page: Any, index: int) -> None:
    """Put the cursor before the ``index``-th character."""
    page.locator(".EasyMDEContainer .CodeMirror").evaluate(
        "(el, at) => { const cm = el.CodeMirror; cm.focus(); cm.setCursor(cm.posFromIndex(at)); }", index
    )
