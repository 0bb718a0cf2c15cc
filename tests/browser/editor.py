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


def new_page_typed(page: Any, base: str, space: str, title: str, text: str) -> None:
    """Open New page in ``space``, give it ``title`` and type ``text`` into the editor, key by key."""
    page.goto(f"{base}/spaces/{space}/_new/")
    page.get_by_label("Title").fill(title)
    page.locator(".CodeMirror").evaluate("el => el.CodeMirror.focus()")
    page.keyboard.type(text)


def hand_file(page: Any, how: str, name: str, content: bytes, kind: str = "image/png") -> None:
    """Give the editor a file as a browser does: pasted (``how="paste"``) or dropped (``"drop"``)."""
    page.evaluate(
        """([how, name, kind, bytes]) => {
            const data = new DataTransfer();
            data.items.add(new File([new Uint8Array(bytes)], name, {type: kind}));
            const target = how === "paste"
                ? document.querySelector(".CodeMirror [contenteditable]")
                : document.querySelector(".CodeMirror-lines");
            const event = how === "paste"
                ? new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true})
                : new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true});
            target.dispatchEvent(event);
        }""",
        [how, name, kind, list(content)],
    )
