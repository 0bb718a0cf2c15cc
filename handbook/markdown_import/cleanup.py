"""Generator markup → plain Markdown.

Static-site generators mix Markdown with their own syntax: Liquid/Nunjucks tags
(``{% image "a.png" "alt" %}``, ``{{ site.baseurl }}``), Hugo shortcodes
(``{{< figure src="…" >}}``), VuePress containers (``::: tip``) and Vue
components (``<Badge text="new"/>``), and raw HTML. The handbook's renderer
shows raw HTML as text, so all of it is turned into Markdown or into its text
here, never left raw. Fenced code blocks and inline code are left as written:
there, template syntax is the content.
"""

from __future__ import annotations

import html
import re
import shlex
from html.parser import HTMLParser

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[^\n]*\n.*?(?:^\1\2[`~]*[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
_RAW = re.compile(r"\{%-?\s*raw\s*-?%\}(.*?)\{%-?\s*endraw\s*-?%\}", re.DOTALL)
_COMMENT_TAG = re.compile(r"\{%-?\s*comment\s*-?%\}.*?\{%-?\s*endcomment\s*-?%\}", re.DOTALL)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_LIQUID_TAG = re.compile(r"\{%-?\s*(\w+)(.*?)-?%\}", re.DOTALL)
_LIQUID_EXPR = re.compile(r"\{\{-?(.*?)-?\}\}", re.DOTALL)
_HUGO = re.compile(r"\{\{[<%]\s*(/?)\s*([\w.-]+)(.*?)\s*[>%]\}\}", re.DOTALL)
_CONTAINER = re.compile(r"^[ \t]*:::+[ \t]*(\S*)[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_PLACEHOLDER = "\x00{}\x00"

HTML_TAGS = {
    "a", "abbr", "address", "article", "aside", "audio", "b", "blockquote", "br", "button", "caption", "center",
    "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "embed", "figcaption",
    "figure", "font", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "i", "iframe", "img",
    "input", "ins", "kbd", "label", "li", "main", "mark", "nav", "object", "ol", "p", "picture", "pre", "q", "s",
    "samp", "script", "section", "small", "source", "span", "strike", "strong", "style", "sub", "summary", "sup",
    "svg", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "use", "var", "video", "wbr",
}  # fmt: skip
# A tag: a known HTML element, or a component (CamelCase like <Badge/>, or <custom-element>).
_TAG = re.compile(r"<(/?)([A-Za-z][\w-]*)((?:\s+[^<>]*?)?)\s*(/?)>", re.DOTALL)
_ATTR = re.compile(r"""([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
_DROP_WITH_CONTENT = {"script", "style", "svg", "template"}


def _attrs(text: str) -> dict[str, str]:
    found = _ATTR.finditer(text)
    return {m.group(1).lower(): html.unescape(m.group(2) or m.group(3) or m.group(4) or "") for m in found}


def _is_component(name: str) -> bool:
    return name[0].isupper() or ("-" in name and name.lower() not in HTML_TAGS)


def _args(text: str) -> list[str]:
    """Shortcode arguments: quoted strings or bare words, commas between them ignored."""
    try:
        return [a.rstrip(",") for a in shlex.split(text.replace(",", " "), posix=True) if a.rstrip(",")]
    except ValueError:
        return re.findall(r'"([^"]*)"', text) or text.split()


def _liquid_tag(match: re.Match[str]) -> str:
    name, args = match.group(1).lower(), _args(match.group(2))
    if name in ("image", "figure") and args:  # {% image "path" "alt" %}: paths from the site root
        return f"![{args[1] if len(args) > 1 else ''}](/{args[0].lstrip('/')})"
    if name == "image_with_class" and args:
        return f"![{args[2] if len(args) > 2 else ''}](/{args[0].lstrip('/')})"
    if name in ("download",) and args:
        return "/" + args[0].lstrip("/")
    if name in ("page", "link", "ref", "relref", "url", "post_url") and args:
        return args[0]
    if name == "slack_channel" and args:
        return args[1] if len(args) > 1 else "#" + args[0].lstrip("#")
    if name in ("alert", "callout", "note", "warning", "tip") and args and args[0].strip():
        return f"**{args[0].strip()}**\n\n"
    return ""  # include, if/for/endalert and friends: generator logic, nothing to show


def _liquid_expr(match: re.Match[str]) -> str:
    inner = match.group(1).strip()
    literal = re.fullmatch(r"""(["'])(.*)\1""", inner, re.DOTALL)
    return literal.group(2) if literal else ""  # {{ "text" }} prints text; variables have no value here


def _hugo(match: re.Match[str]) -> str:
    closing, name, args = match.group(1), match.group(2).lower(), match.group(3)
    if closing:
        return ""
    attrs = _attrs(args)
    positional = _args(args) if not attrs or "=" not in args else []
    if name == "figure" and attrs.get("src"):
        return f"![{attrs.get('alt') or attrs.get('caption') or attrs.get('title', '')}]({attrs['src']})"
    if name in ("ref", "relref") and (positional or attrs):
        return positional[0] if positional else next(iter(attrs))
    return ""


def _container(match: re.Match[str]) -> str:
    kind, title = match.group(1), match.group(2)
    if not kind:
        return ""  # a closing :::
    label = title or kind.capitalize() if kind.lower() in ("tip", "warning", "danger", "note", "info") else title
    return f"**{label}**" if label else ""


class _TableParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "br" and self.cell is not None:
            self.cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            if not self.rows:
                self.rows.append([])
            self.rows[-1].append(" ".join("".join(self.cell).split()).replace("|", "\\|"))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def _table(match: re.Match[str]) -> str:
    parser = _TableParser()
    parser.feed(_inline_html(match.group(0), keep_tables=True))
    rows = [r for r in parser.rows if r]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n\n" + "\n".join(lines) + "\n\n"


_TABLE_TAGS = {"table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "colgroup", "col"}
_INLINE_MARKS = {"strong": "**", "b": "**", "em": "*", "i": "*", "del": "~~", "s": "~~", "strike": "~~", "code": "`"}
_BLOCK_TAGS = {"div", "p", "section", "article", "aside", "header", "footer", "main", "nav", "figure", "details",
               "blockquote", "ul", "ol", "dl", "center", "form", "picture", "video", "audio", "pre"}  # fmt: skip


def _inline_html(text: str, *, keep_tables: bool = False) -> str:
    """Rewrite tags (not inside code) into Markdown or their text."""
    for name in _DROP_WITH_CONTENT:
        text = re.sub(rf"<{name}\b.*?</{name}\s*>", "", text, flags=re.DOTALL | re.IGNORECASE)
    if not keep_tables:
        text = re.sub(r"<table\b.*?</table\s*>", _table, text, flags=re.DOTALL | re.IGNORECASE)

    def link(match: re.Match[str]) -> str:
        href = _attrs(match.group(1)).get("href", "")
        inner = match.group(2).strip()
        return f"[{inner or href}]({href})" if href else inner

    text = re.sub(r"<a\b([^>]*)>(.*?)</a\s*>", link, text, flags=re.DOTALL | re.IGNORECASE)

    def tag(match: re.Match[str]) -> str:
        closing, name, rest = match.group(1), match.group(2), match.group(3)
        lower = name.lower()
        if keep_tables and lower in _TABLE_TAGS:
            return match.group(0)  # the table parser reads these
        if lower not in HTML_TAGS and not _is_component(name):
            return match.group(0)  # "<your name>" in prose: a placeholder, left as the author wrote it
        attrs = _attrs(rest) if not closing else {}
        if lower == "img" or lower == "source" and attrs.get("srcset"):
            src = attrs.get("src") or attrs.get("srcset", "").split(" ")[0]
            return f"![{attrs.get('alt', '')}]({src})" if src else ""
        if lower == "iframe" and attrs.get("src"):
            return f"[{attrs.get('title') or attrs['src']}]({attrs['src']})"
        if lower in ("br", "wbr"):
            return " "
        if lower == "hr":
            return "\n\n---\n\n"
        if lower in _INLINE_MARKS:
            return _INLINE_MARKS[lower]
        if re.fullmatch(r"h[1-6]", lower):
            return "\n\n" + "#" * int(lower[1]) + " " if not closing else "\n\n"
        if lower == "li":
            return "\n- " if not closing else ""
        if lower == "summary":
            return "\n\n**" if not closing else "**\n\n"
        if lower in _BLOCK_TAGS or lower in ("dt", "dd", "figcaption", "caption"):
            return "\n\n"
        if _is_component(name) and not closing:
            # Vue/web components: <Button link="…" text="…"/>, <Badge text="…"/>: their text, linked if they link.
            label = attrs.get("text") or attrs.get("label") or attrs.get("title") or ""
            target = attrs.get("link") or attrs.get("href") or attrs.get("to") or ""
            return f"[{label or target}]({target})" if target else label
        return ""

    return _TAG.sub(tag, text)


def _protect(text: str, pattern: re.Pattern[str], kept: list[str]) -> str:
    def hold(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return _PLACEHOLDER.format(len(kept) - 1)

    return pattern.sub(hold, text)


def _restore(text: str, kept: list[str]) -> str:
    while "\x00" in text:
        new = re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)
        if new == text:
            break
        text = new
    return text


def clean_markdown(text: str) -> str:
    """Markdown with generator markup rendered to Markdown or text; code left as written."""
    kept: list[str] = []
    text = text.replace("\r\n", "\n").replace("\x00", "")
    # {% raw %}: its content is shown as written (it is usually an example of template syntax).

    def keep_raw(match: re.Match[str]) -> str:
        kept.append(match.group(1))
        return _PLACEHOLDER.format(len(kept) - 1)

    text = _RAW.sub(keep_raw, text)
    text = _protect(text, _FENCE, kept)
    text = _COMMENT_TAG.sub("", text)
    text = _HTML_COMMENT.sub("", text)

    def in_code(match: re.Match[str]) -> str:
        # Inside inline code only {{ "literal" }} is rendered (it is how Liquid prints "{%").
        code = re.sub(r"""\{\{-?\s*(["'])(.*?)\1\s*-?\}\}""", lambda m: m.group(2), match.group(0))
        kept.append(code)
        return _PLACEHOLDER.format(len(kept) - 1)

    text = _INLINE_CODE.sub(in_code, text)
    text = _HUGO.sub(_hugo, text)
    text = _LIQUID_TAG.sub(_liquid_tag, text)
    text = _LIQUID_EXPR.sub(_liquid_expr, text)
    text = _CONTAINER.sub(_container, text)
    text = _inline_html(text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return _restore(text, kept).strip() + "\n"
