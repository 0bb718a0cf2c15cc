"""A Markdown file's front matter, read so that no file can make the import blow up.

- YAML aliases are refused: ``a: &a [x, x, …]`` then ``b: &b [*a, *a, …]``… ("billion laughs")
  makes a few hundred bytes stand for gigabytes once anything walks the value (``str(meta["lang"])``).
  Real front matter (titles, dates, tags, redirects) never needs an alias.
- The block is capped at ``MAX_FRONT_MATTER_BYTES``, so the parser's work stays bounded whatever it holds.
- ``title`` is used only when it is text: a list, mapping, number or date is reported and the page
  is titled from its first heading or file name instead.

A refused or unreadable block is dropped, the page's text is still imported, and the reason goes to
the import report; unless the block mentions ``restricted_to``: then the page is not imported at all
(``restrictions.py``), since what it restricted the page to cannot be known.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from django.utils.translation import gettext as _
from frontmatter import detect_format
from frontmatter.default_handlers import JSONHandler, YAMLHandler

from handbook.markdown_import.restrictions import KEY as RESTRICTION_KEY
from handbook.markdown_import.restrictions import UNREADABLE, mentions_restriction

# Real front matter is well under a kilobyte (the largest seen in the handbooks we import: a few KB
# of redirect_from and tags); the cap leaves ample room for any of it and bounds a hostile block.
MAX_FRONT_MATTER_BYTES = 64 * 1024


class AliasRefused(yaml.YAMLError):
    pass


class _NoAliasSafeLoader(yaml.SafeLoader):
    """PyYAML's safe loader (pure Python, so it can be subclassed), refusing any alias (``*name``)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise AliasRefused("YAML alias")
        return super().compose_node(parent, index)


class _YAMLHandler(YAMLHandler):
    def load(self, fm: str, **kwargs: object) -> Any:
        return yaml.load(fm, Loader=_NoAliasSafeLoader)  # noqa: S506 - a SafeLoader subclass


_HANDLERS = [_YAMLHandler(), JSONHandler()]  # python-frontmatter's own list, YAML made safe
_BLOCK = re.compile(r"\A---\n.*?\n---\n", flags=re.DOTALL)


def _dropped(block: str) -> dict[str, Any]:
    """The metadata left of a block that was not read: nothing, or the mark of an unknowable restriction."""
    return {RESTRICTION_KEY: UNREADABLE} if mentions_restriction(block) else {}


def read_front_matter(raw: str) -> tuple[dict[str, Any], str, list[str]]:
    """(metadata, content, problems): ``problems`` are report reasons; ``metadata["title"]``, when
    present, is a string."""
    text = raw.strip()
    handler = detect_format(text, _HANDLERS)
    if handler is None:
        return {}, text, []
    try:
        block, content = handler.split(text)
    except ValueError:  # an opening line and no closing one: no front matter (python-frontmatter's reading)
        return {}, text, []
    if len(block.encode()) > MAX_FRONT_MATTER_BYTES:
        limit = MAX_FRONT_MATTER_BYTES // 1024
        return (
            _dropped(block),
            content.strip(),
            [_("front matter larger than %(limit)s KB, ignored; text imported") % {"limit": limit}],
        )
    try:
        data = handler.load(block)
    except AliasRefused:
        return (
            _dropped(block),
            content.strip(),
            [_("front matter refused: YAML aliases (*name) are not accepted; text imported")],
        )
    except Exception as exc:  # broken YAML: keep the text, drop the block
        content = _BLOCK.sub("", raw)
        return _dropped(block), content, [f"front matter unreadable ({type(exc).__name__}), text imported"]
    meta = dict(data) if isinstance(data, dict) else _dropped(block)
    problems = []
    if "title" in meta and not isinstance(meta["title"], str):
        if meta["title"] is not None:
            problems.append(_("front matter title is not text; the heading or file name is used"))
        del meta["title"]
    return meta, content.strip(), problems
